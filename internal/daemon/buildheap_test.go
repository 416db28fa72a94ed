package daemon

import (
	"context"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/build"
	"go.uber.org/zap/zaptest"
)

// withLimit sets the process's memory limit for a test, and puts back the
// one it found after.
func withLimit(t *testing.T, limit int64) {
	was := debug.SetMemoryLimit(limit)
	t.Cleanup(func() { debug.SetMemoryLimit(was) })
}

// waitLimit polls the memory limit until it is want; the bound only stops
// a broken test.
func waitLimit(t *testing.T, want int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for debug.SetMemoryLimit(-1) != want {
		if time.Now().After(deadline) {
			t.Fatalf("memory limit %d, want %d", debug.SetMemoryLimit(-1), want)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestBuildHeap: the limit follows the largest live heap of the builds
// running, starting from the largest the builds before saw, never above
// the limit found, and the limit found is back once the last of
// overlapping builds ends, not before.
func TestBuildHeap(t *testing.T) {
	const found = 1 << 40
	withLimit(t, found)
	var live atomic.Uint64
	b := &buildHeap{every: time.Millisecond, live: live.Load}
	mb := func(n uint64) int64 { return limitFor(n << 20) }
	live.Store(100 << 20)
	end := b.begin()
	waitLimit(t, mb(100))
	live.Store(50 << 20) // the live heap falls: the limit stays
	end2 := b.begin()    // a second site's full build
	live.Store(200 << 20)
	waitLimit(t, mb(200))
	end()
	end() // twice: counted once
	if got := debug.SetMemoryLimit(-1); got != mb(200) {
		t.Fatalf("limit %d while a build still runs, want %d", got, mb(200))
	}
	end2()
	waitLimit(t, found)

	// The next build starts from the largest the last saw, and follows
	// its own heap up from there.
	live.Store(10 << 20)
	end = b.begin()
	waitLimit(t, mb(200))
	live.Store(300 << 20)
	waitLimit(t, mb(300))
	live.Store(10 << 20)
	end()
	waitLimit(t, found)
	// One that saw less (a tree that shrank) lowers the next one's start.
	end = b.begin()
	waitLimit(t, mb(300))
	end()
	end = b.begin()
	waitLimit(t, mb(10))
	live.Store(1 << 40) // above the limit found: that one holds
	waitLimit(t, found)
	end()
	waitLimit(t, found)

	var none *buildHeap // Options.BoundBuilds unset
	none.begin()()
	if got := debug.SetMemoryLimit(-1); got != found {
		t.Errorf("limit %d after an unbounded build, want %d", got, found)
	}
}

// TestDaemonBoundsFullBuildsOnly: with Options.BoundBuilds the daemon
// bounds its heap during its first build and not during a change's
// publish, and the limit it found is back after each.
func TestDaemonBoundsFullBuildsOnly(t *testing.T) {
	const found = 1 << 40
	withLimit(t, found)
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	os.MkdirAll(root, 0o755)
	os.WriteFile(filepath.Join(root, "index.html"), []byte("<title>home</title>"), 0o644)
	cfg := filepath.Join(dir, "sitemapd.yaml")
	os.WriteFile(cfg, []byte(testConfig+"pages: {lastmod: content}\n"), 0o644)
	type idle struct {
		limit   int64
		samples int64
		urls    int
	}
	var mu sync.Mutex
	var idles []idle
	var samples atomic.Int64
	d := New(Options{ConfigPath: cfg, BoundBuilds: true, OnIdle: func(r build.Report) {
		mu.Lock()
		idles = append(idles, idle{debug.SetMemoryLimit(-1), samples.Load(), r.URLs})
		mu.Unlock()
	}}, zaptest.NewLogger(t))
	d.heap.live = func() uint64 { samples.Add(1); return 1 << 20 }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	idleN := func(n int) idle {
		deadline := time.Now().Add(30 * time.Second)
		for {
			mu.Lock()
			if len(idles) >= n {
				defer mu.Unlock()
				return idles[n-1]
			}
			mu.Unlock()
			if time.Now().After(deadline) {
				t.Fatalf("no publish %d", n)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	first := idleN(1)
	if first.samples == 0 || first.limit != found {
		t.Fatalf("after the first build: %d samples of the live heap, limit %d; want some, and %d", first.samples, first.limit, found)
	}
	os.WriteFile(filepath.Join(root, "new.html"), []byte("<title>new</title>"), 0o644)
	change := idleN(2)
	if change.samples != first.samples || change.limit != found {
		t.Errorf("after a change: %d samples (%d before), limit %d; want none more, and %d", change.samples, first.samples, change.limit, found)
	}
}
