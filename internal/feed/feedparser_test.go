package feed

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/feedtest"
)

// TestReadByFeedparser has feedparser read a feed and checks that it sees
// an Atom 1.0 feed without errors, the site's id and links, and every
// entry in order with its id, link, title and time.
func TestReadByFeedparser(t *testing.T) {
	es := Top(sample(), 100)
	path := filepath.Join(t.TempDir(), "changes.atom")
	if err := os.WriteFile(path, Encode(site, es), 0o644); err != nil {
		t.Fatal(err)
	}
	p := feedtest.Parse(t, path)
	if p.Bozo || p.Version != "atom10" {
		t.Fatalf("feedparser: bozo %v, version %q, want a well-formed atom10 feed", p.Bozo, p.Version)
	}
	if p.ID != site.BaseURL || p.Site != site.BaseURL || p.Self != site.Self || p.Author != "www.sitemapd.test" || p.Title == "" {
		t.Errorf("feed: id %q, alternate %q, self %q, author %q, title %q", p.ID, p.Site, p.Self, p.Author, p.Title)
	}
	if p.Updated != es[0].Updated.Unix() {
		t.Errorf("feed updated %v, want the newest entry's %v", time.Unix(p.Updated, 0).UTC(), es[0].Updated)
	}
	if len(p.Entries) != len(es) {
		t.Fatalf("feedparser read %d entries, want %d", len(p.Entries), len(es))
	}
	for i, e := range p.Entries {
		w := es[i]
		if e.ID != w.URL || e.Link != w.URL || e.Updated != w.Updated.Unix() || e.Title != Title(w.URL) {
			t.Errorf("entry %d: id %q link %q updated %v title %q; want %q at %v, %q", i, e.ID, e.Link, time.Unix(e.Updated, 0).UTC(), e.Title, w.URL, w.Updated, Title(w.URL))
		}
		if i > 0 && (e.Updated > p.Entries[i-1].Updated || e.Updated == p.Entries[i-1].Updated && e.Link < p.Entries[i-1].Link) {
			t.Errorf("entry %d (%s) is out of order after %s", i, e.Link, p.Entries[i-1].Link)
		}
	}
}
