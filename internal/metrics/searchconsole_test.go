package metrics

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/searchconsole"
)

// TestSearchConsole: Google's view of the sitemaps on /healthz (degraded
// while Google reports errors) and in /metrics.
func TestSearchConsole(t *testing.T) {
	downloaded := time.Date(2026, 11, 21, 8, 30, 0, 0, time.UTC)
	view := searchconsole.View{URL: "https://shop.test/sitemap_index.xml", Polled: downloaded.Add(time.Hour), LastDownloaded: downloaded,
		Index: true, Warnings: 1, Contents: []searchconsole.Content{{Type: "web", Submitted: 120}, {Type: "image", Submitted: 7}}}
	st := searchconsole.Status{Endpoint: "google", Property: "sc-domain:shop.test", Requests: 5, Failures: 1,
		Sitemaps: []searchconsole.Sitemap{{URL: view.URL, Submitted: downloaded.Add(-time.Hour), View: &view}}}
	m := New("1")
	m.SetState(func() State { return State{SearchConsole: []searchconsole.Status{st}} })
	m.Published("initial build", time.Second, 10, nil)
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()

	code, body := get(t, srv, "/healthz")
	var h health
	if err := json.Unmarshal([]byte(body), &h); err != nil {
		t.Fatal(err)
	}
	if code != 200 || len(h.SearchConsole) != 1 {
		t.Fatalf("%d %s", code, body)
	}
	want := `{"endpoint":"google","property":"sc-domain:shop.test","sitemap":"https://shop.test/sitemap_index.xml","submitted":"2026-11-21T07:30:00Z",` +
		`"polled":"2026-11-21T09:30:00Z","last_downloaded":"2026-11-21T08:30:00Z","errors":0,"warnings":1,"urls":{"image":7,"web":120}}`
	if got, _ := json.Marshal(h.SearchConsole[0]); string(got) != want {
		t.Errorf("/healthz shows\n%s\nwant\n%s", got, want)
	}

	view.Errors = 3
	code, body = get(t, srv, "/healthz")
	json.Unmarshal([]byte(body), &h)
	if code != 503 || h.Status != "degraded" || !strings.Contains(h.Reason, "Google reports 3 errors in sitemap https://shop.test/sitemap_index.xml") {
		t.Errorf("with errors: %d %s", code, body)
	}

	_, body = get(t, srv, "/metrics")
	for _, w := range []string{
		`sitemapd_searchconsole_requests_total{endpoint="google",outcome="success"} 4`,
		`sitemapd_searchconsole_requests_total{endpoint="google",outcome="failure"} 1`,
		`sitemapd_searchconsole_sitemap_errors{endpoint="google",sitemap="https://shop.test/sitemap_index.xml"} 3`,
		`sitemapd_searchconsole_sitemap_warnings{endpoint="google",sitemap="https://shop.test/sitemap_index.xml"} 1`,
		`sitemapd_searchconsole_sitemap_pending{endpoint="google",sitemap="https://shop.test/sitemap_index.xml"} 0`,
		`sitemapd_searchconsole_sitemap_urls{endpoint="google",sitemap="https://shop.test/sitemap_index.xml",type="web"} 120`,
		`sitemapd_searchconsole_sitemap_urls{endpoint="google",sitemap="https://shop.test/sitemap_index.xml",type="image"} 7`,
		`sitemapd_searchconsole_sitemap_last_downloaded_timestamp_seconds{endpoint="google",sitemap="https://shop.test/sitemap_index.xml"} 1.7952498e+09`,
		`# TYPE sitemapd_searchconsole_requests_total counter`,
	} {
		if !strings.Contains(body, w) {
			t.Errorf("no %s in /metrics", w)
		}
	}
}

// consoleSample is a searchconsole endpoint with Google's view of one
// sitemap, which has every series of the endpoint's.
func consoleSample() []searchconsole.Status {
	v := &searchconsole.View{URL: "https://shop.test/sitemap_index.xml", Contents: []searchconsole.Content{{Type: "web", Submitted: 1}}}
	return []searchconsole.Status{{Endpoint: "google", Sitemaps: []searchconsole.Sitemap{{URL: v.URL, View: v}}}}
}
