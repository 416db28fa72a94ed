package metrics

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/ping"
)

// failingNotifier returns the stats of an IndexNow endpoint at endpointURL
// after a run that failed, as failing for longer than /healthz allows.
func failingNotifier(t *testing.T, endpointURL string) []ping.Stats {
	t.Helper()
	root, state := t.TempDir(), t.TempDir()
	yml := fmt.Sprintf("root: %q\nbase_url: https://static.test/\nstate_dir: %q\nnotify:\n  attempts: 1\n  endpoints: [{name: ep, kind: indexnow, url: %q, key: 0123456789fedcba}]\n",
		root, state, endpointURL)
	cfg, err := config.Load([]byte(yml), filepath.Join(root, "test.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	n, err := ping.New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	n.Note([]string{"https://static.test/a.html"}, nil, true, false)
	n.Note([]string{"https://static.test/b.html"}, nil, true, false) // not the first build
	if res := n.Flush(context.Background()); res[0].Err == nil {
		t.Fatalf("result %+v, want a failure", res[0])
	}
	st := n.Stats()
	st[0].FailingSince = time.Now().Add(-NotifyFailingAfter - time.Minute)
	return st
}

// TestHealthzHidesSecrets: an endpoint URL's password and query values,
// which its failures name, reach neither /healthz nor /metrics; the host
// does.
func TestHealthzHidesSecrets(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close() // connection refused
	other := httptest.NewServer(http.NotFoundHandler())
	defer other.Close()
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/x?token=SECRET", http.StatusTemporaryRedirect)
	}))
	defer redirecting.Close()
	for _, tc := range []struct{ name, srv, host string }{
		{"down", down.URL, down.URL},
		{"redirecting elsewhere", redirecting.URL, other.URL},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, _ := url.Parse(tc.srv)
			st := failingNotifier(t, "http://user:hunter2@"+u.Host+"/indexnow?token=SECRET&key=abc")
			m := New("1.2.3")
			m.SetState(func() State { return State{Endpoints: st} })
			m.Published("initial build", time.Second, 1, nil)
			srv := httptest.NewServer(m.Handler())
			defer srv.Close()
			code, health := get(t, srv, "/healthz")
			_, exposition := get(t, srv, "/metrics")
			if code != http.StatusServiceUnavailable || !strings.Contains(health, strings.TrimPrefix(tc.host, "http://")) {
				t.Errorf("/healthz: %d %s, want 503 naming %s", code, health, tc.host)
			}
			for _, secret := range []string{"SECRET", "abc", "hunter2"} {
				if strings.Contains(health, secret) || strings.Contains(exposition, secret) {
					t.Errorf("%q shown: /healthz %s", secret, health)
				}
			}
		})
	}
}
