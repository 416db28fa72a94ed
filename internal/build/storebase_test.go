package build

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/pagestore"
)

// TestPageStoreAmends: the daemon appends a change in a large directory
// as the pages that changed, not the directory's listing (a page edited,
// one removed and one added, a directory read whole), and a new process
// knows from the store every page as the daemon published it: its build
// writes nothing, and a rewrite of the same bytes is no change.
func TestPageStoreAmends(t *testing.T) {
	root := site(t, "index.html")
	const n = 3000
	name := func(i int) string { return filepath.Join(root, "big", fmt.Sprintf("page-%05d.html", i)) }
	for i := range n {
		mustWrite(t, name(i), defaultMTime)
	}
	state := t.TempDir()
	cfg := loadConfig(t, baseConfig, root, "state_dir: "+state+"\n")
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
