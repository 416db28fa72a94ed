package daemon

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// TestSelfCheckInTheDaemon: with selfcheck on, a publish is followed by
// a check of the public view (here a file server on 127.0.0.1, reached
// through selfcheck.connect): robots.txt answering 404 is named on
// /healthz (degraded) and logged once; fixed, the next publish's check
// clears it.
func TestSelfCheckInTheDaemon(t *testing.T) {
	dir := t.TempDir()
	h := &harness{t: t, dir: dir, root: filepath.Join(dir, "root"), cfgPath: filepath.Join(dir, "sitemapd.yaml"),
		reload: make(chan struct{}, 1), configFor: func(extra string) string { return testConfig + extra }}
	os.MkdirAll(h.root, 0o755)
	h.write("index.html")
	var broken atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if broken.Load() && r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		http.FileServer(http.Dir(h.root)).ServeHTTP(w, r)
	}))
	defer srv.Close()
	// An interval that never comes in the test: each check follows a publish.
	cfg := strings.Replace(testConfig, "https://static.test/", "http://static.test/", 1) + "robots_txt: true\n" +
		"selfcheck: {enabled: true, interval: 1h, after_publish: 0s, timeout: 5s, connect: \"" + srv.Listener.Addr().String() + "\"}\n"
	if err := os.WriteFile(h.cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	h.run()
	h.waitFor("the first check", func() bool {
		code, body := h.health()
		return code == 200 && strings.Contains(body, `"self_check":{"checked":`)
	})

	broken.Store(true)
	h.write("blog/a.html")
	h.waitFor("/healthz to name robots.txt", func() bool {
		_, body := h.health()
		return strings.Contains(body, `"what":"robots.txt","url":"http://static.test/robots.txt","problem":"status","detail":"answered 404"`)
	})
	if code, body := h.health(); code != 503 || !strings.Contains(body, `"status":"degraded","reason":"self-check: robots.txt http://static.test/robots.txt answered 404"`) {
		t.Errorf("/healthz: %d %s", code, body)
	}
	before := selfChecks(h)
	h.write("blog/b.html") // another publish, another check: the same problem
	h.waitFor("the check after it", func() bool { return selfChecks(h) > before })

	broken.Store(false)
	h.write("blog/c.html")
	h.waitFor("/healthz to clear", func() bool { code, _ := h.health(); return code == 200 })
	h.stop()
	// Only robots.txt's lines count: the harness's sync pages, removed
	// while still listed, may be caught by a check for a moment too.
	robots := func(msg string) int {
		n := 0
		for _, e := range h.logs.FilterMessage(msg).All() {
			if e.ContextMap()["what"] == "robots.txt" {
				n++
			}
		}
		return n
	}
	if n := robots("self-check: the public view differs from what sitemapd wrote"); n != 1 {
		t.Errorf("the problem was logged %d times, want once", n)
	}
	if n := robots("self-check: cleared"); n != 1 {
		t.Errorf("its clearing was logged %d times, want once", n)
	}
}

// selfChecks is sitemapd_selfcheck_checks_total, as /metrics says.
func selfChecks(h *harness) int {
	rec := httptest.NewRecorder()
	h.d.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	for line := range strings.SplitSeq(rec.Body.String(), "\n") {
		if v, ok := strings.CutPrefix(line, "sitemapd_selfcheck_checks_total "); ok {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	return 0
}
