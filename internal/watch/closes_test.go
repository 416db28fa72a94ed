package watch

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// nextNaming waits for the next batch that names dir/name.
func nextNaming(t *testing.T, out <-chan Batch, dir, name string) Batch {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case b := <-out:
			if slices.Contains(b.Names[dir], name) {
				return b
			}
		case <-deadline:
			t.Fatalf("no batch named %s/%s", dir, name)
		}
	}
}

// TestWriterHeldUpIsBusyUntilClosed (real inotify): a writer that stops
// half-way through a file for many times Settle (an upload over a slow
// link, an rsync --inplace held up) leaves it busy, however quiet, until
// it closes the file; the close hands the file out again, no longer busy.
// A file written and closed at once is never busy once quiet.
func TestWriterHeldUpIsBusyUntilClosed(t *testing.T) {
	root := tree(t, "a")
	w, out := realWatcher(t, root)
	if w.closes == nil {
		t.Fatal("no inotify instance for closes")
	}
	if err := os.WriteFile(filepath.Join(root, "a", "done.html"), []byte("<p>whole</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b := nextNaming(t, out, "a", "done.html"); slices.Contains(b.Busy["a"], "done.html") {
		t.Errorf("a file written and closed is busy: %v", b.Busy)
	}

	f, err := os.OpenFile(filepath.Join(root, "a", "page.html"), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("<p>the first half"); err != nil {
		t.Fatal(err)
	}
	b := nextNaming(t, out, "a", "page.html")
	if !slices.Contains(b.Busy["a"], "page.html") {
		t.Fatalf("a file open for writing is not busy: %+v", b)
	}
	// Quiet for ten times Settle (and MaxDelay), still open: never
	// handed out as done.
	quiet := time.After(10 * w.opts.Settle)
	for waiting := true; waiting; {
		select {
		case b := <-out:
			if slices.Contains(b.Names["a"], "page.html") && !slices.Contains(b.Busy["a"], "page.html") {
				t.Fatalf("a file open for writing, its writer quiet, handed out as done: %+v", b)
			}
		case <-quiet:
			waiting = false
		}
	}
	if _, err := f.WriteString(" and the second.</p>"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	for {
		b = nextNaming(t, out, "a", "page.html")
		if !slices.Contains(b.Busy["a"], "page.html") {
			break // handed out whole
		}
		// A batch made between the last write and its close: busy, as it
		// should be; the close brings another.
	}
}
