package watch

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/fsnotify/fsnotify"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"
	"go.uber.org/zap/zaptest/observer"
)

// fakeSource stands in for inotify where a test needs to inject what the
// kernel does rarely: overflows, watch limits.
type fakeSource struct {
	ev      chan fsnotify.Event
	errs    chan error
	mu      sync.Mutex
	added   map[string]bool
	failAdd func(string) error
}

func newFake() *fakeSource {
	return &fakeSource{ev: make(chan fsnotify.Event), errs: make(chan error), added: map[string]bool{}}
}

func (f *fakeSource) Add(p string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failAdd != nil {
		if err := f.failAdd(p); err != nil {
			return err
		}
	}
	f.added[p] = true
	return nil
}

func (f *fakeSource) Remove(p string) error {
	f.mu.Lock()
	delete(f.added, p)
	f.mu.Unlock()
	return nil
}

func (f *fakeSource) Close() error                  { return nil }
func (f *fakeSource) events() <-chan fsnotify.Event { return f.ev }
func (f *fakeSource) errors() <-chan error          { return f.errs }

func tree(t *testing.T, dirs ...string) string {
	t.Helper()
	root := t.TempDir()
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func opts(root string) Options {
	return Options{
		Root: root, Settle: 100 * time.Millisecond, MaxDelay: time.Second, PollInterval: time.Minute,
		SkipDir: func(rel string) bool { return strings.HasPrefix(filepath.Base(rel), ".") },
		Ignore:  func(name string) bool { return strings.HasPrefix(name, "sitemap") },
	}
}

// fakeWatcher runs a watcher on a fake source over a tree of dirs, inside
// the calling synctest bubble, until the test ends.
func fakeWatcher(t *testing.T, dirs ...string) (root string, src *fakeSource, w *Watcher, out <-chan Batch) {
	t.Helper()
	root = tree(t, dirs...)
	src = newFake()
	w = newWithSource(opts(root), zaptest.NewLogger(t), src)
	out, stop := run(t, w)
	t.Cleanup(stop)
	return root, src, w, out
}

// run starts w in the test's bubble and returns its batches.
func run(t *testing.T, w *Watcher) (<-chan Batch, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	out := make(chan Batch)
	done := make(chan struct{})
	go func() { w.Run(ctx, out); close(done) }()
	return out, func() { cancel(); <-done }
}

// keepWriting sends a write event on name every 50 ms, as a file being
// copied without end, until the returned func is called.
func keepWriting(src *fakeSource, name string) (stop func()) {
	stopping, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stopping:
				return
			case src.ev <- fsnotify.Event{Name: name, Op: fsnotify.Write}:
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	return func() { close(stopping); <-done }
}

func TestDebounceSettleAndMaxDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root := tree(t, "a", "b")
		src := newFake()
		w := newWithSource(opts(root), zaptest.NewLogger(t), src)
		out, stop := run(t, w)
		defer stop()

		// Three events 50 ms apart: one batch, Settle after the last.
		start := time.Now()
		for _, d := range []string{"a", "b", "a"} {
			src.ev <- fsnotify.Event{Name: filepath.Join(root, d, "x.html"), Op: fsnotify.Write}
			time.Sleep(50 * time.Millisecond)
		}
		b := <-out
		if got := time.Since(start); got != 200*time.Millisecond {
			t.Errorf("batch after %v, want 200ms (last event + settle)", got)
		}
		if !slices.Equal(b.Dirs, []string{"a", "b"}) || b.Rescan {
			t.Errorf("batch = %+v", b)
		}

		// An event every 50 ms without end: batches still come every
		// MaxDelay, so a busy directory never starves.
		stopWriting := keepWriting(src, filepath.Join(root, "a", "y.html"))
		// Each batch comes at most MaxDelay after the first event after the
		// previous one, which is at most 50 ms after it.
		for i := 1; i <= 3; i++ {
			start = time.Now()
			<-out
			if got := time.Since(start); got > time.Second+50*time.Millisecond {
				t.Errorf("batch %d after %v: starved past MaxDelay", i, got)
			}
		}
		stopWriting()
	})
}

func TestOwnWritesAndChmodAreIgnored(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root, src, _, out := fakeWatcher(t, "a")
		for _, ev := range []fsnotify.Event{
			{Name: filepath.Join(root, "a", "sitemap.xml"), Op: fsnotify.Create},
			{Name: filepath.Join(root, "a", ".sitemapd-1.tmp"), Op: fsnotify.Create},
			{Name: filepath.Join(root, ".git", "HEAD"), Op: fsnotify.Write},
			{Name: "/elsewhere/p.html", Op: fsnotify.Write},
		} {
			src.ev <- ev
		}
		time.Sleep(time.Hour)
		select {
		case b := <-out:
			t.Errorf("noise produced a batch: %+v", b)
		default:
		}
	})
}

// TestNoiseDoesNotPostponeABatch: ignored events and the root poll tick
// must not restart the settle period (they once pushed every batch back to
// the next poll tick).
func TestNoiseDoesNotPostponeABatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root, src, _, out := fakeWatcher(t, "a")
		time.Sleep(950 * time.Millisecond) // the root poll ticks at 1 s
		start := time.Now()
		src.ev <- fsnotify.Event{Name: filepath.Join(root, "a", "p.html"), Op: fsnotify.Write}
		time.Sleep(30 * time.Millisecond)
		src.ev <- fsnotify.Event{Name: filepath.Join(root, "a", "sitemap.xml"), Op: fsnotify.Create}
		<-out
		if got := time.Since(start); got != 100*time.Millisecond {
			t.Errorf("batch after %v, want exactly settle (100ms)", got)
		}
	})
}

// TestTouchIsAChange: an mtime-only change (IN_ATTRIB) changes lastmod.
func TestTouchIsAChange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root, src, _, out := fakeWatcher(t, "a")
		src.ev <- fsnotify.Event{Name: filepath.Join(root, "a", "p.html"), Op: fsnotify.Chmod}
		if b := <-out; !slices.Equal(b.Dirs, []string{"a"}) {
			t.Errorf("batch = %+v", b)
		}
	})
}

// TestDirectoryModeChangeRereadsIt: a chmod of a watched directory (it may
// have become unreadable) makes the directory itself dirty, whole, not
// only its name in its parent.
func TestDirectoryModeChangeRereadsIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root, src, _, out := fakeWatcher(t, "a/b")
		src.ev <- fsnotify.Event{Name: filepath.Join(root, "a", "b"), Op: fsnotify.Chmod}
		b := <-out
		if !slices.Contains(b.Dirs, "a/b") {
			t.Errorf("batch = %+v, want a/b dirty", b)
		}
		if _, ok := b.Names["a/b"]; ok {
			t.Errorf("a/b is to be read by names %v, want whole", b.Names["a/b"])
		}
	})
}

// TestNamesAreReported: a batch names the changed entries of a directory,
// until there are too many to be worth it.
func TestNamesAreReported(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root, src, _, out := fakeWatcher(t, "a", "b")
		for _, n := range []string{"y.html", "x.html", "y.html"} {
			src.ev <- fsnotify.Event{Name: filepath.Join(root, "a", n), Op: fsnotify.Write}
		}
		for i := range maxNames + 1 {
			src.ev <- fsnotify.Event{Name: filepath.Join(root, "b", fmt.Sprintf("f%d.html", i)), Op: fsnotify.Create}
		}
		b := <-out
		if !slices.Equal(b.Dirs, []string{"a", "b"}) || !slices.Equal(b.Names["a"], []string{"x.html", "y.html"}) {
			t.Errorf("batch = %+v", b)
		}
		if _, ok := b.Names["b"]; ok {
			t.Errorf("%d names in b were listed, want the whole directory", maxNames+1)
		}
	})
}

func TestOverflowsCoalesceIntoOneRescan(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, src, w, out := fakeWatcher(t, "a")
		for range 50 {
			src.errs <- fsnotify.ErrEventOverflow
		}
		b := <-out
		if !b.Rescan {
			t.Errorf("batch = %+v, want a rescan", b)
		}
		time.Sleep(time.Hour - time.Second) // no second rescan for the same burst
		select {
		case b := <-out:
			t.Errorf("second batch %+v for one overflow burst", b)
		default:
		}
		if w.Overflows() != 50 {
			t.Errorf("Overflows() = %d, want 50", w.Overflows())
		}
	})
}

// TestWatchLimitDegradesToPolling injects ENOSPC for one directory: a
// warning naming the sysctl, a rescan, polling until the watch can be
// added, then a last rescan.
func TestWatchLimitDegradesToPolling(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root := tree(t, "a", "b/c")
		src := newFake()
		var fail sync.Mutex
		failing := true
		src.failAdd = func(p string) error {
			fail.Lock()
			defer fail.Unlock()
			if failing && strings.HasSuffix(p, "/b") {
				return syscall.ENOSPC
			}
			return nil
		}
		core, logs := observer.New(zap.WarnLevel)
		w := newWithSource(opts(root), zap.New(core), src)
		if !w.Degraded() || w.Watches() != 3 { // root, a, b/c
			t.Errorf("Degraded() = %v, Watches() = %d; want true, 3", w.Degraded(), w.Watches())
		}
		if logs.FilterMessageSnippet("fs.inotify.max_user_watches").Len() != 1 {
			t.Errorf("no warning naming the sysctl: %v", logs.All())
		}
		out, stop := run(t, w)
		defer stop()
		if b := <-out; !b.Rescan {
			t.Errorf("first batch = %+v, want a rescan", b)
		}
		fail.Lock()
		failing = false
		fail.Unlock()
		start := time.Now()
		if b := <-out; !b.Rescan || time.Since(start) > time.Minute+time.Second {
			t.Errorf("batch %+v after %v, want a rescan within the poll interval", b, time.Since(start))
		}
		if w.Degraded() || w.Watches() != 4 {
			t.Errorf("after recovery Degraded() = %v, Watches() = %d", w.Degraded(), w.Watches())
		}
	})
}

// The tests below use real inotify.

func realWatcher(t *testing.T, root string) (*Watcher, <-chan Batch) {
	t.Helper()
	o := opts(root)
	o.Settle, o.MaxDelay = 50*time.Millisecond, 500*time.Millisecond
	w, err := New(o, zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	out, stop := run(t, w)
	t.Cleanup(stop)
	return w, out
}

// collect gathers the directories of batches until want are all seen.
func collect(t *testing.T, out <-chan Batch, want ...string) map[string]bool {
	t.Helper()
	seen := map[string]bool{}
	deadline := time.After(30 * time.Second)
	for {
		missing := false
		for _, d := range want {
			missing = missing || !seen[d]
		}
		if !missing {
			return seen
		}
		select {
		case b := <-out:
			for _, d := range b.Dirs {
				seen[d] = true
			}
		case <-deadline:
			t.Fatalf("saw %v, never all of %v", seen, want)
		}
	}
}

func TestMkdirPRaceIsCaught(t *testing.T) {
	root := tree(t)
	w, out := realWatcher(t, root)
	if err := os.MkdirAll(filepath.Join(root, "a/b/c"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "a/b/c/p.html"), nil, 0o644)
	os.WriteFile(filepath.Join(root, "a/i.html"), nil, 0o644)
	collect(t, out, "a", "a/b", "a/b/c")
	// a/b/c is watched: a later write there is reported.
	os.WriteFile(filepath.Join(root, "a/b/c/q.html"), nil, 0o644)
	collect(t, out, "a/b/c")
	if w.Watches() != 4 {
		t.Errorf("Watches() = %d, want 4 (root, a, a/b, a/b/c)", w.Watches())
	}
}

func TestRenameAndMoveOutDropWatches(t *testing.T) {
	root := tree(t, "d/sub", ".git/objects")
	outside := t.TempDir()
	w, out := realWatcher(t, root)
	if w.Watches() != 3 { // root, d, d/sub; never .git
		t.Fatalf("Watches() = %d, want 3", w.Watches())
	}
	os.Rename(filepath.Join(root, "d"), filepath.Join(root, "e"))
	collect(t, out, "", "d", "e", "e/sub")
	os.WriteFile(filepath.Join(root, "e/sub/y.html"), nil, 0o644)
	os.WriteFile(filepath.Join(root, "e/top.html"), nil, 0o644)
	seen := collect(t, out, "e/sub", "e")
	for d := range seen {
		if d == "d/sub" {
			t.Error("a stale path under the old name was reported")
		}
	}
	if w.Watches() != 3 {
		t.Errorf("Watches() = %d after rename, want 3", w.Watches())
	}
	os.Rename(filepath.Join(root, "e"), filepath.Join(outside, "e"))
	collect(t, out, "e")
	os.WriteFile(filepath.Join(outside, "e/sub/secret.html"), nil, 0o644)
	os.WriteFile(filepath.Join(root, "marker.html"), nil, 0o644)
	seen = collect(t, out, "")
	if seen["e/sub"] {
		t.Error("a file outside the root was reported under a root path")
	}
	if w.Watches() != 1 {
		t.Errorf("Watches() = %d after moving the tree out, want 1", w.Watches())
	}
}

// TestBusy: a batch cut by MaxDelay while a file is still being written
// says so (Busy), and hands the file out again once it is quiet; a file
// written long before is not busy.
func TestBusy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root, src, _, out := fakeWatcher(t, "a")
		ev := func(name string, op fsnotify.Op) {
			src.ev <- fsnotify.Event{Name: filepath.Join(root, "a", name), Op: op}
		}
		// done.html is written once, then copying.html without end: the
		// batch is cut by MaxDelay, with done.html long quiet.
		ev("done.html", fsnotify.Write)
		stopWriting := keepWriting(src, filepath.Join(root, "a", "copying.html"))
		b := <-out
		if want := map[string][]string{"a": {"copying.html"}}; !maps.EqualFunc(b.Busy, want, slices.Equal) {
			t.Errorf("batch cut by MaxDelay: Busy = %v, want %v", b.Busy, want)
		}
		if !slices.Contains(b.Names["a"], "done.html") {
			t.Errorf("batch names %v lack done.html", b.Names)
		}
		stopWriting()
		start := time.Now()
		b = <-out
		if b.Busy != nil || !slices.Equal(b.Names["a"], []string{"copying.html"}) {
			t.Errorf("after the writer stopped: %+v, want copying.html handed out again, not busy", b)
		}
		if got := time.Since(start); got > 200*time.Millisecond {
			t.Errorf("handed out again after %v, want within Settle of its last write", got)
		}
	})
}

// TestBusyRescan: a rescan (events lost) cut by MaxDelay while a file is
// still being written says so too, and hands the file out again once it
// is quiet: the rescan's full build holds a page changed that recently,
// and the file's events, taken by the rescan, would bring it no more.
func TestBusyRescan(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root, src, _, out := fakeWatcher(t, "a")
		stopWriting := keepWriting(src, filepath.Join(root, "a", "copying.html"))
		src.errs <- fsnotify.ErrEventOverflow
		b := <-out
		if !b.Rescan {
			t.Fatalf("batch = %+v, want a rescan", b)
		}
		if want := map[string][]string{"a": {"copying.html"}}; !maps.EqualFunc(b.Busy, want, slices.Equal) {
			t.Errorf("rescan cut by MaxDelay: Busy = %v, want %v", b.Busy, want)
		}
		stopWriting()
		b = <-out
		if b.Rescan || !slices.Equal(b.Names["a"], []string{"copying.html"}) {
			t.Errorf("after the writer stopped: %+v, want copying.html handed out again", b)
		}
	})
}

// TestBusyUntold: a batch cut while more files were being written than
// Busy can name (maxRecent) hands their directories out again, whole,
// once quiet: the publish holds any page changed less than Settle before
// the batch, named busy or not.
func TestBusyUntold(t *testing.T) {
	defer func(n int) { maxRecent = n }(maxRecent)
	maxRecent = 1
	synctest.Test(t, func(t *testing.T) {
		root, src, _, out := fakeWatcher(t, "a", "b")
		stopA := keepWriting(src, filepath.Join(root, "a", "one.html"))
		stopB := keepWriting(src, filepath.Join(root, "b", "two.html"))
		b := <-out
		if len(b.Busy) != 1 {
			t.Errorf("batch cut by MaxDelay: Busy = %v, want one of the two files (maxRecent 1)", b.Busy)
		}
		stopA()
		stopB()
		b = <-out
		if !slices.Equal(b.Dirs, []string{"a", "b"}) || len(b.Names) != 0 {
			t.Errorf("after the writers stopped: %+v, want a and b handed out again whole", b)
		}
	})
}

// TestRestore: one of sitemapd's own files removed by someone else is
// handed out at once (Restore), without waiting for Settle; a temp file's
// removal is not.
func TestRestore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root := tree(t, "b")
		src := newFake()
		o := opts(root)
		o.Own = func(name string) bool { return name == "sitemap.xml" }
		w := newWithSource(o, zaptest.NewLogger(t), src)
		out, stop := run(t, w)
		defer stop()

		src.ev <- fsnotify.Event{Name: filepath.Join(root, "b", "sitemap.xml.tmp1"), Op: fsnotify.Remove}
		synctest.Wait()
		select {
		case b := <-out:
			t.Fatalf("a temp file's removal gave a batch: %+v", b)
		default:
		}
		start := time.Now()
		src.ev <- fsnotify.Event{Name: filepath.Join(root, "b", "sitemap.xml"), Op: fsnotify.Remove}
		b := <-out
		if got := time.Since(start); got != 0 {
			t.Errorf("restore handed out after %v, want at once", got)
		}
		if !slices.Equal(b.Restore, []string{"b"}) {
			t.Errorf("Restore = %v, want [b]", b.Restore)
		}
	})
}
