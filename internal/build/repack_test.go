package build

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/pagestore"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// TestRepackAfterFullBuild: after the daemon's page prints build its
// memory holds copies (tree.Memory.Repack) equal to the listings the build
// made, the page store's bases follow them, and a change then publishes
// its page's new lastmod and no other, appended as an amend (a few
// hundred bytes, not the directory's listing).
func TestRepackAfterFullBuild(t *testing.T) {
	const n = 2000
	b := newBigDir(t, n)
	root, state, name, cfg := b.root, b.state, b.page, b.cfg
	e, _ := newEngine(t, cfg, WithChanges(), WithDeferredPrints())
	mustBuild(t, e)
	mustBuild(t, e) // the page prints build

	was := map[string]*tree.Listing{}
	e.model.mem.Each(func(d string, l *tree.Listing) { was[d] = l })
	bases := maps.Clone(e.pages.stored.bases)
	if len(was) == 0 || bases["big"] != was["big"] {
		t.Fatalf("before: %d listings remembered, the store's base of big is memory's: %v", len(was), bases["big"] == was["big"])
	}
	e.pages.repack()
	for d, l := range was {
		now := e.model.mem.Dir(d)
		if now == l || !reflect.DeepEqual(now, l) {
			t.Errorf("%q: repacked listing is the same one %v, or differs", d, now == l)
		}
		if b, ok := e.pages.stored.bases[d]; bases[d] == l && (!ok || b != now) {
			t.Errorf("%q: the store's base did not follow its listing", d)
		}
	}
	if len(e.pages.stored.bases) != len(bases) {
		t.Errorf("%d store bases after, %d before", len(e.pages.stored.bases), len(bases))
	}

	sitemap := filepath.Join(root, "big", "sitemap.xml")
	before := lastmods(t, sitemap)
	store := filepath.Join(state, pagestore.Name)
	sizeBefore, _ := os.Stat(store)
	edited := defaultMTime.Add(time.Hour)
	mustWrite(t, name(7), edited)
	if _, err := e.Update(context.Background(), []string{"big"}, map[string][]string{"big": {"page-00007.html"}}); err != nil {
		t.Fatal(err)
	}
	if sizeAfter, _ := os.Stat(store); sizeAfter.Size()-sizeBefore.Size() > 1024 {
		t.Errorf("the change appended %d bytes to the page store", sizeAfter.Size()-sizeBefore.Size())
	}
	after := lastmods(t, sitemap)
	for loc, lm := range after {
		if want := before[loc]; filepath.Base(loc) == "page-00007.html" {
			want = w3c(edited)
			if lm != want {
				t.Errorf("%s: lastmod %s, want %s", loc, lm, want)
			}
		} else if lm != want {
			t.Errorf("%s: lastmod moved %s -> %s", loc, want, lm)
		}
	}
	if len(after) != len(before) {
		t.Errorf("%d URLs after, %d before", len(after), len(before))
	}
}
