package build

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

const headsCase = "testdata/golden/heads"

// listedLocs returns the <loc>s of a sitemap file, and whether it has
// alternates.
func listedLocs(t *testing.T, p string) (locs []string, alternates bool) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if loc, ok := between(line, "<loc>", "</loc>"); ok {
			locs = append(locs, strings.TrimPrefix(string(loc), "https://static.test/"))
		}
	}
	return locs, strings.Contains(string(b), "<xhtml:link")
}

// TestHeadRulesOff turns each head rule off in turn over the golden heads
// tree (whose output with all of them on is in its want/): the pages that
// rule kept out come back, and nothing else changes.
func TestHeadRulesOff(t *testing.T) {
	for _, tc := range []struct {
		pages      string
		back       []string // root pages listed that the golden output leaves out
		alternates bool
	}{
		{"{noindex: false}", []string{"noindex.html", "none.html"}, true},
		{"{canonical: false}", []string{"copy.html", "scheme.html"}, true},
		{"{hreflang: false}", nil, false},
		{"{noindex: false, canonical: false, hreflang: false}", []string{"copy.html", "noindex.html", "none.html", "scheme.html"}, false},
	} {
		t.Run(tc.pages, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "root")
			materialize(t, filepath.Join(headsCase, "tree.txt"), root)
			// The case's pages key (its config.yaml's last), which this
			// one replaces, names a host.
			b, err := os.ReadFile(filepath.Join(headsCase, "config.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(t.TempDir(), "config.yaml")
			before, _, _ := strings.Cut(string(b), "pages:")
			os.WriteFile(file, []byte(before), 0o644)
			pages := strings.Replace(tc.pages, "{", "{hreflang_hosts: [example.at], ", 1)
			cfg := loadConfig(t, file, root, "pages: "+pages+"\n")
			e, _ := newEngine(t, cfg)
			mustBuild(t, e)
			want, _ := listedLocs(t, filepath.Join(headsCase, "want", "sitemap.xml"))
			want = append(want, tc.back...)
			slices.Sort(want)
			got, alts := listedLocs(t, filepath.Join(root, "sitemap.xml"))
			if !slices.Equal(got, want) {
				t.Errorf("listed %q\nwant %q", got, want)
			}
			if alts != tc.alternates {
				t.Errorf("alternates written: %v, want %v", alts, tc.alternates)
			}
		})
	}
}

// TestHeadReadOnlyWhenChanged checks that the daemon reads a page's head
// again only when its file's stamp changed (inotify's IN_OPEN says whether
// it was opened), and that a rewrite in place that puts back the old size
// and mtime changes the stamp (its ctime): the page's new head counts.
func TestHeadReadOnlyWhenChanged(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	page := filepath.Join(root, "d", "p.html")
	listed := `<meta name=robots content="nofollow">`
	hidden := `<meta name=robots content="noindex,">` // the same length
	writeFile(t, page, listed, defaultMTime)
	mustWrite(t, filepath.Join(root, "d", "other.html"), defaultMTime)
	cfg := loadConfig(t, baseConfig, root, "")
	e, _ := newEngine(t, cfg, WithChanges())
	mustBuild(t, e)
	const loc = "https://static.test/d/p.html"
	isListed := func() bool {
		locs, _ := listedLocs(t, filepath.Join(root, "d", "sitemap.xml"))
		return slices.Contains(locs, "d/p.html")
	}
	update := func() *Report {
		t.Helper()
		rep, err := e.Update(context.Background(), []string{"d"}, map[string][]string{"d": {"p.html"}})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	if !isListed() {
		t.Fatal("page not listed at first")
	}

	opened := watchOpens(t, page)
	update()
	mustBuild(t, e) // a full build trusts what it remembers too
	if got := opened.take(t); len(got) != 0 {
		t.Errorf("%v read again though unchanged", got)
	}

	// Rewritten in place with its old size and mtime (cp -p, rsync
	// --inplace): ctime tells.
	writeFile(t, page, hidden, defaultMTime)
	if rep := update(); isListed() || !slices.Equal(rep.Changes.Removed, []string{loc}) {
		t.Errorf("after a rewrite with its mtime put back: listed %v, changes %+v; want the page removed", isListed(), rep.Changes)
	}

	mt := defaultMTime.Add(time.Minute)
	if err := os.Chtimes(page, mt, mt); err != nil {
		t.Fatal(err)
	}
	opened.take(t)
	if rep := update(); isListed() || !rep.Changes.Empty() || len(opened.take(t)) != 1 {
		t.Errorf("after a new mtime alone: listed %v, changes %+v; want it read, and no change", isListed(), rep.Changes)
	}

	writeFile(t, page, listed+" ", mt) // another size, the same mtime
	if rep := update(); !isListed() || !slices.Equal(rep.Changes.Added, []string{loc}) {
		t.Errorf("after a new size: listed %v, changes %+v; want the page added", isListed(), rep.Changes)
	}
}
