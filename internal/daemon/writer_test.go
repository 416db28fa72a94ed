package daemon

import (
	"os"
	"slices"
	"testing"
	"time"
)

// TestStalledWriter: a writer that truncates a page and is held up longer
// than watch.settle before it writes (what a busy machine's scheduler does
// to any process; TestModel's own writes under load) leaves the page
// empty, and named by the batch, when the daemon reads it. An empty file
// is no version of a page: a template-only rewrite so stalled moves no
// lastmod and owes nothing (before, the empty read and the write were two
// changes of what the page says, both owed).
func TestStalledWriter(t *testing.T) {
	h := start(t, "")
	body := "<!doctype html><html><head><title>Stable</title></head><body><main><h1>Stable</h1>" +
		"<p>Some text of its own.</p></main></body></html>"
	if err := os.MkdirAll(h.path("d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(h.path("d/p.html"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	h.sync()
	n := h.published()
	f, err := os.OpenFile(h.path("d/p.html"), os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The stall is what is tested: five times watch.settle, so that the
	// truncation's batch is made and published while the file is empty.
	time.Sleep(500 * time.Millisecond)
	if _, err := f.Write([]byte(body + `<script src="/app.2.js"></script>`)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	h.sync()
	if c := h.changesSince(n); slices.Contains(c.Changed, "https://static.test/d/p.html") {
		t.Errorf("a template-only rewrite by a stalled writer moved the lastmod: %+v", c)
	}
	h.checkOracle()
}
