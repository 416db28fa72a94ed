package metrics

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/ping"
	"github.com/sitemapd/sitemapd/internal/tree"
)

func get(t *testing.T, srv *httptest.Server, path string) (int, string) {
	t.Helper()
	resp, err := http.Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestHealthz: 200 only after a successful publish with every directory
// watched; otherwise 503 with the reason in JSON.
func TestHealthz(t *testing.T) {
	m := New("1.2.3")
	st := State{Watches: 7, Roots: []string{"/srv/www"}}
	m.SetState(func() State { return st })
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	for _, tc := range []struct {
		name   string
		before func()
		code   int
		reason string
	}{
		{"before the first build", func() {}, 503, "first build"},
		{"after a good build", func() { m.Published("initial build", time.Second, 10, nil) }, 200, ""},
		{"after a failed publish", func() { m.Published("change", time.Millisecond, -1, errors.New("disk full")) }, 503, "disk full"},
		{"recovered", func() { m.Published("retry", time.Millisecond, -1, nil) }, 200, ""},
		{"a full build refused", func() { st.Refused = "publish refused: 9 of 9 pages…" }, 503, "publish refused"},
		{"refused, then an update published", func() { m.Published("change", time.Millisecond, -1, nil) }, 503, "publish refused"},
		{"degraded watching", func() { st.Refused, st.Degraded = "", true }, 503, "not watched"},
		{"an unreadable directory, named relative to the root", func() {
			st.Degraded = false
			m.Published("change", time.Millisecond, -1, errors.New("group /srv/www/docs not updated: read directory /srv/www/docs/private: permission denied"))
		}, 503, "group docs not updated: read directory docs/private: permission denied"},
		{"notifications failing for a while", func() {
			m.Published("retry", time.Millisecond, -1, nil)
			st.Endpoints = []ping.Stats{{Endpoint: "indexnow", Owed: 3, LastError: "503 Service Unavailable", FailingSince: time.Now().Add(-10 * time.Minute)}}
		}, 200, ""},
		{"notifications failing too long", func() {
			st.Endpoints[0].FailingSince = time.Now().Add(-NotifyFailingAfter - time.Minute)
		}, 503, "notifications to indexnow have failed since"},
		{"failing, but nothing owed", func() { st.Endpoints[0].Owed = 0 }, 200, ""},
		{"an endpoint gone", func() { st.Endpoints[0].Gone = true }, 503, "no longer called"},
		{"stalled", func() { st.Endpoints, st.Stalled = nil, "no sign of life for 40s: the main loop is stuck" }, 503, "no sign of life"},
		{"alive again", func() { st.Stalled = "" }, 200, ""},
		{"a fleet's etcd unreachable", func() {
			st.Fleet = "fleet: etcd unreachable for 31s (since 2026-01-02T03:04:05Z): context deadline exceeded"
		}, 503, "fleet: etcd unreachable for 31s"},
		{"etcd back", func() { st.Fleet = "" }, 200, ""},
	} {
		tc.before()
		code, body := get(t, srv, "/healthz")
		var h health
		if err := json.Unmarshal([]byte(body), &h); err != nil {
			t.Fatalf("%s: body %q is not JSON: %v", tc.name, body, err)
		}
		if code != tc.code || !strings.Contains(h.Reason, tc.reason) || h.Watches != 7 || strings.Contains(body, "/srv/www") {
			t.Errorf("%s: %d %+v, want %d and a reason with %q", tc.name, code, h, tc.code, tc.reason)
		}
		notify := strings.Contains(tc.reason, "notifications") || strings.Contains(tc.reason, "no longer called") || strings.Contains(tc.reason, "fleet")
		if notify && h.Status != "degraded" || code == 503 && !notify && h.Status != "unhealthy" {
			t.Errorf("%s: status %q", tc.name, h.Status)
		}
	}
}

// TestMetrics: the exposition carries what the daemon did.
func TestMetrics(t *testing.T) {
	m := New("1.2.3")
	m.SetState(func() State {
		return State{Watches: 12, Overflows: 2, Endpoints: []ping.Stats{
			{Endpoint: "indexnow", Attempts: 5, Successes: 3, Failures: 2, LastStatus: 202, Owed: 4},
		}}
	})
	m.Published("initial build", 2*time.Second, 1234, nil)
	m.Published("change", 5*time.Millisecond, -1, nil)
	m.Published("change", 5*time.Millisecond, -1, errors.New("x"))
	var left tree.Tally
	left[tree.Redirect], left[tree.Robots] = 10098, 161
	m.LeftOut(left)
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	code, body := get(t, srv, "/metrics")
	if code != 200 {
		t.Fatalf("status %d", code)
	}
	for _, want := range []string{
		`sitemapd_publishes_total{result="ok",trigger="change"} 1`,
		`sitemapd_publishes_total{result="error",trigger="change"} 1`,
		`sitemapd_publishes_total{result="ok",trigger="initial build"} 1`,
		`sitemapd_publish_duration_seconds_count{trigger="change"} 2`,
		`sitemapd_urls 1234`,
		`sitemapd_watches 12`,
		`sitemapd_watch_overflows_total 2`,
		`sitemapd_notify_requests_total{endpoint="indexnow",outcome="success"} 3`,
		`sitemapd_notify_requests_total{endpoint="indexnow",outcome="failure"} 2`,
		`sitemapd_notify_owed_urls{endpoint="indexnow"} 4`,
		`sitemapd_notify_last_status{endpoint="indexnow"} 202`,
		`sitemapd_build_info{version="1.2.3"} 1`,
		`sitemapd_pages_left_out{reason="redirect"} 10098`,
		`sitemapd_pages_left_out{reason="robots"} 161`,
		`sitemapd_pages_left_out{reason="noindex"} 0`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("no %s in /metrics", want)
		}
	}
}
