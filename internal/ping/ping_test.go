package ping

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/sitemapd/sitemapd/internal/config"
)

const testKey = "0123456789abcdef"

// recorder is an endpoint on 127.0.0.1 that records what it receives and
// answers with reply.
type recorder struct {
	*httptest.Server
	mu    sync.Mutex
	reqs  []received
	reply func(w http.ResponseWriter, r *http.Request, n int) // n: 0-based request number
}

type received struct {
	method, path, query, ua string
	body                    indexNowBody
}

func newRecorder(t *testing.T, reply func(w http.ResponseWriter, r *http.Request, n int)) *recorder {
	rec := &recorder{reply: reply}
	rec.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var got received
		got.method, got.path, got.query, got.ua = r.Method, r.URL.Path, r.URL.RawQuery, r.UserAgent()
		if r.Method == http.MethodPost {
			json.NewDecoder(r.Body).Decode(&got.body)
		}
		rec.mu.Lock()
		n := len(rec.reqs)
		rec.reqs = append(rec.reqs, got)
		rec.mu.Unlock()
		rec.reply(w, r, n)
	}))
	t.Cleanup(rec.Close)
	return rec
}

func (r *recorder) requests() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.reqs...)
}

func status(code int) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, _ *http.Request, _ int) { w.WriteHeader(code) }
}

// setup returns a config with one endpoint of kind at url, its state in
// stateDir (a new one if empty), and extra YAML under notify.
func setup(t *testing.T, kind config.EndpointKind, url, stateDir, extra string) *config.Config {
	t.Helper()
	return setupEndpoint(t, kind, url, "", stateDir, extra)
}

// setupEndpoint is setup with more keys of the endpoint (as "k: v, k: v"):
// its delay or its own schedule.
func setupEndpoint(t *testing.T, kind config.EndpointKind, url, keys, stateDir, extra string) *config.Config {
	t.Helper()
	root := t.TempDir()
	if stateDir == "" {
		stateDir = t.TempDir()
	}
	ep := fmt.Sprintf("{name: ep, kind: %s, url: %q", kind, url)
	if kind == config.IndexNow {
		ep += ", key: " + testKey
	}
	if keys != "" {
		ep += ", " + keys
	}
	yml := fmt.Sprintf("root: %q\nbase_url: https://static.test/\nstate_dir: %q\nnotify:\n  schedule: \"@every 1m\"\n  attempts: 3\n  max_backoff: 30s\n  endpoints: [%s}]\n%s",
		root, stateDir, ep, extra)
	cfg, err := config.Load([]byte(yml), filepath.Join(root, "test.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func open(t *testing.T, cfg *config.Config, s *sleeps) (*Notifier, *observer.ObservedLogs) {
	t.Helper()
	core, logs := observer.New(zap.InfoLevel)
	if s == nil {
		s = &sleeps{}
	}
	n, err := New(cfg, zap.New(core), WithSleep(s.sleep), WithRand(rand.New(rand.NewPCG(1, 2))), WithVersion("1.2.3"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	// Not the first run: pages are owed from the start.
	n.fresh = false
	return n, logs
}

func pages(k int) []string {
	out := make([]string, k)
	for i := range out {
		out[i] = fmt.Sprintf("https://static.test/p%05d.html", i)
	}
	return out
}

// TestIndexNowStatuses checks what each answer does to the batch (taken,
// dropped as unfixable, or kept until the user or the endpoint fixes it)
// and how often it is tried (only passing server troubles are retried).
func TestIndexNowStatuses(t *testing.T) {
	for _, tc := range []struct {
		name     string
		reply    func(http.ResponseWriter, *http.Request, int)
		owed     int // URLs still owed after the run
		requests int
		sleeps   []time.Duration // exact waits, when fixed by Retry-After
		log      string          // a log message that must appear
	}{
		{name: "200", reply: status(200), owed: 0, requests: 1},
		{name: "202 key validation pending", reply: status(202), owed: 0, requests: 1},
		{name: "400 dropped", reply: status(400), owed: 0, requests: 1, log: "dropped"},
		{name: "403 kept, key hint", reply: status(403), owed: 2, requests: 1, log: "keyLocation"},
		{name: "422 kept", reply: status(422), owed: 2, requests: 1, log: "base_url"},
		{name: "500 retried then kept", reply: status(500), owed: 2, requests: 3},
		{name: "501 not retried", reply: status(501), owed: 2, requests: 1},
		{name: "503 Retry-After seconds", reply: func(w http.ResponseWriter, _ *http.Request, n int) {
			if n == 0 {
				w.Header().Set("Retry-After", "2")
				w.WriteHeader(503)
				return
			}
			w.WriteHeader(200)
		}, owed: 0, requests: 2, sleeps: []time.Duration{2 * time.Second}},
		{name: "429 Retry-After capped", reply: func(w http.ResponseWriter, _ *http.Request, n int) {
			if n == 0 {
				w.Header().Set("Retry-After", "99999999")
				w.WriteHeader(429)
				return
			}
			w.WriteHeader(200)
		}, owed: 0, requests: 2, sleeps: []time.Duration{30 * time.Second}, log: "capping"},
		{name: "429 Retry-After date", reply: func(w http.ResponseWriter, _ *http.Request, n int) {
			if n == 0 {
				w.Header().Set("Retry-After", time.Now().Add(time.Hour).UTC().Format(http.TimeFormat))
				w.WriteHeader(429)
				return
			}
			w.WriteHeader(200)
		}, owed: 0, requests: 2, sleeps: []time.Duration{30 * time.Second}},
		{name: "301 not followed as GET", reply: func(w http.ResponseWriter, r *http.Request, _ int) {
			http.Redirect(w, r, "/elsewhere", http.StatusMovedPermanently)
		}, owed: 2, requests: 1, log: "redirects"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newRecorder(t, tc.reply)
			s := &sleeps{}
			n, logs := open(t, setup(t, "indexnow", srv.URL+"/indexnow", "", ""), s)
			n.Note(pages(2), nil, true, false)
			res := n.Flush(context.Background())
			if res[0].Owed != tc.owed {
				t.Errorf("owed after the run = %d, want %d (result %+v)", res[0].Owed, tc.owed, res[0])
			}
			if (tc.owed == 0) != (res[0].Err == nil) && tc.name != "400 dropped" {
				t.Errorf("result error = %v with %d owed", res[0].Err, tc.owed)
			}
			reqs := srv.requests()
			if len(reqs) != tc.requests {
				t.Errorf("%d requests, want %d: %+v", len(reqs), tc.requests, reqs)
			}
			for _, r := range reqs {
				if r.method != http.MethodPost || r.path != "/indexnow" {
					t.Errorf("request %s %s: want only POSTs to /indexnow", r.method, r.path)
				}
			}
			if tc.sleeps != nil {
				for i, d := range s.d {
					// Date-based waits lose a little to the clock.
					if i >= len(tc.sleeps) || d > tc.sleeps[i] || d < tc.sleeps[i]-2*time.Second {
						t.Errorf("waits = %v, want %v", s.d, tc.sleeps)
						break
					}
				}
			}
			if tc.log != "" && logs.FilterMessageSnippet(tc.log).Len() == 0 {
				t.Errorf("no log message mentions %q; got %v", tc.log, messages(logs))
			}
		})
	}
}

func messages(logs *observer.ObservedLogs) []string {
	var out []string
	for _, e := range logs.All() {
		out = append(out, e.Message)
	}
	return out
}

// TestIndexNowRedirect307 re-POSTs the same body, and gives up after three
// hops.
func TestIndexNowRedirect307(t *testing.T) {
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/new", http.StatusTemporaryRedirect)
			return
		}
		w.WriteHeader(200)
	})
	n, _ := open(t, setup(t, "indexnow", srv.URL+"/old", "", ""), nil)
	n.Note(pages(3), nil, true, false)
	if res := n.Flush(context.Background()); res[0].Err != nil || res[0].Sent != 3 {
		t.Fatalf("result %+v", res[0])
	}
	reqs := srv.requests()
	if len(reqs) != 2 || reqs[1].method != http.MethodPost || len(reqs[1].body.URLList) != 3 {
		t.Errorf("requests %+v, want the POST repeated with its body at /new", reqs)
	}

	loop := newRecorder(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		http.Redirect(w, r, r.URL.Path+"x", http.StatusPermanentRedirect)
	})
	n2, _ := open(t, setup(t, "indexnow", loop.URL+"/a", "", ""), nil)
	n2.Note(pages(1), nil, true, false)
	if res := n2.Flush(context.Background()); res[0].Err == nil || res[0].Owed != 1 {
		t.Errorf("redirect loop: result %+v, want an error and the URL still owed", res[0])
	}
	if got := len(loop.requests()); got != maxRedirects {
		t.Errorf("%d requests in the redirect loop, want %d (one run, no retries)", got, maxRedirects)
	}
}

// TestIndexNowBatching checks the request bodies and the 10,000-URL limit
// the protocol sets on one POST.
func TestIndexNowBatching(t *testing.T) {
	for _, tc := range []struct {
		urls  int
		sizes []int
	}{{10_000, []int{10_000}}, {10_001, []int{10_000, 1}}, {25_000, []int{10_000, 10_000, 5_000}}} {
		t.Run(fmt.Sprint(tc.urls), func(t *testing.T) {
			srv := newRecorder(t, status(200))
			n, _ := open(t, setup(t, "indexnow", srv.URL, "", ""), nil)
			urls := append(pages(tc.urls), "https://other.example/x.html")
			n.Note(urls, nil, true, false)
			if res := n.Flush(context.Background()); res[0].Sent != tc.urls || res[0].Owed != 0 {
				t.Errorf("result %+v", res[0])
			}
			reqs := srv.requests()
			if len(reqs) != len(tc.sizes) {
				t.Fatalf("%d POSTs, want %d", len(reqs), len(tc.sizes))
			}
			seen := map[string]bool{}
			for i, r := range reqs {
				b := r.body
				if len(b.URLList) != tc.sizes[i] || b.Host != "static.test" || b.Key != testKey ||
					b.KeyLocation != "https://static.test/"+testKey+".txt" {
					t.Errorf("POST %d: host %q key %q keyLocation %q, %d URLs", i, b.Host, b.Key, b.KeyLocation, len(b.URLList))
				}
				if !strings.HasPrefix(r.ua, "sitemapd/1.2.3") {
					t.Errorf("User-Agent %q does not name sitemapd and its version", r.ua)
				}
				for _, u := range b.URLList {
					if !strings.HasPrefix(u, "https://static.test/") || seen[u] {
						t.Errorf("URL %s sent twice or of another host", u)
					}
					seen[u] = true
				}
			}
		})
	}
}

// TestCoalescing: a URL owed many times is sent once; nothing owed, nothing
// sent.
func TestCoalescing(t *testing.T) {
	srv := newRecorder(t, status(200))
	n, _ := open(t, setup(t, "indexnow", srv.URL, "", ""), nil)
	for range 10 {
		n.Note([]string{"https://static.test/a.html"}, nil, true, false)
	}
	n.Flush(context.Background())
	n.Flush(context.Background())
	reqs := srv.requests()
	if len(reqs) != 1 || len(reqs[0].body.URLList) != 1 {
		t.Errorf("requests %+v, want one POST of one URL", reqs)
	}
}

// TestPing covers the classic ping: the index URL arrives exactly after
// query decoding (its & and ? are escaped, not split off), and a 404 or 410 disables
// the endpoint until its URL changes, across restarts, with one warning:
// retired ping URLs answer so forever.
func TestPing(t *testing.T) {
	const index = "https://static.test/a&b?c=d/caf\u00e9/sitemap_index.xml"
	srv := newRecorder(t, status(200))
	n, _ := open(t, setup(t, "ping", srv.URL+"/ping?sitemap={sitemap}&x=1", "", ""), nil)
	n.Note(nil, []string{index}, true, false)
	if res := n.Flush(context.Background()); res[0].Sent != 1 || res[0].Owed != 0 {
		t.Errorf("result %+v", res[0])
	}
	reqs := srv.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	q, err := url.ParseQuery(reqs[0].query)
	if err != nil || q.Get("sitemap") != index || q.Get("x") != "1" {
		t.Errorf("query %q decodes to %v, want sitemap=%q", reqs[0].query, q, index)
	}

	for _, code := range []int{404, 410} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			gone := newRecorder(t, status(code))
			state := t.TempDir()
			cfg := setup(t, "ping", gone.URL+"/?s={sitemap}", state, "")
			n, logs := open(t, cfg, nil)
			n.Note(nil, []string{"https://static.test/sitemap_index.xml"}, true, false)
			n.Flush(context.Background())
			n.Note(nil, []string{"https://static.test/sitemap_index.xml"}, true, false)
			n.Flush(context.Background())
			if got := len(gone.requests()); got != 1 {
				t.Errorf("%d requests, want 1: no retry, no call once gone", got)
			}
			if got := logs.FilterMessageSnippet("gone").Len(); got != 1 {
				t.Errorf("%d warnings, want 1", got)
			}
			n.Close()
			// A restart keeps it disabled; a new URL enables it again.
			n2, _ := open(t, cfg, nil)
			n2.Note(nil, []string{"https://static.test/sitemap_index.xml"}, true, false)
			n2.Flush(context.Background())
			if got := len(gone.requests()); got != 1 {
				t.Errorf("%d requests after a restart, want still 1", got)
			}
			n2.Close()
			ok := newRecorder(t, status(200))
			n3, _ := open(t, setup(t, "ping", ok.URL+"/?s={sitemap}", state, ""), nil)
			n3.Note(nil, []string{"https://static.test/sitemap_index.xml"}, true, false)
			n3.Flush(context.Background())
			if got := len(ok.requests()); got != 1 {
				t.Errorf("%d requests to the new URL, want 1", got)
			}
		})
	}
}
