package build

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/feedtest"
	"github.com/sitemapd/sitemapd/internal/publish"
)

const feedExtra = "feed: {name: changes.atom, entries: 3}\n"

// feedPage is a page the tests write and the entry a reader must see for
// it: its URL, as the test spells it, and its file's mtime.
type feedPage struct {
	file string
	mt   time.Time
}

func (p feedPage) url() string {
	u := "https://static.test/" + p.file
	return strings.TrimSuffix(u, "index.html")
}

// wantFeed is the test's own answer to what the feed lists: the n pages
// with the latest mtime, then by URL.
func wantFeed(pages []feedPage, n int) []feedtest.Entry {
	ps := slices.Clone(pages)
	slices.SortFunc(ps, func(a, b feedPage) int {
		if c := b.mt.Compare(a.mt); c != 0 {
			return c
		}
		return strings.Compare(a.url(), b.url())
	})
	var out []feedtest.Entry
	for _, p := range ps[:min(n, len(ps))] {
		out = append(out, feedtest.Entry{ID: p.url(), Link: p.url(), Updated: p.mt.Unix()})
	}
	return out
}

// checkFeed reads the feed with feedparser and compares its entries (id,
// link, time, order) with want.
func checkFeed(t *testing.T, path string, want []feedtest.Entry) {
	t.Helper()
	f := feedtest.Parse(t, path)
	if f.Bozo || f.Version != "atom10" {
		t.Fatalf("feedparser: bozo %v, version %q: not a well-formed Atom 1.0 feed", f.Bozo, f.Version)
	}
	if f.ID != "https://static.test/" || f.Self != "https://static.test/changes.atom" || f.Updated != want[0].Updated {
		t.Errorf("feed: id %q, self %q, updated %v; want the base URL, the feed's URL, %v",
			f.ID, f.Self, time.Unix(f.Updated, 0).UTC(), time.Unix(want[0].Updated, 0).UTC())
	}
	var got []feedtest.Entry
	for _, e := range f.Entries {
		got = append(got, feedtest.Entry{ID: e.ID, Link: e.Link, Updated: e.Updated})
	}
	if !slices.Equal(got, want) {
		t.Errorf("feed entries:\n got %v\nwant %v", got, want)
	}
}

// TestFeed builds a site of several groups, with ties, and checks the feed
// as feedparser reads it; then that a second build writes nothing, that
// a change moves its page to the top, and that a full build after the
// rebuild writes nothing (incremental = full).
func TestFeed(t *testing.T) {
	feedtest.Available(t)
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	pages := []feedPage{
		{"index.html", t0},
		{"about.html", t0.Add(5 * time.Hour)},
		{"blog/a.html", t0.Add(3 * time.Hour)},
		{"blog/b.html", t0.Add(5 * time.Hour)}, // ties with about.html: by URL
		{"blog/2024/c.html", t0.Add(4 * time.Hour)},
		{"docs/d.html", t0.Add(2 * time.Hour)},
	}
	root := filepath.Join(t.TempDir(), "root")
	for _, p := range pages {
		mustWrite(t, filepath.Join(root, p.file), p.mt)
	}
	cfg := loadConfig(t, baseConfig, root, feedExtra)
	e, _ := newEngine(t, cfg, WithChanges())
	rep := mustBuild(t, e)
	path := filepath.Join(root, "changes.atom")
	if !slices.Contains(rep.Written, path) {
		t.Errorf("the build did not report the feed written: %v", rep.Written)
	}
	checkFeed(t, path, wantFeed(pages, 3))
	if strings.Contains(read(t, filepath.Join(root, "sitemap_index.xml")), "changes.atom") {
		t.Error("the index lists the feed: an index lists sitemaps only")
	}
	if rep := mustBuild(t, e); len(rep.Written) != 0 {
		t.Errorf("a second build wrote %v", rep.Written)
	}

	// An edit moves docs/d.html to the top; a new page joins.
	pages[5].mt = t0.Add(10 * time.Hour)
	mustWrite(t, filepath.Join(root, pages[5].file), pages[5].mt)
	pages = append(pages, feedPage{"docs/new.html", t0.Add(6 * time.Hour)})
	mustWrite(t, filepath.Join(root, "docs/new.html"), t0.Add(6*time.Hour))
	if _, err := e.Update(context.Background(), []string{"docs"}, nil); err != nil {
		t.Fatal(err)
	}
	checkFeed(t, path, wantFeed(pages, 3))

	// A page that leaves the feed's top in another group does not touch
	// it: the feed is not rewritten.
	before, _ := os.Stat(path)
	pages[2].mt = t0.Add(time.Hour)
	mustWrite(t, filepath.Join(root, pages[2].file), pages[2].mt)
	rep, err := e.Update(context.Background(), []string{"blog"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(path); slices.Contains(rep.Written, path) || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("a change below the feed's entries rewrote it: %v", rep.Written)
	}
	// A deleted page leaves it.
	os.Remove(filepath.Join(root, "docs/d.html"))
	pages = slices.Delete(pages, 5, 6)
	if _, err := e.Update(context.Background(), []string{"docs"}, nil); err != nil {
		t.Fatal(err)
	}
	checkFeed(t, path, wantFeed(pages, 3))
	// So does a group that empties.
	os.RemoveAll(filepath.Join(root, "docs"))
	pages = slices.DeleteFunc(pages, func(p feedPage) bool { return strings.HasPrefix(p.file, "docs/") })
	if _, err := e.Update(context.Background(), []string{"docs"}, nil); err != nil {
		t.Fatal(err)
	}
	checkFeed(t, path, wantFeed(pages, 3))

	fresh, _ := newEngine(t, cfg)
	if rep := mustBuild(t, fresh); len(rep.Written) != 0 || len(rep.Removed) != 0 {
		t.Errorf("a full build after the updates wrote %v, removed %v", rep.Written, rep.Removed)
	}
}

// TestFeedOfAnUnreadableGroup: a group that cannot be read keeps its
// sitemap, and its pages stay in the feed, taken from that sitemap by an
// engine that never read the group.
func TestFeedOfAnUnreadableGroup(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	root := filepath.Join(t.TempDir(), "root")
	mustWrite(t, filepath.Join(root, "index.html"), t0)
	mustWrite(t, filepath.Join(root, "blog/deep/new.html"), t0.Add(time.Hour))
	cfg := loadConfig(t, baseConfig, root, feedExtra)
	e, _ := newEngine(t, cfg)
	mustBuild(t, e)
	want := read(t, filepath.Join(root, "changes.atom"))

	restarted, _ := newEngine(t, cfg)
	deny := filepath.Join(root, "blog/deep")
	restarted.opts.openDir = func(p string) (*os.File, error) {
		if p == deny {
			return nil, &os.PathError{Op: "open", Path: p, Err: os.ErrPermission}
		}
		return os.Open(p)
	}
	if _, err := restarted.Build(context.Background()); !errors.Is(err, os.ErrPermission) {
		t.Fatalf("Build error = %v, want the unreadable directory's", err)
	}
	if got := read(t, filepath.Join(root, "changes.atom")); got != want {
		t.Errorf("the feed lost the unreadable group's pages:\n%s\nwant\n%s", got, want)
	}
}

// TestFeedOwnership: a hand-made file by the feed's name is never
// replaced (an error names it; the sitemaps are written all the same), a
// feed renamed in the config leaves no old feed behind, a hand-made feed
// of another name stays, and a feed switched off is removed.
func TestFeedOwnership(t *testing.T) {
	root := site(t, "index.html", "blog/a.html")
	mine := filepath.Join(root, "changes.atom")
	os.WriteFile(mine, []byte("<feed>hand-made</feed>\n"), 0o644)
	other := filepath.Join(root, "news.atom")
	os.WriteFile(other, []byte("<feed>hand-made too</feed>\n"), 0o644)

	e, _ := newEngine(t, loadConfig(t, baseConfig, root, feedExtra))
	_, err := e.Build(context.Background())
	var fe *publish.ForeignError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), mine) {
		t.Errorf("Build error = %v, want one naming the hand-made %s", err, mine)
	}
	if read(t, mine) != "<feed>hand-made</feed>\n" {
		t.Error("the hand-made feed was replaced")
	}
	if !exists(filepath.Join(root, "blog/sitemap.xml")) {
		t.Error("the sitemaps were not written")
	}

	os.Remove(mine)
	mustBuild(t, e)
	if !exists(mine) {
		t.Fatal("no feed written once the hand-made file went")
	}
	renamed, _ := newEngine(t, loadConfig(t, baseConfig, root, "feed: {name: recent.atom}\n"))
	mustBuild(t, renamed)
	if exists(mine) || !exists(filepath.Join(root, "recent.atom")) || read(t, other) != "<feed>hand-made too</feed>\n" {
		t.Errorf("after a rename: old feed there %v, new one %v, hand-made one kept %v",
			exists(mine), exists(filepath.Join(root, "recent.atom")), exists(other))
	}
	off, _ := newEngine(t, loadConfig(t, baseConfig, root, ""))
	mustBuild(t, off)
	if exists(filepath.Join(root, "recent.atom")) || !exists(other) {
		t.Error("a feed switched off stays, or a hand-made one went")
	}
}

// TestFeedWaitsForFutureTimes: a page whose time is still to come has no
// lastmod, so no entry; a site of such pages has no feed (an Atom feed
// must say when it was updated) until the time comes.
func TestFeedWaitsForFutureTimes(t *testing.T) {
	root := site(t)
	future := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	mustWrite(t, filepath.Join(root, "a.html"), future)
	cfg := loadConfig(t, baseConfig, root, feedExtra)
	now := time.Date(2029, 12, 31, 0, 0, 0, 0, time.UTC)
	e, _ := newEngine(t, cfg, WithChanges(), withClock(func() time.Time { return now }))
	mustBuild(t, e)
	if exists(filepath.Join(root, "changes.atom")) {
		t.Fatal("a feed of no entries was written")
	}
	now = future.Add(time.Second)
	if _, err := e.Rebuild(context.Background(), e.DueGroups(now)); err != nil {
		t.Fatal(err)
	}
	if b := read(t, filepath.Join(root, "changes.atom")); !strings.Contains(b, "<updated>2030-01-01T00:00:00Z</updated>") {
		t.Errorf("the page's entry did not come with its time:\n%s", b)
	}
}
