package scan

import (
	"bytes"
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/significant"
	"github.com/sitemapd/sitemapd/internal/siteurl"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// realDocs is a real generator's output: PostgreSQL's documentation
// (DocBook XSL), from Debian's postgresql-doc-15, which CI installs.
const realDocs = "/usr/share/doc/postgresql-doc-15/html"

// realDocsSite copies n of realDocs' pages (spread over them) into a
// new root, which a test may then edit; outside CI a missing tree skips.
func realDocsSite(t *testing.T, n int) string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(realDocs, "*.html"))
	if err != nil || len(names) < n {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI lacks the real documentation tree %s (postgresql-doc-15): %d pages, %v", realDocs, len(names), err)
		}
		t.Skipf("no %s: apt-get install postgresql-doc-15 to run this test", realDocs)
	}
	picked, _ := spread(names, n)
	root := t.TempDir()
	for _, name := range picked {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, filepath.Base(name)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// sigScanner is a scanner of root under pages.lastmod: significant.
func sigScanner(t *testing.T, root string) *Scanner {
	t.Helper()
	cfg, err := config.Load([]byte("root: "+root+"\nbase_url: https://docs.sitemapd.test/\nstate_dir: \"\"\n"), filepath.Join(root, "sitemapd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s := New(cfg, nil, siteurl.New(cfg), Options{})
	if !s.Prints() {
		t.Fatal("the default configuration prints no page")
	}
	return s
}

// walkPages walks the whole tree (with sample, if any) as a first build
// does, and returns every page read, by root-relative path.
func walkPages(t *testing.T, s *Scanner, sample *Sample) map[string]tree.Page {
	t.Helper()
	w, err := s.NewWalk(context.Background(), WalkOptions{Record: true, Quiet: true, Sample: sample})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	pages := map[string]tree.Page{}
	w.Tree(func(g *Group) {
		mu.Lock()
		defer mu.Unlock()
		for dir, l := range g.Listings {
			for _, p := range l.Pages() {
				pages[joinRel(dir, p.Name)] = p
			}
		}
	})
	if w.o.Sample != nil {
		t.Error("the walk keeps the sample once the tree is read")
	}
	return pages
}

// TestSampleReused: the walk that follows learning prints each page of
// the sample from what the learning read, once, and every page's print,
// sum and time are those of a walk that reads every page again (real
// pages: PostgreSQL's documentation). A page rewritten between the
// learning and the walk is read again and printed from its new bytes, and
// a sample is used only under the model learnt from it.
func TestSampleReused(t *testing.T) {
	for _, c := range []struct {
		name       string
		edit       bool // rewrite one sampled page after learning
		otherModel bool // the walk prints under another model
	}{
		{"same bytes", false, false},
		{"a page rewritten since", true, false},
		{"another model", false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := realDocsSite(t, 400)
			s := sigScanner(t, root)
			m, sample, err := s.Learn(context.Background(), func(int) {})
			if err != nil || m == nil || sample == nil {
				t.Fatalf("Learn: %v, %v, %v", m, sample, err)
			}
			s.SetModel(m)
			if sample.Len() != sampleSize {
				t.Fatalf("sample of %d pages, want %d", sample.Len(), sampleSize)
			}
			wantReused := sampleSize
			if c.edit {
				editSampled(t, s, root, sample)
				wantReused--
			}
			if c.otherModel {
				m2, _, err := s.Learn(context.Background(), func(int) {})
				if err != nil || m2 == nil || m2 == m {
					t.Fatalf("Learn again: %v, %v", m2, err)
				}
				s.SetModel(m2)
				wantReused = 0
			}
			got := walkPages(t, s, sample)
			if sample.Reused() != wantReused || sample.Len() != 0 {
				t.Errorf("%d sampled pages printed from the sample, %d left; want %d, 0", sample.Reused(), sample.Len(), wantReused)
			}
			want := walkPages(t, s, nil)
			if len(want) != 400 || len(got) != 400 {
				t.Fatalf("walked %d and %d pages, want 400", len(got), len(want))
			}
			for rel, w := range want {
				g := got[rel]
				if w.Print == 0 || g.Print != w.Print || g.Parts != w.Parts || g.Sum != w.Sum || g.Time != w.Time {
					t.Errorf("%s: with the sample print %x/%x sum %x time %d; read again %x/%x %x %d",
						rel, g.Print, g.Parts, g.Sum, g.Time, w.Print, w.Parts, w.Sum, w.Time)
				}
			}
		})
	}
}

// editSampled adds a paragraph to the content of one page of the sample,
// checking that it changes what the page says (its print under the
// model): printed from the sample, the page would be printed wrong.
func editSampled(t *testing.T, s *Scanner, root string, sample *Sample) {
	t.Helper()
	rel := slices.Sorted(maps.Keys(sample.pages))[sampleSize/2]
	file := filepath.Join(root, rel)
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	const footer = `</div><div class="navfooter">`
	if !bytes.Contains(b, []byte(footer)) {
		t.Fatalf("%s has no navigation footer to edit before", rel)
	}
	b = bytes.Replace(b, []byte(footer), []byte("<p>A paragraph added between learning and the walk.</p>"+footer), 1)
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	m := s.Model()
	was := m.Print(sample.pages[rel].page)
	now, err := significant.ReadPrint(b, s.sig.options(sample.pages[rel].loc), m)
	if err != nil || now == was {
		t.Fatalf("the edit of %s leaves its print %v (%v): the test shows nothing", rel, was, err)
	}
}

// TestSampleTake: a sampled page is given to the walk once, and only for
// the bytes, URL and model it was read and learnt with.
func TestSampleTake(t *testing.T) {
	m, other := new(significant.Model), new(significant.Model)
	page := new(significant.Page)
	const rel, sum, loc = "a/b.html", 42, "https://docs.sitemapd.test/a/b.html"
	for _, c := range []struct {
		name string
		rel  string
		sum  uint64
		loc  string
		m    *significant.Model
		want bool
	}{
		{"the same", rel, sum, loc, m, true},
		{"other bytes", rel, sum + 1, loc, m, false},
		{"another URL", rel, sum, loc + "x", m, false},
		{"another model", rel, sum, loc, other, false},
		{"no model", rel, sum, loc, nil, false},
		{"another page", "a/c.html", sum, loc, m, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newSample()
			s.model = m
			s.add(rel, sampled{page: page, sum: sum, loc: loc}, 100)
			if got := s.take(c.rel, c.sum, c.loc, c.m); (got == page) != c.want || (got != nil && got != page) {
				t.Errorf("take = %p, want the page: %v", got, c.want)
			}
			if c.rel == rel && (s.Len() != 0 || s.take(rel, sum, loc, m) != nil) {
				t.Errorf("the page is still there once taken: %d left", s.Len())
			}
		})
	}
	var none *Sample
	if none.take(rel, sum, loc, m) != nil {
		t.Error("no sample gave a page")
	}
}

// TestSampleBytes: a sample keeps pages up to sampleBytes of them; the
// walk reads the others again.
func TestSampleBytes(t *testing.T) {
	s := newSample()
	page := new(significant.Page)
	s.add("a.html", sampled{page: page}, sampleBytes/2)
	s.add("b.html", sampled{page: page}, sampleBytes/2+1)
	s.add("c.html", sampled{page: page}, sampleBytes/2)
	s.add("c.html", sampled{page: page}, 1)
	if s.Len() != 2 || s.size != sampleBytes {
		t.Errorf("kept %d pages of %d bytes; want a and c, %d", s.Len(), s.size, sampleBytes)
	}
	if _, ok := s.pages["b.html"]; ok {
		t.Error("kept the page past the budget")
	}
}
