package build

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/pagestore"
)

// TestPageStoreAmends: the daemon appends a change in a large directory
// as the pages that changed, not the directory's listing (a page edited,
// one removed and one added, a directory read whole), and a new process
// knows from the store every page as the daemon published it: its build
// writes nothing, and a rewrite of the same bytes is no change.
func TestPageStoreAmends(t *testing.T) {
	const n = 3000
	b := newBigDir(t, n)
	root, state, name, cfg := b.root, b.state, b.page, b.cfg
	e, _ := newEngine(t, cfg, WithChanges())
	mustBuild(t, e)
	store := filepath.Join(state, pagestore.Name)
	whole, _ := os.Stat(store)
	ctx := context.Background()
	for _, step := range []struct {
		what  string
		edit  func()
		names []string // nil: the directory read whole
	}{
		{"a page edited", func() { mustWrite(t, name(5), defaultMTime.Add(time.Hour)) }, []string{"page-00005.html"}},
		{"a page removed, one added", func() {
			os.Remove(name(6))
			mustWrite(t, name(n), defaultMTime.Add(2*time.Hour))
		}, []string{"page-00006.html", fmt.Sprintf("page-%05d.html", n)}},
		{"a page edited, the directory read whole", func() { mustWrite(t, name(2999), defaultMTime.Add(3*time.Hour)) }, nil},
	} {
		before, _ := os.Stat(store)
		step.edit()
		var names map[string][]string
		if step.names != nil {
			names = map[string][]string{"big": step.names}
		}
		rep, err := e.Update(ctx, []string{"big"}, names)
		if err != nil || len(rep.Written) == 0 {
			t.Fatalf("%s: wrote %v, %v", step.what, rep.Written, err)
		}
		after, _ := os.Stat(store)
		if grew := after.Size() - before.Size(); grew <= 0 || grew > 1024 {
			t.Errorf("%s: the store grew %d bytes (%d written whole)", step.what, grew, whole.Size())
		}
	}
	published := lastmods(t, filepath.Join(root, "big/sitemap.xml"))
	e.Close()

	fresh, _ := newEngine(t, cfg)
	if rep := mustBuild(t, fresh); len(rep.Written) != 0 {
		t.Errorf("a new process wrote %v", rep.Written)
	}
	if got := lastmods(t, filepath.Join(root, "big/sitemap.xml")); !maps.Equal(got, published) {
		t.Error("a new process lists other lastmods than the daemon did")
	}
	rewrite(t, name(5), defaultMTime.Add(99*time.Hour), true)
	rewrite(t, name(n), defaultMTime.Add(99*time.Hour), true)
	again, _ := newEngine(t, cfg)
	if rep := mustBuild(t, again); len(rep.Written) != 0 {
		t.Errorf("a rewrite of the same bytes of pages known from amends wrote %v", rep.Written)
	}
}

// bigDir is a site of index.html and pages in one directory, big/, with
// a state directory: a large directory's change, for the page store.
type bigDir struct {
	root, state string
	cfg         *config.Config
}

func newBigDir(t *testing.T, n int) *bigDir {
	b := &bigDir{root: site(t, "index.html"), state: t.TempDir()}
	for i := range n {
		mustWrite(t, b.page(i), defaultMTime)
	}
	b.cfg = loadConfig(t, baseConfig, b.root, "state_dir: "+b.state+"\n")
	return b
}

// page is the path of page i.
func (b *bigDir) page(i int) string {
	return filepath.Join(b.root, "big", fmt.Sprintf("page-%05d.html", i))
}
