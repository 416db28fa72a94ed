package daemon

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/sitemapd/sitemapd/internal/searchconsole"
	"github.com/sitemapd/sitemapd/internal/searchconsole/sctest"
)

// TestSearchConsoleInTheDaemon: the daemon's first publish tells its
// searchconsole endpoint the index and robots.txt's Sitemap lines; the
// endpoint submits each once to a fake of Google (the JWT and the API's
// exact paths are internal/searchconsole's tests), and /healthz shows
// Google's view, degraded while Google reports errors.
func TestSearchConsoleInTheDaemon(t *testing.T) {
	var mu sync.Mutex
	var calls []string
	mux := http.NewServeMux()
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"access_token":"tok","token_type":"Bearer","expires_in":3600}`)
	})
	mux.HandleFunc("/webmasters/v3/", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls = append(calls, r.Method+" "+r.RequestURI)
		mu.Unlock()
		if r.Method == http.MethodGet {
			io.WriteString(w, `{"path":"x","isPending":true,"isSitemapsIndex":true,"errors":"1","warnings":"0","contents":[{"type":"web","submitted":"2"}]}`)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	dir := t.TempDir()
	keyFile := filepath.Join(dir, "gsc.json")
	sctest.WriteKey(t, keyFile, srv.URL+"/token", 0o600)

	h := &harness{t: t, dir: dir, root: filepath.Join(dir, "root"), cfgPath: filepath.Join(dir, "sitemapd.yaml"), reload: make(chan struct{}, 1)}
	h.write("index.html")
	os.WriteFile(h.path("robots.txt"), []byte("User-agent: *\nSitemap: https://static.test/app/sitemap.xml\nSitemap: https://elsewhere.test/s.xml\n"), 0o644)
	os.WriteFile(h.cfgPath, []byte(testConfig+fmt.Sprintf("notify: {endpoints: [{name: google, kind: searchconsole, property: \"sc-domain:static.test\", credentials: %s}]}\n", keyFile)), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel, h.done = cancel, make(chan error, 1)
	h.d = New(Options{ConfigPath: h.cfgPath, Notifier: h, Reload: h.reload,
		SearchConsole: []searchconsole.Option{searchconsole.WithAPIBase(srv.URL + "/webmasters/v3/")}},
		zaptest.NewLogger(t, zaptest.Level(zap.InfoLevel)))
	go func() { h.done <- h.d.Run(ctx) }()
	t.Cleanup(h.stop)

	const site = "/webmasters/v3/sites/sc-domain%3Astatic.test/sitemaps/"
	want := []string{
		"PUT " + site + "https%3A%2F%2Fstatic.test%2Fapp%2Fsitemap.xml",
		"PUT " + site + "https%3A%2F%2Fstatic.test%2Fsitemap_index.xml",
		"GET " + site + "https%3A%2F%2Fstatic.test%2Fapp%2Fsitemap.xml",
		"GET " + site + "https%3A%2F%2Fstatic.test%2Fsitemap_index.xml",
	}
	h.waitFor("the submissions and polls", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(calls) >= len(want)
	})
	h.waitFor("/healthz to show Google's view", func() bool {
		_, body := h.health()
		return strings.Contains(body, `"errors":1`)
	})
	code, body := h.health()
	if code != 503 || !strings.Contains(body, `"status":"degraded"`) || !strings.Contains(body, "Google reports 1 errors in sitemap https://static.test/") ||
		!strings.Contains(body, `"sitemap":"https://static.test/sitemap_index.xml"`) || !strings.Contains(body, `"pending":true`) {
		t.Errorf("/healthz: %d %s", code, body)
	}

	// A change publishes; nothing is submitted again.
	h.write("blog/new.html")
	h.waitFor("the change", func() bool { _, err := os.Stat(h.path("blog/sitemap.xml")); return err == nil })
	h.stop()
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(calls, want) {
		t.Errorf("calls:\n  %s\nwant:\n  %s", strings.Join(calls, "\n  "), strings.Join(want, "\n  "))
	}
}
