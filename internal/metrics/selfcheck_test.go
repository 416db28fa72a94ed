package metrics

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/reach"
)

// selfCheckSample is a self-check that found one problem, which has
// every series of the self-check's.
func selfCheckSample() *reach.Status {
	return &reach.Status{Checked: time.Date(2026, 11, 21, 8, 30, 0, 0, time.UTC), Checks: 3, URLs: 9, Problems: []reach.Result{
		{What: reach.KeyFile, URL: "https://shop.test/k.txt", Problem: reach.Redirect, Detail: "answered 301 to /keys/k.txt", Fix: "no redirect"},
	}}
}

// TestSelfCheck: the self-check on /healthz (each problem by URL;
// degraded while there is one, ok when it clears; nothing when it is
// off) and in /metrics.
func TestSelfCheck(t *testing.T) {
	st := selfCheckSample()
	st.Problems = append(st.Problems, reach.Result{What: reach.Robots, URL: "https://shop.test/robots.txt", Problem: reach.BadStatus,
		Detail: "answered 404", Fix: "serve the robots.txt sitemapd keeps in /srv/www/shop"})
	m := New("1")
	m.SetState(func() State { return State{SelfCheck: st, Roots: []string{"/srv/www/shop"}} })
	m.Published("initial build", time.Second, 10, nil)
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()

	code, body := get(t, srv, "/healthz")
	var h health
	if err := json.Unmarshal([]byte(body), &h); err != nil {
		t.Fatal(err)
	}
	if code != 503 || h.Status != "degraded" || h.Reason != "self-check: key file https://shop.test/k.txt answered 301 to /keys/k.txt (and 1 more: see self_check)" {
		t.Errorf("with problems: %d %s", code, body)
	}
	want := `{"checked":"2026-11-21T08:30:00Z","urls":9,"problems":[` +
		`{"what":"key file","url":"https://shop.test/k.txt","problem":"redirect","detail":"answered 301 to /keys/k.txt","fix":"no redirect"},` +
		`{"what":"robots.txt","url":"https://shop.test/robots.txt","problem":"status","detail":"answered 404","fix":"serve the robots.txt sitemapd keeps in ."}]}`
	if got, _ := json.Marshal(h.SelfCheck); string(got) != want {
		t.Errorf("/healthz shows\n%s\nwant\n%s", got, want)
	}
	_, body = get(t, srv, "/metrics")
	for _, w := range []string{
		`sitemapd_selfcheck_checks_total 3`,
		`sitemapd_selfcheck_urls 9`,
		`sitemapd_selfcheck_last_check_timestamp_seconds 1.7952498e+09`,
		`sitemapd_selfcheck_problem{problem="redirect",url="https://shop.test/k.txt",what="key file"} 1`,
		`sitemapd_selfcheck_problem{problem="status",url="https://shop.test/robots.txt",what="robots.txt"} 1`,
	} {
		if !strings.Contains(body, w) {
			t.Errorf("no %s in /metrics", w)
		}
	}

	st.Problems = nil // fixed
	if code, body = get(t, srv, "/healthz"); code != 200 || !strings.Contains(body, `"self_check":{"checked":"2026-11-21T08:30:00Z","urls":9}`) {
		t.Errorf("fixed: %d %s", code, body)
	}
	if _, body = get(t, srv, "/metrics"); strings.Contains(body, "sitemapd_selfcheck_problem{") {
		t.Errorf("fixed, a problem is still exported:\n%s", body)
	}
	st = nil // off
	if code, body = get(t, srv, "/healthz"); code != 200 || strings.Contains(body, "self_check") {
		t.Errorf("off: %d %s", code, body)
	}
}
