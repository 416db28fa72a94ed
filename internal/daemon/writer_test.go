package daemon

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// stableBody is the page the writer tests rewrite: d/p.html.
const stableBody = "<!doctype html><html><head><title>Stable</title></head><body><main><h1>Stable</h1>" +
	"<p>Some text of its own.</p></main></body></html>"

// stablePage writes d/p.html, waits for its publish, and returns its bytes.
func (h *harness) stablePage(t *testing.T) string {
	t.Helper()
	if err := os.MkdirAll(h.path("d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(h.path("d/p.html"), []byte(stableBody), 0o644); err != nil {
		t.Fatal(err)
	}
	h.sync()
	return stableBody
}

// keptVersion checks that d/p.html owes nothing since publish n and
// still has lastmod was, after what says what was done to it.
func (h *harness) keptVersion(t *testing.T, n int, was, what string) {
	t.Helper()
	if c := h.changesSince(n); slices.Contains(c.Changed, "https://static.test/d/p.html") {
		t.Errorf("%s moved the page: %+v", what, c)
	}
	if got := h.lastmodOf("d/p.html"); got != was {
		t.Errorf("%s: lastmod %q, was %q", what, got, was)
	}
}

// TestStalledWriter: a writer that truncates a page and is held up longer
// than watch.settle before it writes (what a busy machine's scheduler does
// to any process; TestModel's own writes under load) leaves the page
// empty, and named by the batch, when the daemon reads it. An empty file
// is no version of a page: a template-only rewrite so stalled moves no
// lastmod and owes nothing (before, the empty read and the write were two
// changes of what the page says, both owed).
func TestStalledWriter(t *testing.T) {
	h := start(t, "")
	body := h.stablePage(t)
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

// TestHalfWrittenPageIsNoVersion: a writer that writes half a page and
// is held up for five times watch.settle (an upload over a slow link, an
// rsync --inplace held up) before it writes the rest leaves half a page,
// quiet; it is not published as a version of the page (the watcher holds
// a file modified and not closed as busy): the same bytes, whole again,
// move no lastmod and owe nothing.
func TestHalfWrittenPageIsNoVersion(t *testing.T) {
	h := start(t, "")
	body := h.stablePage(t)
	n, was := h.published(), h.lastmodOf("d/p.html")
	f, err := os.OpenFile(h.path("d/p.html"), os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte(body[:len(body)/2])); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // five times watch.settle
	if _, err := f.Write([]byte(body[len(body)/2:])); err != nil {
		t.Fatal(err)
	}
	f.Close()
	h.sync()
	h.keptVersion(t, n, was, "the same bytes, rewritten by a writer held up half-way")
	h.checkOracle()
}

// TestRescanLeavesWritersAlone: watch.rescan's walk, between the watcher's
// batches, meets a page a writer truncated and has not written yet. The
// empty file is no version of the page: the rescans keep its published
// version (before, each read the empty file as new bytes, moved the
// lastmod and owed the URL, and the write that followed moved it again).
// The fleet's republishes, a retry and the prints' build read pages
// between batches by the same rule (session.betweenBatches).
func TestRescanLeavesWritersAlone(t *testing.T) {
	h := startConfig(t, strings.Replace(testConfig, "rescan: 0s", "rescan: 200ms", 1))
	body := stableBody
	if err := os.MkdirAll(h.path("d"), 0o755); err != nil {
		t.Fatal(err)
	}
	// An hour old, moved in whole: a version taken from the truncation
	// would show in the lastmod.
	tmp := filepath.Join(h.dir, "p.html")
	old := time.Now().Add(-time.Hour)
	if err := os.WriteFile(tmp, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(tmp, old, old); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, h.path("d/p.html")); err != nil {
		t.Fatal(err)
	}
	h.sync()
	n, was := h.published(), h.lastmodOf("d/p.html")
	f, err := os.OpenFile(h.path("d/p.html"), os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	rescans := func() int {
		k := 0
		for _, e := range h.logs.FilterMessage("published").All() {
			if trig, _ := e.ContextMap()["trigger"].(string); trig == PeriodicRescan.String() {
				k++
			}
		}
		return k
	}
	// Two rescans after the truncation's own batch: the file is empty
	// and its events are long published.
	h.sync()
	k := rescans()
	h.waitFor("two rescans of the empty page", func() bool { return rescans() >= k+2 })
	if got := h.lastmodOf("d/p.html"); got != was {
		t.Errorf("a rescan took the truncated page as a version: lastmod %q, was %q", got, was)
	}
	if _, err := f.Write([]byte(body + `<script src="/app.2.js"></script>`)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	h.sync()
	h.keptVersion(t, n, was, "a template-only rewrite met by rescans")
}
