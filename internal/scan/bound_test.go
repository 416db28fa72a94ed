package scan

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/siteurl"
)

// TestGroupsReadFewAtOnce: a walk does not read every group at once. A
// group holds its URLs until it is handed over, so while the groups read
// wait to be taken (a build publishes one at a time), the walk must not
// go on reading the others: its memory is a few groups', not the tree's.
// Every group's URLs are handed over all the same (added when taken).
func TestGroupsReadFewAtOnce(t *testing.T) {
	root := t.TempDir()
	const groups, pages = 12, 30
	for g := range groups {
		for sub := range 3 { // each group's pages in a subtree
			dir := filepath.Join(root, fmt.Sprintf("s%02d", g), fmt.Sprintf("d%d", sub))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for p := range pages / 3 {
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("p%d.html", p)), []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	cfg, err := config.Load([]byte("root: "+root+"\nbase_url: https://docs.sitemapd.test/\nstate_dir: \"\"\n"), filepath.Join(root, "sitemapd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s := New(cfg, zap.NewNop(), siteurl.New(cfg), Options{MTimeOnly: true})
	w, err := s.NewWalk(context.Background(), WalkOptions{Record: true})
	if err != nil {
		t.Fatal(err)
	}
	// Nothing is taken until the walk has gone as far as it goes without
	// a group being taken.
	var mu sync.Mutex
	var handed []*Group
	release := make(chan struct{})
	walked := make(chan struct{})
	go func() {
		w.Tree(func(g *Group) {
			mu.Lock()
			handed = append(handed, g)
			mu.Unlock()
			<-release
		})
		close(walked)
	}()
	// The walk stands still once every group it may read is waiting.
	last, still := int64(-1), 0
	for still < 20 {
		time.Sleep(10 * time.Millisecond)
		if n := w.Entries(); n == last {
			still++
		} else {
			last, still = n, 0
		}
	}
	mu.Lock()
	waiting := len(handed)
	mu.Unlock()
	if bound := max(2, runtime.GOMAXPROCS(0)); waiting > bound {
		t.Errorf("%d groups read and waiting to be taken, want at most %d", waiting, bound)
	}
	close(release)
	<-walked
	var urls []string
	for _, g := range handed {
		w.AddURLs(g)
		for _, u := range g.URLs {
			urls = append(urls, u.Loc)
		}
	}
	if len(handed) != groups+1 || len(urls) != groups*pages || len(slices.Compact(slices.Sorted(slices.Values(urls)))) != len(urls) {
		t.Errorf("%d groups handed over with %d URLs (distinct: %d), want %d with %d", len(handed), len(urls),
			len(slices.Compact(slices.Sorted(slices.Values(urls)))), groups+1, groups*pages)
	}
}
