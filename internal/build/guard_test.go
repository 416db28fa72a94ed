package build

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sitemapd/sitemapd/internal/changeset"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// sphinxSite writes a tree shaped like Sphinx output: n pages in a few
// directories, each naming its canonical URL under the site it was built
// for.
func sphinxSite(t *testing.T, n int, canonicalBase string) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "root")
	for i := range n {
		rel := fmt.Sprintf("%s/page%d.html", []string{"usage", "tutorial", "extdev"}[i%3], i)
		if i == 0 {
			rel = "index.html"
		}
		href := canonicalBase + rel
		if rel == "index.html" {
			href = canonicalBase
		}
		writeFile(t, filepath.Join(root, rel),
			`<!DOCTYPE html><html><head><meta charset="utf-8" /><link rel="canonical" href="`+href+`" /><title>p</title></head><body></body></html>`,
			defaultMTime)
	}
	return root
}

// TestShrinkGuardWrongBaseURL: a base_url that is not the site's makes every
// canonical point elsewhere. The build that would drop the site is refused,
// says why in terms of the canonicals, and leaves every sitemap as it was;
// -force publishes it.
func TestShrinkGuardWrongBaseURL(t *testing.T) {
	const real = "https://www.sphinx-doc.org/en/master/"
	root := sphinxSite(t, 137, real)
	realConfig := filepath.Join(t.TempDir(), "real.yaml")
	os.WriteFile(realConfig, []byte("base_url: "+real+"\n"), 0o644)
	good := loadConfig(t, realConfig, root, "")
	e, _ := newEngine(t, good)
	if rep := mustBuild(t, e); rep.URLs != 137 {
		t.Fatalf("listed %d pages under the right base_url, want 137", rep.URLs)
	}
	before := outputs(t, good, root)

	wrong := loadConfig(t, "testdata/base.yaml", root, "") // base_url https://static.test/
	e2, logs := newEngine(t, wrong)
	rep, err := e2.Build(context.Background())
	var se *ShrinkError
	if !errors.As(err, &se) {
		t.Fatalf("build with a wrong base_url: err = %v, want a ShrinkError", err)
	}
	want := "137 of 137 pages name a canonical URL under " + real + ", not under base_url https://static.test/"
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q\ndoes not say %q", err, want)
	}
	if se.Before != 137 || se.Dropped[tree.Canonical] != 137 {
		t.Errorf("refusal counts before=%d dropped=%v, want 137 and canonical=137", se.Before, se.Dropped)
	}
	if rep == nil || rep.LeftOut[tree.Canonical] != 137 || len(rep.Written) != 0 {
		t.Errorf("refused build reported %+v", rep)
	}
	if e2.Refused() == nil {
		t.Error("Refused() is nil after a refused full build")
	}
	if after := outputs(t, good, root); !maps.EqualFunc(before, after, func(a, b []byte) bool { return string(a) == string(b) }) {
		t.Errorf("a refused build changed the outputs: %d files before, %d after", len(before), len(after))
	}
	if logs.FilterMessageSnippet("canonical URL under another base URL").Len() != 1 {
		t.Errorf("no start warning naming the canonicals' base URL; warnings: %v", logs.All())
	}

	// The same mistake on a site never published: nothing would be listed.
	fresh := sphinxSite(t, 12, real)
	e3, _ := newEngine(t, loadConfig(t, baseConfig, fresh, ""))
	if _, err := e3.Build(context.Background()); !errors.As(err, &se) || !strings.Contains(err.Error(), "would list no page, while 12 pages are there") {
		t.Errorf("first build with a wrong base_url: %v", err)
	}
	if exists(filepath.Join(fresh, "sitemap_index.xml")) {
		t.Error("refused first build wrote an index")
	}

	forced, _ := newEngine(t, wrong, WithForce())
	if _, err := forced.Build(context.Background()); err != nil {
		t.Fatalf("forced build: %v", err)
	}
	if exists(filepath.Join(root, "usage", "sitemap.xml")) || exists(filepath.Join(root, "sitemap_index.xml")) {
		t.Error("forced build kept sitemaps of pages it leaves out")
	}
}

// TestShrinkGuardCounts: deleting most of the site is published (the pages
// are gone, not left out); leaving out by a rule at most half of the pages
// listed before that are still there is published; more than half is
// refused, unless shrink_guard is off.
func TestShrinkGuardCounts(t *testing.T) {
	page := func(root, rel, head string) {
		writeFile(t, filepath.Join(root, rel), "<!doctype html><head>"+head+"<title>t</title></head>", defaultMTime)
	}
	newSite := func() string {
		root := filepath.Join(t.TempDir(), "root")
		for i := range 10 {
			page(root, fmt.Sprintf("d%d/p.html", i), "")
		}
		return root
	}
	noindex := `<meta name="robots" content="noindex">`
	for _, tc := range []struct {
		name   string
		change func(root string)
		extra  string
		refuse bool
	}{
		{"delete 9 of 10", func(root string) {
			for i := range 9 {
				os.RemoveAll(filepath.Join(root, fmt.Sprintf("d%d", i)))
			}
		}, "", true},
		{"delete 5 of 10", func(root string) {
			for i := range 5 {
				os.RemoveAll(filepath.Join(root, fmt.Sprintf("d%d", i)))
			}
		}, "", false},
		{"delete 6 of 10", func(root string) {
			for i := range 6 {
				os.RemoveAll(filepath.Join(root, fmt.Sprintf("d%d", i)))
			}
		}, "", true},
		{"delete 9 of 10, guard off", func(root string) {
			for i := range 9 {
				os.RemoveAll(filepath.Join(root, fmt.Sprintf("d%d", i)))
			}
		}, "shrink_guard: false\n", false},
		{"move 5 of 10", func(root string) {
			for i := range 5 {
				os.Rename(filepath.Join(root, fmt.Sprintf("d%d", i)), filepath.Join(root, fmt.Sprintf("moved%d", i)))
			}
		}, "", false},
		// Nine URLs of ten gone at once: by URLs, another tree.
		{"move 9 of 10", func(root string) {
			for i := range 9 {
				os.Rename(filepath.Join(root, fmt.Sprintf("d%d", i)), filepath.Join(root, fmt.Sprintf("moved%d", i)))
			}
		}, "", true},
		{"root emptied", func(root string) {
			os.RemoveAll(root)
			os.Mkdir(root, 0o755)
		}, "", true},
		{"root another tree of as many pages", func(root string) {
			os.RemoveAll(root)
			for i := range 10 {
				page(root, fmt.Sprintf("other%d/q.html", i), "")
			}
		}, "", true},
		{"root another tree sharing a page", func(root string) {
			for i := range 9 {
				os.RemoveAll(filepath.Join(root, fmt.Sprintf("d%d", i)))
			}
			for i := range 12 {
				page(root, fmt.Sprintf("other%d/q.html", i), "")
			}
		}, "", true},
		{"half the site replaced", func(root string) {
			for i := range 5 {
				os.RemoveAll(filepath.Join(root, fmt.Sprintf("d%d", i)))
				page(root, fmt.Sprintf("other%d/q.html", i), "")
			}
		}, "", false},
		{"noindex 5 of 10", func(root string) {
			for i := range 5 {
				page(root, fmt.Sprintf("d%d/p.html", i), noindex)
			}
		}, "", false},
		{"noindex 6 of 10", func(root string) {
			for i := range 6 {
				page(root, fmt.Sprintf("d%d/p.html", i), noindex)
			}
		}, "", true},
		{"noindex 6 of 10, guard off", func(root string) {
			for i := range 6 {
				page(root, fmt.Sprintf("d%d/p.html", i), noindex)
			}
		}, "shrink_guard: false\n", false},
		{"robots.txt disallows 7 of 10", func(root string) {
			os.WriteFile(filepath.Join(root, "robots.txt"), []byte("User-agent: *\nDisallow: /d1/\nDisallow: /d2/\nDisallow: /d3/\nDisallow: /d4/\nDisallow: /d5/\nDisallow: /d6/\nDisallow: /d7/\n"), 0o644)
		}, "", true},
		{"redirect 2, delete 5", func(root string) {
			for i := range 2 {
				page(root, fmt.Sprintf("d%d/p.html", i), `<meta http-equiv="refresh" content="0; url=/">`)
			}
			for i := 4; i < 9; i++ {
				os.RemoveAll(filepath.Join(root, fmt.Sprintf("d%d", i)))
			}
		}, "", true}, // 3 of 10 listed still
		// Of the 5 pages still there, 4 are left out: refused.
		{"redirect 4, delete 5", func(root string) {
			for i := range 4 {
				page(root, fmt.Sprintf("d%d/p.html", i), `<meta http-equiv="refresh" content="0; url=/">`)
			}
			for i := 4; i < 9; i++ {
				os.RemoveAll(filepath.Join(root, fmt.Sprintf("d%d", i)))
			}
		}, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := newSite()
			cfg := loadConfig(t, baseConfig, root, tc.extra)
			e, _ := newEngine(t, cfg)
			mustBuild(t, e)
			tc.change(root)
			// A fresh engine, as `sitemapd build` is: what was listed comes
			// from the sitemaps on disk.
			e2, _ := newEngine(t, cfg)
			_, err := e2.Build(context.Background())
			var se *ShrinkError
			if got := errors.As(err, &se); got != tc.refuse {
				t.Errorf("refused = %v (err %v), want %v", got, err, tc.refuse)
			} else if err != nil && !tc.refuse {
				t.Errorf("build: %v", err)
			}
		})
	}
}

// TestShrinkGuardDaemon: with memory, an update that noindexes most of the
// site is refused and changes nothing the engine knows: the next update
// that undoes it publishes only what really changed, and an update
// elsewhere still publishes.
func TestShrinkGuardDaemon(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	for i := range 6 {
		mustWrite(t, filepath.Join(root, "docs", fmt.Sprintf("p%d.html", i)), defaultMTime)
	}
	mustWrite(t, filepath.Join(root, "index.html"), defaultMTime)
	cfg := loadConfig(t, baseConfig, root, "")
	e, _ := newEngine(t, cfg, WithChanges())
	mustBuild(t, e)
	before := read(t, filepath.Join(root, "docs", "sitemap.xml"))

	for i := range 5 {
		writeFile(t, filepath.Join(root, "docs", fmt.Sprintf("p%d.html", i)), `<meta name=robots content=noindex>`, defaultMTime.Add(1e9))
	}
	_, err := e.Update(context.Background(), []string{"docs"}, nil)
	var se *ShrinkError
	if !errors.As(err, &se) || se.Dropped[tree.NoIndex] != 5 || se.Before != 7 {
		t.Fatalf("update noindexing 5 of 7 pages: err = %v", err)
	}
	if got := read(t, filepath.Join(root, "docs", "sitemap.xml")); got != before {
		t.Error("refused update changed docs/sitemap.xml")
	}
	if !errors.Is(e.Refused(), se) || !slices.Equal(e.Failed(), []string{"docs"}) {
		t.Errorf("after a refused update: refused %v, failed %v; want it standing, docs to retry", e.Refused(), e.Failed())
	}

	// Undone: nothing changed since the last publish, so nothing is
	// reported.
	for i := range 5 {
		mustWrite(t, filepath.Join(root, "docs", fmt.Sprintf("p%d.html", i)), defaultMTime)
	}
	rep, err := e.Update(context.Background(), []string{"docs"}, nil)
	if err != nil || !rep.Changes.Empty() {
		t.Fatalf("update after undoing: err %v, changes %+v", err, rep.Changes)
	}
	if e.Refused() != nil || len(e.Failed()) != 0 {
		t.Errorf("after the undoing update: refused %v, failed %v; want neither", e.Refused(), e.Failed())
	}
	mustWrite(t, filepath.Join(root, "new.html"), defaultMTime)
	if rep, err = e.Update(context.Background(), []string{""}, nil); err != nil || len(rep.Changes.Added) != 1 {
		t.Fatalf("update elsewhere: err %v, changes %+v", err, rep.Changes)
	}
}

// TestExcludedDirectoryLosesItsSitemaps: sitemaps sitemapd wrote in a
// directory that is excluded since, or that is no longer a group, are
// removed by the next build, text sitemaps included; a hand-made sitemap
// there stays.
func TestExcludedDirectoryLosesItsSitemaps(t *testing.T) {
	root := site(t, "index.html", "docs/a.html", "docs/deep/b.html", "blog/c.html", "blog/2024/d.html")
	cfg := loadConfig(t, baseConfig, root, "depth: 2\nformats: [xml, txt]\n")
	e, _ := newEngine(t, cfg)
	mustBuild(t, e)
	for _, f := range []string{"docs/sitemap.xml", "docs/sitemap.txt", "docs/deep/sitemap.xml", "blog/2024/sitemap.xml"} {
		if !exists(filepath.Join(root, f)) {
			t.Fatalf("%s not written", f)
		}
	}
	const theirs = "<?xml version=\"1.0\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"></urlset>"
	os.WriteFile(filepath.Join(root, "docs", "deep", "sitemap-2.xml"), []byte(theirs), 0o644)

	cfg = loadConfig(t, baseConfig, root, "depth: 1\nformats: [xml, txt]\npages: {exclude: [\"/docs/**\"]}\n")
	e2, _ := newEngine(t, cfg)
	rep := mustBuild(t, e2)
	for _, f := range []string{"docs/sitemap.xml", "docs/sitemap.txt", "docs/deep/sitemap.xml", "blog/2024/sitemap.xml"} {
		if exists(filepath.Join(root, f)) {
			t.Errorf("%s stays after its directory was excluded or folded (removed: %v)", f, rep.Removed)
		}
	}
	if read(t, filepath.Join(root, "docs", "deep", "sitemap-2.xml")) != theirs {
		t.Error("a hand-made sitemap in an excluded directory was touched")
	}
	index := read(t, filepath.Join(root, "sitemap_index.xml"))
	if strings.Contains(index, "/docs/") || !strings.Contains(index, "/blog/sitemap.xml") {
		t.Errorf("index after the exclude:\n%s", index)
	}
	if !strings.Contains(read(t, filepath.Join(root, "blog", "sitemap.xml")), "/blog/2024/d.html") {
		t.Error("blog/2024 not folded into blog's sitemap")
	}
}

// TestLeftOutCounted: every page of the leftout golden tree that is not
// listed is counted under the reason the tree's comments give it, and a
// publish that changes nothing counts them again (from remembered heads).
func TestLeftOutCounted(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	materialize(t, "testdata/golden/leftout/tree.txt", root)
	var want tree.Tally
	want[tree.Redirect] = 5 // rust, hugo, sphinx (in noscript), jekyll, one second
	want[tree.ErrorPage] = 6
	want[tree.NoIndex] = 1
	want[tree.Canonical] = 1
	for _, mode := range []string{"build", "daemon"} {
		var opts []Option
		if mode == "daemon" {
			opts = append(opts, WithChanges())
		}
		e, _ := newEngine(t, loadConfig(t, "testdata/golden/leftout/config.yaml", root, ""), opts...)
		for range 2 {
			if rep := mustBuild(t, e); rep.LeftOut != want {
				t.Errorf("%s: left out %s, want %s", mode, rep.LeftOut.String(), want.String())
			}
		}
	}
}

// TestWriteAheadComesFirst: the write-ahead function sees a publish's
// changes while the files that show them are not yet on disk, for an
// update and for a full build that finds a group gone.
func TestWriteAheadComesFirst(t *testing.T) {
	root := site(t, "index.html", "docs/a.html", "blog/b.html")
	var calls []changeset.Changes
	var onDisk []string
	e, _ := newEngine(t, loadConfig(t, baseConfig, root, ""), WithChanges(), WithWriteAhead(func(c changeset.Changes, files bool) error {
		calls = append(calls, c)
		b, _ := os.ReadFile(filepath.Join(root, "docs", "sitemap.xml"))
		onDisk = append(onDisk, string(b))
		return nil
	}))
	mustBuild(t, e)
	calls, onDisk = nil, nil
	mustWrite(t, filepath.Join(root, "docs", "new.html"), defaultMTime)
	if _, err := e.Update(context.Background(), []string{"docs"}, nil); err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 || len(calls[0].Added) != 1 || calls[0].Added[0] != "https://static.test/docs/new.html" {
		t.Fatalf("write-ahead calls %+v", calls)
	}
	if strings.Contains(onDisk[0], "new.html") {
		t.Error("the sitemap listed the new page before the write-ahead")
	}
	calls = nil
	plain, _ := newEngine(t, loadConfig(t, baseConfig, root, ""), WithChanges())
	mustBuild(t, plain)
	os.RemoveAll(filepath.Join(root, "blog"))
	rep := mustBuild(t, e)
	if len(calls) != 1 || len(calls[0].Removed) != 1 || calls[0].Removed[0] != "https://static.test/blog/b.html" {
		t.Fatalf("write-ahead of a full build calls %+v", calls)
	}
	if !slices.Equal(rep.Changes.Removed, calls[0].Removed) {
		t.Errorf("the build reports removed %v, wrote ahead %v", rep.Changes.Removed, calls[0].Removed)
	}
	// Without a write-ahead, a full build reports a vanished group's pages
	// all the same.
	if rep := mustBuild(t, plain); !slices.Equal(rep.Changes.Removed, []string{"https://static.test/blog/b.html"}) {
		t.Errorf("without a write-ahead, the build reports removed %v", rep.Changes.Removed)
	}
	calls = nil
	mustBuild(t, e)
	if len(calls) != 0 {
		t.Errorf("a build that changes nothing wrote ahead %+v", calls)
	}
}

// TestCountedChanges: a publish whose changes nobody is to be told of
// (WithChangeURLs says so as it begins) counts them, in its report and in
// what it writes ahead, without their URLs; one that is to be told keeps
// them. The counts are what a publish keeping the URLs reports.
func TestCountedChanges(t *testing.T) {
	root := site(t, "index.html", "docs/a.html", "docs/b.html", "blog/c.html")
	// The oracle: an engine that keeps every URL, on a copy of the tree.
	other := filepath.Join(t.TempDir(), "root")
	if err := os.CopyFS(other, os.DirFS(root)); err != nil {
		t.Fatal(err)
	}
	keeps, _ := newEngine(t, loadConfig(t, baseConfig, other, ""), WithChanges())
	want := mustBuild(t, keeps).Changes

	urls := false
	var owed changeset.Changes
	e, _ := newEngine(t, loadConfig(t, baseConfig, root, ""), WithChanges(), WithChangeURLs(func() bool { return urls }),
		WithWriteAhead(func(c changeset.Changes, _ bool) error { owed = c; return nil }))
	rep := mustBuild(t, e)
	if len(rep.Changes.Added)+len(owed.Added) != 0 {
		t.Errorf("first build kept URLs: reported %v, wrote ahead %v", rep.Changes.Added, owed.Added)
	}
	if len(want.Added) != 4 || rep.Changes.Counts() != want.Counts() || owed.Counts() != want.Counts() {
		t.Errorf("counted %+v, wrote ahead %+v; the URLs kept: %v", rep.Changes.Counts(), owed.Counts(), want.Added)
	}
	if rep.Changes.Empty() {
		t.Error("counted changes are empty")
	}

	urls = true
	mustWrite(t, filepath.Join(root, "docs", "new.html"), defaultMTime)
	os.Remove(filepath.Join(root, "docs", "a.html"))
	rep, err := e.Update(context.Background(), []string{"docs"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Changes.Added, []string{"https://static.test/docs/new.html"}) ||
		!slices.Equal(rep.Changes.Removed, []string{"https://static.test/docs/a.html"}) || !slices.Equal(owed.Added, rep.Changes.Added) {
		t.Errorf("wanted URLs: reported %+v, wrote ahead %+v", rep.Changes, owed)
	}
}

// TestUnrecordedPublishLandsNothing: a publish whose write-ahead fails (the
// ledger cannot be saved) leaves every file as it was, for an update and
// for a full build that finds a group gone, marks the groups failed, and
// a retry once the ledger can be saved owes the same changes and lands.
func TestUnrecordedPublishLandsNothing(t *testing.T) {
	root := site(t, "index.html", "docs/a.html", "blog/b.html")
	ledgerDown := errors.New("no space left on device")
	var failing bool
	var owed changeset.Changes
	e, _ := newEngine(t, loadConfig(t, baseConfig, root, ""), WithChanges(), WithWriteAhead(func(c changeset.Changes, _ bool) error {
		if failing {
			return ledgerDown
		}
		owed.Merge(c)
		return nil
	}))
	mustBuild(t, e)
	before := outputs(t, e.cfg, root)
	owed = changeset.Changes{}

	failing = true
	mustWrite(t, filepath.Join(root, "docs", "new.html"), defaultMTime)
	os.RemoveAll(filepath.Join(root, "blog"))
	delete(before, "blog/sitemap.xml") // gone with its directory
	for what, publish := range map[string]func() (*Report, error){
		"update":     func() (*Report, error) { return e.Update(context.Background(), []string{"docs"}, nil) },
		"full build": func() (*Report, error) { return e.Build(context.Background()) },
	} {
		if _, err := publish(); !errors.Is(err, ledgerDown) {
			t.Errorf("%s: error %v, want the ledger's", what, err)
		}
		if after := outputs(t, e.cfg, root); !maps.EqualFunc(after, before, bytes.Equal) {
			t.Errorf("%s: files changed though what they tell was not recorded: %v, were %v", what, slices.Sorted(maps.Keys(after)), slices.Sorted(maps.Keys(before)))
		}
		if failed := e.Failed(); !slices.Contains(failed, "docs") {
			t.Errorf("%s: failed groups %v, want docs among them", what, failed)
		}
	}
	if !slices.Contains(e.Failed(), "blog") {
		t.Errorf("failed groups %v: the full build's gone group is not retried", e.Failed())
	}

	failing = false
	if _, err := e.Rebuild(context.Background(), e.Failed()); err != nil {
		t.Fatal(err)
	}
	want := changeset.Changes{Added: []string{"https://static.test/docs/new.html"}, Removed: []string{"https://static.test/blog/b.html"}}
	if !slices.Equal(owed.Added, want.Added) || !slices.Equal(owed.Removed, want.Removed) {
		t.Errorf("the retry owed %+v, want %+v", owed, want)
	}
	if locs, _ := listedLocs(t, filepath.Join(root, "docs", "sitemap.xml")); !slices.Contains(locs, "docs/new.html") {
		t.Errorf("after the retry docs/sitemap.xml lists %v", locs)
	}
	if len(e.Failed()) != 0 {
		t.Errorf("still failed after the retry: %v", e.Failed())
	}
}
