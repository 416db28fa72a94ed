package build

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sitemapd/sitemapd/internal/scan"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// Pages as the fixture writes them, each for one reason to be left out
// (or listed), by the rule the configuration below or the page's head
// sets: what Groups must count is read from this table, not from a build.
var leftOutBodies = map[tree.Reason]string{
	tree.Listed:    `<title>listed</title>`,
	tree.NoIndex:   `<meta name="robots" content="noindex">`,
	tree.Canonical: `<link rel="canonical" href="https://static.test/elsewhere.html">`,
	tree.Redirect:  `<meta http-equiv="refresh" content="0; url=https://static.test/">`,
}

// leftOutSite is a site whose pages each are listed or left out for a
// known reason: pages.exclude leaves out /docs/drafts/, error_pages
// 404.html, robots.txt /private/; the others by their heads.
type leftOutSite struct {
	t     *testing.T
	root  string
	pages map[string]tree.Reason // relative path -> why it is left out (Listed: it is listed)
	// lossless says every directory was read whole since its last edit
	// by name: each reason counted in a directory has its example.
	lossless bool
}

func (s *leftOutSite) write(rel string, why tree.Reason) {
	s.t.Helper()
	body := leftOutBodies[why]
	if body == "" { // left out by its path: what it says does not matter
		body = leftOutBodies[tree.Listed]
	}
	writeFile(s.t, filepath.Join(s.root, rel), "<html><head>"+body+"</head><body>x</body></html>", defaultMTime)
	s.pages[rel] = why
}

func (s *leftOutSite) remove(rel string) {
	s.t.Helper()
	if err := os.Remove(filepath.Join(s.root, rel)); err != nil {
		s.t.Fatal(err)
	}
	delete(s.pages, rel)
}

// want is what Groups should say, from the table: per group (depth 1: a
// top-level directory and its subtree), the pages listed and the pages
// left out by reason, with their URLs (from which at most 3 examples, one
// a directory, are drawn).
func (s *leftOutSite) want() map[string]wantGroup {
	out := map[string]wantGroup{}
	for rel, why := range s.pages {
		dir := tree.Parent(rel)
		group, _, _ := strings.Cut(dir, "/")
		w := out[group]
		if why == tree.Listed {
			w.listed++
		} else {
			w.left[why]++
			if w.urls == nil {
				w.urls = map[string][]string{}
			}
			w.urls[dir] = append(w.urls[dir], "https://static.test/"+rel)
		}
		out[group] = w
	}
	return out
}

type wantGroup struct {
	listed int
	left   tree.Tally
	urls   map[string][]string // URLs left out, by directory
}

// check compares Groups with the table.
func (s *leftOutSite) check(e *Engine, step string) {
	s.t.Helper()
	want := s.want()
	got := e.Groups()
	var dirs []string
	for _, g := range got {
		dirs = append(dirs, g.Dir)
		w, ok := want[g.Dir]
		if !ok {
			s.t.Errorf("%s: group %q reported, not in the fixture", step, g.Dir)
			continue
		}
		if g.Listed != w.listed || g.LeftOut != w.left {
			s.t.Errorf("%s: group %q: listed %d, left out %v; want %d, %v", step, g.Dir, g.Listed, g.LeftOut, w.listed, w.left)
		}
		if wantURL := "https://static.test/" + g.Dir + "/"; g.Dir != "" && g.URL != wantURL {
			s.t.Errorf("%s: group %q: URL %q, want %q", step, g.Dir, g.URL, wantURL)
		}
		s.checkExamples(step, g, w)
	}
	if wantDirs := slices.Sorted(maps.Keys(want)); !slices.Equal(dirs, wantDirs) {
		s.t.Errorf("%s: groups %q, want %q", step, dirs, wantDirs)
	}
}

// checkExamples checks that every example is a URL the group leaves out
// for that reason, at most one a directory and 3 a reason, and that a
// reason counted has one at least where no example was lost to an edit
// (lossless: every directory of the group was read whole since).
func (s *leftOutSite) checkExamples(step string, g *GroupStatus, w wantGroup) {
	s.t.Helper()
	for _, why := range tree.Reasons() {
		exs := g.Examples[why]
		if len(exs) > 3 || len(exs) > g.LeftOut[why] {
			s.t.Errorf("%s: group %q: %d examples for %v (%d left out)", step, g.Dir, len(exs), why, g.LeftOut[why])
		}
		perDir := map[string]int{}
		for _, ex := range exs {
			rel := strings.TrimPrefix(ex, "https://static.test/")
			if s.pages[rel] != why || s.pages[rel] == tree.Listed {
				s.t.Errorf("%s: group %q: example %q for %v, but the fixture has it %v", step, g.Dir, ex, why, s.pages[rel])
			}
			if perDir[tree.Parent(rel)]++; perDir[tree.Parent(rel)] > 1 {
				s.t.Errorf("%s: group %q: two examples of directory %q", step, g.Dir, tree.Parent(rel))
			}
		}
		// As many as there are directories with such pages, up to 3.
		dirsWith := 0
		for _, urls := range w.urls {
			for _, u := range urls {
				if s.pages[strings.TrimPrefix(u, "https://static.test/")] == why {
					dirsWith++
					break
				}
			}
		}
		if s.lossless && len(exs) != min(3, dirsWith) {
			s.t.Errorf("%s: group %q: examples for %v %q, want %d (one a directory)", step, g.Dir, why, exs, min(3, dirsWith))
		}
	}
}

// TestGroupsLeftOut builds a site whose pages are left out for known
// reasons, then changes it as the daemon does (Update, by names and by
// directory): Groups counts each group's pages listed and left out, by
// reason, with examples, after the build and after every change, a group
// a change did not touch keeping its counts, without a full build.
func TestGroupsLeftOut(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	s := &leftOutSite{t: t, root: root, pages: map[string]tree.Reason{}}
	for rel, why := range map[string]tree.Reason{
		"index.html": tree.Listed, "about.html": tree.Listed, "404.html": tree.ErrorPage,
		"old.html":        tree.Redirect,
		"blog/index.html": tree.Listed, "blog/a.html": tree.Listed, "blog/b.html": tree.NoIndex,
		"blog/2024/c.html": tree.NoIndex, "blog/2024/d.html": tree.Canonical, "blog/2024/e.html": tree.Listed,
		"blog/2025/f.html": tree.NoIndex, "blog/2026/g.html": tree.NoIndex,
		"docs/index.html": tree.Listed, "docs/drafts/x.html": tree.Excluded, "docs/drafts/y.html": tree.Excluded,
		"private/p.html": tree.Robots, "private/q.html": tree.Robots,
	} {
		s.write(rel, why)
	}
	writeFile(t, filepath.Join(root, "robots.txt"), "User-agent: *\nDisallow: /private/\n", defaultMTime)
	cfg := loadConfig(t, baseConfig, root, "pages: {exclude: ['/docs/drafts/*.html'], error_pages: [/404.html]}\n")
	e, _ := newEngine(t, cfg, WithChanges())
	mustBuild(t, e)
	s.lossless = true
	s.check(e, "build")

	ctx := context.Background()
	update := func(step string, dirty []string, names map[string][]string) {
		t.Helper()
		if _, err := e.Update(ctx, dirty, names); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		s.check(e, step)
	}
	// A noindex page fixed, by name: blog's count drops, its example goes.
	s.write("blog/2025/f.html", tree.Listed)
	s.lossless = false
	update("fixed", []string{"blog/2025"}, map[string][]string{"blog/2025": {"f.html"}})
	// A page hidden, by name, where none was.
	s.write("blog/2024/e.html", tree.Redirect)
	update("hidden", []string{"blog/2024"}, map[string][]string{"blog/2024": {"e.html"}})
	// A draft added, by name (a rule on its path: the directory is read
	// whole), then edited twice: counted once.
	s.write("docs/drafts/z.html", tree.Excluded)
	update("draft added", []string{"docs/drafts"}, map[string][]string{"docs/drafts": {"z.html"}})
	for range 2 {
		s.write("docs/drafts/z.html", tree.Excluded)
		update("draft edited", []string{"docs/drafts"}, map[string][]string{"docs/drafts": {"z.html"}})
	}
	s.remove("docs/drafts/y.html")
	update("draft removed", []string{"docs/drafts"}, map[string][]string{"docs/drafts": {"y.html"}})
	// A noindex page removed, by name; another directory re-read whole.
	s.remove("blog/b.html")
	s.write("blog/2026/h.html", tree.Canonical)
	update("removed and added", []string{"blog", "blog/2026"}, map[string][]string{"blog": {"b.html"}})
	// A whole directory gone: its pages with it.
	for rel := range s.pages {
		if strings.HasPrefix(rel, "blog/2024/") {
			delete(s.pages, rel)
		}
	}
	if err := os.RemoveAll(filepath.Join(root, "blog", "2024")); err != nil {
		t.Fatal(err)
	}
	update("directory gone", []string{"blog"}, map[string][]string{"blog": {"2024"}})
	// A group whose pages are all left out stays, listing none; one gone
	// goes.
	s.remove("docs/index.html")
	update("all left out", []string{"docs"}, nil)
	if err := os.RemoveAll(filepath.Join(root, "private")); err != nil {
		t.Fatal(err)
	}
	delete(s.pages, "private/p.html")
	delete(s.pages, "private/q.html")
	update("group gone", []string{"private"}, nil)
	// A full build finds every example again.
	mustBuild(t, e)
	s.lossless = true
	s.check(e, "build again")
}

// BenchmarkGroups is Engine.Groups, what the status page asks per
// request, for a site of 20,000 groups, one in four with pages left out
// in 10 directories for 3 reasons: the cost grows with the groups and
// the directories that have pages left out, not with the pages.
func BenchmarkGroups(b *testing.B) {
	var book leftBook
	for i := range 20_000 {
		n := &groupLeft{listed: 50}
		if i%4 == 0 {
			for d := range 10 {
				dl := &scan.DirLeft{}
				for _, r := range []tree.Reason{tree.NoIndex, tree.Canonical, tree.Robots} {
					dl.Tally[r] = 4
					dl.Examples[r] = fmt.Sprintf("https://static.test/g%05d/d%d/%d.html", i, d, r)
				}
				n.set(fmt.Sprintf("g%05d/d%d", i, d), dl)
			}
		}
		dir := fmt.Sprintf("g%05d", i)
		book.land(dir, "https://static.test/"+dir+"/", n)
	}
	b.ReportAllocs()
	for b.Loop() {
		if gs := book.groups(); len(gs) != 20_000 {
			b.Fatalf("%d groups", len(gs))
		}
	}
}
