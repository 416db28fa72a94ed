package build

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Heads that state a date (pages.head_dates), each in one of the forms
// the head reader takes, with the lastmod the sitemap must show for it
// (in UTC); and a page body stating none.
var datedHeads = []struct{ head, lastmod string }{
	{`<meta property="article:modified_time" content="2021-03-04T05:06:07+01:00">`, "2021-03-04T04:06:07Z"},
	{`<meta property="og:updated_time" content="2022-07-08T09:10:11Z">`, "2022-07-08T09:10:11Z"},
	{`<script type="application/ld+json">{"@type":"WebPage","dateModified":"2020-01-02"}</script>`, "2020-01-02T00:00:00Z"},
}

// sourcesSite is a site whose pages state a date in their head or not:
// the page dates Groups must count are read from this table, not from a
// build.
type sourcesSite struct {
	t     *testing.T
	root  string
	dated map[string]int // relative path -> index in datedHeads, or -1 for none
	n     int            // writes, each with a body of its own and a later mtime
}

// write writes page rel, its head stating datedHeads[form]'s date, or
// none for -1; hidden adds noindex (a page left out counts for no source).
func (s *sourcesSite) write(rel string, form int, hidden bool) {
	s.t.Helper()
	head := "<title>" + rel + "</title>"
	if form >= 0 {
		head += datedHeads[form].head
	}
	if hidden {
		head += `<meta name="robots" content="noindex">`
	} else {
		s.dated[rel] = form
	}
	s.n++
	body := strings.Repeat("words of version ", s.n)
	writeFile(s.t, filepath.Join(s.root, rel), "<html><head>"+head+"</head><body><p>"+body+"</p></body></html>", defaultMTime.Add(time.Duration(s.n)*time.Minute))
}

// want is, per group (depth 1), its listed pages and those whose head
// states a date.
func (s *sourcesSite) want() map[string][2]int {
	out := map[string][2]int{}
	for rel, form := range s.dated {
		group, _, _ := strings.Cut(rel, "/")
		if !strings.Contains(rel, "/") {
			group = ""
		}
		w := out[group]
		w[0]++
		if form >= 0 {
			w[1]++
		}
		out[group] = w
	}
	return out
}

// check compares Groups' listed and dated counts with the table, and the
// lastmod each dated page shows with the date its head states.
func (s *sourcesSite) check(e *Engine, step string) {
	s.t.Helper()
	want := s.want()
	got := map[string][2]int{}
	for _, g := range e.Groups() {
		got[g.Dir] = [2]int{g.Listed, g.Dated}
	}
	for g, w := range want {
		if got[g] != w {
			s.t.Errorf("%s: group %q: listed, page dates %v; want %v", step, g, got[g], w)
		}
	}
	if len(got) != len(want) {
		s.t.Errorf("%s: groups %v, want %v", step, got, want)
	}
	for rel, form := range s.dated {
		group, _, _ := strings.Cut(rel, "/")
		if !strings.Contains(rel, "/") {
			group = ""
		}
		lm := lastmods(s.t, filepath.Join(s.root, group, "sitemap.xml"))
		if loc := "https://static.test/" + strings.TrimSuffix(rel, "index.html"); form >= 0 && lm[loc] != datedHeads[form].lastmod {
			s.t.Errorf("%s: %s lastmod %q, want its head's %q", step, loc, lm[loc], datedHeads[form].lastmod)
		}
	}
}

// TestGroupsSources builds a site of pages that state a date in their
// head and pages that do not, then changes it as the daemon does: Groups
// counts, per group, the pages whose lastmod is their head's date; each
// publish's Changes count those of the lastmods it moved; a page whose
// edit removes its date moves to the configured source, one whose edit
// adds one to the page date; a restart, taking the pages from the page
// store without reading them again, counts the same.
func TestGroupsSources(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	s := &sourcesSite{t: t, root: root, dated: map[string]int{}}
	for rel, form := range map[string]int{
		"index.html": 0, "about.html": -1,
		"blog/a.html": 0, "blog/b.html": 1, "blog/c.html": 2, "blog/d.html": -1, "blog/2024/e.html": 1, "blog/2024/f.html": -1,
		"docs/index.html": -1, "docs/g.html": -1,
	} {
		s.write(rel, form, false)
	}
	s.write("blog/hidden.html", 0, true) // dated, but left out
	cfg := loadConfig(t, baseConfig, root, "")
	if !cfg.Pages.HeadDates {
		t.Fatal("pages.head_dates is off by default: this test assumes it on")
	}
	e, _ := newEngine(t, cfg, WithChanges())
	rep := mustBuild(t, e)
	s.check(e, "build")
	// Every page listed is added: 5 of them take their head's date.
	if n := rep.Changes.Counts(); n.Added != 10 || n.Dated != 5 {
		t.Errorf("build: %d added, %d of them page dates; want 10, 5", n.Added, n.Dated)
	}

	update := func(step string, rel string, form int, moved, dated int) {
		t.Helper()
		s.write(rel, form, false)
		dir, name := filepath.Split(rel)
		dir = strings.TrimSuffix(dir, "/")
		rep, err := e.Update(context.Background(), []string{dir}, map[string][]string{dir: {name}})
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if n := rep.Changes.Counts(); n.Changed+n.Added != moved || n.Dated != dated {
			t.Errorf("%s: %d lastmods moved, %d of them page dates; want %d, %d", step, n.Changed+n.Added, n.Dated, moved, dated)
		}
		s.check(e, step)
	}
	// Its head's date removed: its lastmod is when its content changed.
	update("date removed", "blog/b.html", -1, 1, 0)
	// A date added to a page that had none.
	update("date added", "blog/2024/f.html", 2, 1, 1)
	// Another date, the page edited: still a page date.
	update("date changed", "index.html", 1, 1, 1)
	// A new page with a date, one without.
	update("dated page added", "docs/new.html", 0, 1, 1)
	update("page added", "docs/plain.html", -1, 1, 0)

	// A restart: the pages are known from the page store (their files
	// unchanged, not read again), and still counted where their lastmods
	// come from.
	e.Close()
	e2, _ := newEngine(t, cfg, WithChanges())
	rep = mustBuild(t, e2)
	s.check(e2, "restart")
	if n := rep.Changes.Counts(); n.Added+n.Changed != 0 {
		t.Errorf("restart: %+v moved, want none", n)
	}
	// A removed dated page is counted no more.
	if err := os.Remove(filepath.Join(root, "blog", "a.html")); err != nil {
		t.Fatal(err)
	}
	delete(s.dated, "blog/a.html")
	if _, err := e2.Update(context.Background(), []string{"blog"}, map[string][]string{"blog": {"a.html"}}); err != nil {
		t.Fatal(err)
	}
	s.check(e2, "dated page removed")
}
