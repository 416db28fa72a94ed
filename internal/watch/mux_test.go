package watch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"go.uber.org/zap/zaptest"
)

func newMux(t *testing.T) *Mux {
	t.Helper()
	m, err := NewMux(zaptest.NewLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// await reads s's events until one names path, failing the test if none
// does in time or the stream ends.
func await(t *testing.T, s *Source, path string) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case ev, ok := <-s.Events():
			if !ok {
				t.Fatalf("stream ended before an event on %s", path)
			}
			if ev.Name == path {
				return
			}
		case err := <-s.Errors():
			t.Fatalf("error before an event on %s: %v", path, err)
		case <-deadline:
			t.Fatalf("no event on %s", path)
		}
	}
}

// quiet fails the test if s delivers an event on path before a marker
// event on marker, which s must see.
func quiet(t *testing.T, s *Source, path, marker string) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case ev := <-s.Events():
			switch ev.Name {
			case path:
				t.Fatalf("event on %s delivered to a source not watching it", path)
			case marker:
				return
			}
		case <-deadline:
			t.Fatalf("no event on the marker %s", marker)
		}
	}
}

// TestMuxDispatchAndSharing: an event goes to every Source watching its
// directory and to no other; a path two Sources watch is one kernel watch,
// kept until the last of them removes it.
func TestMuxDispatchAndSharing(t *testing.T) {
	m := newMux(t)
	shared, onlyA := t.TempDir(), t.TempDir()
	a, b := m.Source(), m.Source()
	for _, err := range []error{a.Add(shared), b.Add(shared), a.Add(onlyA), b.Add(onlyA + "/..")} {
		if err != nil {
			t.Fatal(err)
		}
	}
	b.Remove(onlyA + "/..")
	if m.Watches() != 2 {
		t.Errorf("Watches() = %d, want 2 (shared once, onlyA)", m.Watches())
	}
	os.WriteFile(filepath.Join(shared, "x"), nil, 0o644)
	await(t, a, filepath.Join(shared, "x"))
	await(t, b, filepath.Join(shared, "x"))
	os.WriteFile(filepath.Join(onlyA, "y"), nil, 0o644)
	os.WriteFile(filepath.Join(shared, "marker"), nil, 0o644)
	await(t, a, filepath.Join(onlyA, "y"))
	quiet(t, b, filepath.Join(onlyA, "y"), filepath.Join(shared, "marker"))

	// a lets go of shared: b still hears it, a no longer does.
	if err := a.Remove(shared); err != nil {
		t.Fatal(err)
	}
	if err := a.Remove(shared); !errors.Is(err, fsnotify.ErrNonExistentWatch) {
		t.Errorf("second Remove: %v, want ErrNonExistentWatch", err)
	}
	os.WriteFile(filepath.Join(shared, "z"), nil, 0o644)
	os.WriteFile(filepath.Join(onlyA, "marker"), nil, 0o644)
	await(t, b, filepath.Join(shared, "z"))
	quiet(t, a, filepath.Join(shared, "z"), filepath.Join(onlyA, "marker"))

	// Closing a Source ends its streams and drops its watches only.
	a.Close()
	if _, ok := <-a.Events(); ok {
		// drain what was queued before Close
		for range a.Events() {
		}
	}
	if m.Watches() != 1 {
		t.Errorf("Watches() = %d after a closed, want 1", m.Watches())
	}
	if err := a.Add(onlyA); !errors.Is(err, ErrClosed) {
		t.Errorf("Add after Close: %v, want ErrClosed", err)
	}
	os.WriteFile(filepath.Join(shared, "w"), nil, 0o644)
	await(t, b, filepath.Join(shared, "w"))
}

// TestMuxReaddsARecreatedDirectory: a directory removed loses its kernel
// watch even while another Source still holds it in the Mux; adding it
// again after it is made again must watch it for real.
func TestMuxReaddsARecreatedDirectory(t *testing.T) {
	m := newMux(t)
	parent := t.TempDir()
	d := filepath.Join(parent, "d")
	os.Mkdir(d, 0o755)
	a, b := m.Source(), m.Source()
	a.Add(d)
	b.Add(d)
	os.Remove(d)
	await(t, a, d)
	os.Mkdir(d, 0o755)
	if err := a.Add(d); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(d, "x"), nil, 0o644)
	await(t, a, filepath.Join(d, "x"))
}

// TestMuxSlowSourceLosesAlone: a Source nobody reads loses its events and
// is told (ErrEventOverflow, the rescan signal), while the others hear
// every event.
func TestMuxSlowSourceLosesAlone(t *testing.T) {
	m := newMux(t)
	dir := t.TempDir()
	slow, fast := m.Source(), m.Source()
	slow.Add(dir)
	fast.Add(dir)
	n := 2 * sourceQueue
	last := filepath.Join(dir, fmt.Sprint(n-1))
	heard := make(chan error, 1)
	var created atomic.Int64
	go func() { // fast's consumer keeps up
		for {
			select {
			case ev := <-fast.Events():
				if ev.Has(fsnotify.Create) {
					created.Add(1)
				}
				if ev.Name == last {
					heard <- nil
					return
				}
			case err := <-fast.Errors():
				heard <- err
				return
			}
		}
	}()
	for i := range n {
		os.WriteFile(filepath.Join(dir, fmt.Sprint(i)), nil, 0o644)
		// The writer waits for the reader now and then: the test is
		// about the Mux, not about how fast a loaded machine schedules.
		for wait := time.Now(); i%(sourceQueue/4) == 0 && created.Load() < int64(i); time.Sleep(time.Millisecond) {
			if time.Since(wait) > 30*time.Second {
				t.Fatalf("the source that keeps up heard %d of %d files", created.Load(), i)
			}
		}
	}
	select {
	case err := <-heard:
		if err != nil {
			t.Fatalf("the source that keeps up was told %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the source that keeps up missed the last event")
	}
	select {
	case err := <-slow.Errors():
		if !errors.Is(err, fsnotify.ErrEventOverflow) {
			t.Errorf("slow source told %v, want ErrEventOverflow", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the slow source was not told it lost events")
	}
}

// TestWatchersShareAMux: two Watchers on nested roots share one instance:
// each reports the changes in its own tree, as a Watcher of its own would;
// closing the inner one leaves the outer one watching the inner tree.
func TestWatchersShareAMux(t *testing.T) {
	m := newMux(t)
	outer := tree(t, "inner/sub", "other")
	inner := filepath.Join(outer, "inner")
	start := func(root string) (*Watcher, <-chan Batch, func()) {
		o := opts(root)
		o.Settle, o.MaxDelay, o.Mux = 50*time.Millisecond, 500*time.Millisecond, m
		w, err := New(o, zaptest.NewLogger(t))
		if err != nil {
			t.Fatal(err)
		}
		out, stop := run(t, w)
		return w, out, func() { stop(); w.Close() }
	}
	wo, outO, stopO := start(outer)
	defer stopO()
	wi, outI, stopI := start(inner)
	if wo.Watches() != 4 || wi.Watches() != 2 || m.Watches() != 4 {
		t.Errorf("watches: outer %d, inner %d, shared %d; want 4, 2, 4", wo.Watches(), wi.Watches(), m.Watches())
	}
	os.WriteFile(filepath.Join(inner, "sub/p.html"), nil, 0o644)
	os.WriteFile(filepath.Join(outer, "other/q.html"), nil, 0o644)
	collect(t, outO, "inner/sub", "other")
	if seen := collect(t, outI, "sub"); seen["other"] || seen["../other"] {
		t.Errorf("the inner watcher reported outside its root: %v", seen)
	}
	stopI()
	os.MkdirAll(filepath.Join(inner, "new"), 0o755)
	os.WriteFile(filepath.Join(inner, "sub/r.html"), nil, 0o644)
	collect(t, outO, "inner/new", "inner/sub")
	if m.Watches() != 5 {
		t.Errorf("shared watches %d, want 5 (outer's, inner/new included)", m.Watches())
	}
}
