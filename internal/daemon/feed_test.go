package daemon

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/feedtest"
)

// TestEditMovesPageToTopOfFeed: in the running daemon, editing a page
// puts it first in the feed, with its new time, as an independent Atom
// reader (feedparser) sees it; a page added then goes above it.
func TestEditMovesPageToTopOfFeed(t *testing.T) {
	feedtest.Available(t)
	h := start(t, "feed: {name: changes.atom, entries: 10}\n")
	old := time.Now().Add(-48 * time.Hour).Truncate(time.Second)
	// Files land whole with their mtime (renamed into place from a
	// dotfile, which is never listed), so the daemon never sees them with
	// the time of the write: with pages.lastmod: content, a later change of
	// mtime alone would not move the lastmod.
	writeAt := func(rel, content string, mt time.Time) {
		t.Helper()
		tmp := filepath.Join(filepath.Dir(h.path(rel)), ".tmp")
		os.MkdirAll(filepath.Dir(tmp), 0o755)
		if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(tmp, mt, mt); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, h.path(rel)); err != nil {
			t.Fatal(err)
		}
	}
	for i, f := range []string{"blog/a.html", "blog/b.html", "docs/c.html"} {
		writeAt(f, "<title>"+f+"</title>", old.Add(time.Duration(i)*time.Hour))
	}
	// index.html, written at start, gets new bytes and the oldest time.
	writeAt("index.html", "<title>home</title>", old.Add(-time.Hour))
	h.sync()
	read := func() []feedtest.Entry {
		t.Helper()
		f := feedtest.Parse(t, h.path("changes.atom"))
		if f.Bozo || len(f.Entries) == 0 {
			t.Fatalf("feedparser: bozo %v, %d entries", f.Bozo, len(f.Entries))
		}
		return f.Entries
	}
	first := func() feedtest.Entry { t.Helper(); return read()[0] }
	// Newest first.
	var links []string
	for _, e := range read() {
		links = append(links, e.Link)
	}
	if want := []string{"https://static.test/docs/c.html", "https://static.test/blog/b.html", "https://static.test/blog/a.html", "https://static.test/"}; !slices.Equal(links, want) {
		t.Fatalf("feed lists %v, want %v", links, want)
	}

	// An edit: new bytes, mtime now (the same bytes again would keep the
	// page's lastmod, pages.lastmod: content).
	if err := os.WriteFile(h.path("blog/a.html"), []byte("<title>a, edited</title>"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(h.path("blog/a.html"))
	h.sync()
	if e := first(); e.Link != "https://static.test/blog/a.html" || e.Updated != st.ModTime().Unix() {
		t.Errorf("after editing blog/a.html the first entry is %s at %v, want it at %v",
			e.Link, time.Unix(e.Updated, 0).UTC(), st.ModTime().Truncate(time.Second).UTC())
	}

	// A page added a second later (lastmods are whole seconds; a tie
	// would go by URL) goes above it. The file system stamps a write with
	// a coarse clock that can lag time.Now by a tick, so the write is
	// made again until its mtime is in a later second than the edit's.
	for {
		time.Sleep(time.Until(st.ModTime().Truncate(time.Second).Add(time.Second)))
		h.write("new.html")
		if nt, err := os.Stat(h.path("new.html")); err != nil || nt.ModTime().Unix() > st.ModTime().Unix() {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	h.sync()
	if e := first(); e.Link != "https://static.test/new.html" {
		t.Errorf("after adding new.html the first entry is %s", e.Link)
	}
}
