package fleet

import (
	"testing"

	"github.com/sitemapd/sitemapd/internal/fleet/etcdtest"
)

// A server that comes back to a version it had moved on from (a rollback
// on one server; a page added and removed on one copy only, which brings
// its sitemap file's bytes back) records it again, with its own time: its
// move deleted the old record. A server that stayed on that version, and
// publishes it with the old time, is told to publish again: the index for
// a sitemap file's version, every page for a page's (only the hash is
// known, not which page holds it).
func TestAgreeVersionComesBack(t *testing.T) {
	c := etcdtest.Start(t, 3)
	const prefix = "/back/"
	a, b := server(t, c, prefix), server(t, c, prefix)
	a.Agree("p.html", 1, 0, 100)
	a.AgreeFile("sitemap.xml", 5, 100)
	eventually(t, "a's records sent", func() bool { return a.Pending() == 0 })
	eventually(t, "b adopts a's times", func() bool {
		return b.Agree("p.html", 1, 0, 900) == 100 && b.AgreeFile("sitemap.xml", 5, 900) == 100
	})
	b.Take()

	// The sitemap file: a moves on and comes back.
	a.AgreeFile("sitemap.xml", 6, 200)
	eventually(t, "a's new file version sent", func() bool { return a.Pending() == 0 })
	if got := a.AgreeFile("sitemap.xml", 5, 300); got != 300 {
		t.Fatalf("a's file back: %d, want its own time (the record was deleted)", got)
	}
	eventually(t, "b told to write its index again", func() bool { _, idx := b.Take(); return idx })
	if b.Reread() {
		t.Error("a sitemap file's version came back: b is told to read every page")
	}
	if got := b.AgreeFile("sitemap.xml", 5, 900); got != 300 {
		t.Errorf("b's time for the file: %d, want the fleet's 300", got)
	}

	// The page: the same, and every page is read again.
	a.Agree("p.html", 2, 1, 200)
	eventually(t, "a's new page version sent", func() bool { return a.Pending() == 0 })
	a.Agree("p.html", 1, 2, 300)
	eventually(t, "b told to read every page again", b.Reread)
	if got := b.Agree("p.html", 1, 0, 900); got != 300 {
		t.Errorf("b's time for the page: %d, want the fleet's 300", got)
	}
	// a, which made it, is not.
	if a.Reread() {
		t.Error("a, which recorded the version again, is told to read every page")
	}
}
