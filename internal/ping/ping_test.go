package ping

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
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
func setup(t *testing.T, kind, url, stateDir, extra string) *config.Config {
	t.Helper()
	root := t.TempDir()
	if stateDir == "" {
		stateDir = t.TempDir()
	}
	ep := fmt.Sprintf("{name: ep, kind: %s, url: %q", kind, url)
	if kind == "indexnow" {
		ep += ", key: " + testKey
	}
	yml := fmt.Sprintf("root: %q\nbase_url: https://example.com/\nstate_dir: %q\nnotify:\n  schedule: \"@every 1m\"\n  attempts: 3\n  max_backoff: 30s\n  endpoints: [%s}]\n%s",
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
		out[i] = fmt.Sprintf("https://example.com/p%05d.html", i)
	}
	return out
}

// TestIndexNowStatuses follows RELIABILITY.md §7 C 35–39 and 42: what each
// answer does to the batch, and how often it is tried.
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
// (RELIABILITY.md §7 C 43).
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
				if len(b.URLList) != tc.sizes[i] || b.Host != "example.com" || b.Key != testKey ||
					b.KeyLocation != "https://example.com/"+testKey+".txt" {
					t.Errorf("POST %d: host %q key %q keyLocation %q, %d URLs", i, b.Host, b.Key, b.KeyLocation, len(b.URLList))
				}
				if !strings.HasPrefix(r.ua, "sitemapd/1.2.3") {
					t.Errorf("User-Agent %q does not name sitemapd and its version", r.ua)
				}
				for _, u := range b.URLList {
					if !strings.HasPrefix(u, "https://example.com/") || seen[u] {
						t.Errorf("URL %s sent twice or of another host", u)
					}
					seen[u] = true
				}
			}
		})
	}
}

// TestCoalescing: a URL owed many times is sent once; nothing owed, nothing
// sent (§7 C 45).
func TestCoalescing(t *testing.T) {
	srv := newRecorder(t, status(200))
	n, _ := open(t, setup(t, "indexnow", srv.URL, "", ""), nil)
	for range 10 {
		n.Note([]string{"https://example.com/a.html"}, nil, true, false)
	}
	n.Flush(context.Background())
	n.Flush(context.Background())
	reqs := srv.requests()
	if len(reqs) != 1 || len(reqs[0].body.URLList) != 1 {
		t.Errorf("requests %+v, want one POST of one URL", reqs)
	}
}

// TestPing covers the classic ping: the index URL arrives exactly after
// query decoding (§7 C 47), and a 404 or 410 disables the endpoint until
// its URL changes, across restarts, with one warning (§7 C 37).
func TestPing(t *testing.T) {
	const index = "https://example.com/a&b?c=d/caf\u00e9/sitemap_index.xml"
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
			n.Note(nil, []string{"https://example.com/sitemap_index.xml"}, true, false)
			n.Flush(context.Background())
			n.Note(nil, []string{"https://example.com/sitemap_index.xml"}, true, false)
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
			n2.Note(nil, []string{"https://example.com/sitemap_index.xml"}, true, false)
			n2.Flush(context.Background())
			if got := len(gone.requests()); got != 1 {
				t.Errorf("%d requests after a restart, want still 1", got)
			}
			n2.Close()
			ok := newRecorder(t, status(200))
			n3, _ := open(t, setup(t, "ping", ok.URL+"/?s={sitemap}", state, ""), nil)
			n3.Note(nil, []string{"https://example.com/sitemap_index.xml"}, true, false)
			n3.Flush(context.Background())
			if got := len(ok.requests()); got != 1 {
				t.Errorf("%d requests to the new URL, want 1", got)
			}
		})
	}
}

// TestHungServer: a server that never answers costs one timeout per
// attempt, and the URLs stay owed (§7 C 40). Canceling the run ends it.
func TestHungServer(t *testing.T) {
	release := make(chan struct{})
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	n, _ := open(t, setup(t, "indexnow", srv.URL, "", "  timeout: 200ms\n"), nil)
	n.Note(pages(1), nil, true, false)
	res := n.Flush(context.Background())
	if res[0].Err == nil || res[0].Owed != 1 || len(srv.requests()) != 3 {
		t.Errorf("result %+v after %d requests, want a timeout error, 1 owed, 3 attempts", res[0], len(srv.requests()))
	}

	ctx, cancel := context.WithCancel(context.Background())
	n2, _ := open(t, setup(t, "indexnow", srv.URL, "", "  timeout: 1h\n"), nil)
	n2.Note(pages(1), nil, true, false)
	done := make(chan []Result)
	go func() { done <- n2.Flush(ctx) }()
	for len(srv.requests()) < 4 {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if res := <-done; !errors.Is(res[0].Err, context.Canceled) || res[0].Owed != 1 {
		t.Errorf("canceled run: %+v", res[0])
	}
}

// TestHugeBody: at most maxBody bytes of an endless answer are read (§7 C
// 41); the server sees its connection closed long before it is done.
func TestHugeBody(t *testing.T) {
	wrote := make(chan int64, 1)
	srv := newRecorder(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		w.WriteHeader(400)
		chunk := make([]byte, 32<<10)
		var total int64
		for total < 100<<20 {
			k, err := w.Write(chunk)
			total += int64(k)
			if err != nil {
				break
			}
		}
		wrote <- total
	})
	n, logs := open(t, setup(t, "indexnow", srv.URL, "", ""), nil)
	n.Note(pages(1), nil, true, false)
	n.Flush(context.Background())
	if total := <-wrote; total >= 100<<20 {
		t.Errorf("the client read all %d bytes", total)
	}
	for _, e := range logs.FilterMessageSnippet("dropped").All() {
		if b, ok := e.ContextMap()["body"].(string); !ok || len(b) > logBody {
			t.Errorf("logged body of %d bytes, want at most %d", len(b), logBody)
		}
	}
}

// TestNetworkDown: connection refused is retried, then waits for the next
// run without loss (§7 C 48).
func TestNetworkDown(t *testing.T) {
	srv := newRecorder(t, status(200))
	addr := srv.URL
	srv.Close()
	s := &sleeps{}
	n, _ := open(t, setup(t, "indexnow", addr, "", ""), s)
	n.Note(pages(2), nil, true, false)
	if res := n.Flush(context.Background()); res[0].Err == nil || res[0].Owed != 2 {
		t.Errorf("result %+v", res[0])
	}
	if len(s.d) != 2 {
		t.Errorf("waits %v, want 2 (3 attempts)", s.d)
	}
	st := n.Stats()[0]
	if st.Attempts != 3 || st.Failures != 3 || st.Owed != 2 || st.LastError == "" {
		t.Errorf("stats %+v", st)
	}
}

// TestBackoff: full jitter within [0, min(cap, base·2^(n-1))].
func TestBackoff(t *testing.T) {
	n, _ := open(t, setup(t, "indexnow", "http://127.0.0.1:1/", "", ""), nil)
	for attempt := 1; attempt <= 40; attempt++ {
		ceiling := min(30*time.Second, time.Second<<min(attempt-1, 30))
		var top time.Duration
		for range 200 {
			d := n.backoff(attempt)
			if d < 0 || d > ceiling {
				t.Fatalf("attempt %d: wait %v outside [0, %v]", attempt, d, ceiling)
			}
			top = max(top, d)
		}
		if top < ceiling/2 {
			t.Errorf("attempt %d: 200 waits all below %v: no jitter over the range", attempt, ceiling/2)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		h    string
		want time.Duration
	}{
		{"", 0}, {"2", 2 * time.Second}, {" 120 ", 2 * time.Minute}, {"0", 0}, {"-5", 0}, {"soon", 0},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0},
		{"99999999999999999", 365 * 24 * time.Hour},
	} {
		if got := retryAfter(tc.h, now); got != tc.want {
			t.Errorf("retryAfter(%q) = %v, want %v", tc.h, got, tc.want)
		}
	}
}

// TestStatePersists: what is owed survives a restart; a corrupt state file
// is moved aside with a warning, and a second process is refused.
func TestStatePersists(t *testing.T) {
	state := t.TempDir()
	srv := newRecorder(t, status(503))
	cfg := setup(t, "indexnow", srv.URL, state, "")
	n, _ := open(t, cfg, nil)
	n.Note(pages(3), nil, true, false)
	n.Flush(context.Background())
	if _, err := New(cfg, nil); !errors.Is(err, ErrLocked) {
		t.Errorf("second New on the same state: %v, want ErrLocked", err)
	}
	n.Close()
	n2, _ := open(t, cfg, nil)
	if got := n2.Stats()[0].Owed; got != 3 {
		t.Errorf("%d owed after a restart, want 3", got)
	}
	n2.Close()

	for _, bad := range []string{"{not json", `{"version": 99, "endpoints": {}}`} {
		os.WriteFile(filepath.Join(state, StateFile), []byte(bad), 0o600)
		n3, logs := open(t, cfg, nil)
		if got := n3.Stats()[0].Owed; got != 0 {
			t.Errorf("%d owed from a corrupt state", got)
		}
		if logs.FilterMessageSnippet("moved it aside").Len() != 1 {
			t.Errorf("no warning about the corrupt state; logs %v", messages(logs))
		}
		n3.Close()
		aside, _ := filepath.Glob(filepath.Join(state, StateFile+".corrupt-*"))
		if len(aside) == 0 {
			t.Error("the corrupt state file was not kept aside")
		}
		for _, a := range aside {
			os.Remove(a)
		}
	}
}

// TestFirstRun: on a site never notified, the first build's URLs are not
// submitted (the sitemaps announce them); the index is pinged.
func TestFirstRun(t *testing.T) {
	srv := newRecorder(t, status(200))
	cfg := setup(t, "indexnow", srv.URL, "", "")
	core, _ := observer.New(zap.InfoLevel)
	n, err := New(cfg, zap.New(core))
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	n.Note(pages(5), []string{"https://example.com/sitemap_index.xml"}, true, true)
	if got := n.Stats()[0].Owed; got != 0 {
		t.Errorf("%d URLs owed after the first build of a new site, want 0", got)
	}
	n.Note(pages(2), nil, true, false)
	if got := n.Stats()[0].Owed; got != 2 {
		t.Errorf("%d URLs owed after a later change, want 2", got)
	}
}

// TestPlan: a dry run lists the requests and sends nothing.
func TestPlan(t *testing.T) {
	srv := newRecorder(t, status(200))
	n, _ := open(t, setup(t, "indexnow", srv.URL, "", ""), nil)
	n.Note(pages(10_001), nil, true, false)
	plan := n.Plan()
	if len(plan) != 2 || len(plan[0].URLs) != 10_000 || plan[1].Method != http.MethodPost {
		t.Errorf("plan %+v", plan)
	}
	if len(srv.requests()) != 0 {
		t.Error("Plan sent requests")
	}
}

// roundTripper answers in memory. Only the schedule test uses it: inside
// a synctest bubble, fake time stands still while a goroutine waits on a
// real socket, so the HTTP exchange itself is tested above, on 127.0.0.1.
type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestSchedule runs the cron loop on fake time: a run per period, nothing
// sent when nothing is owed, a run still going when the next is due skips
// that turn, a panic is survived, and cancel stops it all (§7 D 52).
func TestSchedule(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := setup(t, "indexnow", "http://127.0.0.1:1/", "", "")
		n, logs := open(t, cfg, nil)
		var mu sync.Mutex
		calls, running, most := 0, 0, 0
		hold := make(chan struct{})
		n.client.Transport = roundTripper(func(r *http.Request) (*http.Response, error) {
			mu.Lock()
			calls++
			running++
			most = max(most, running)
			k := calls
			mu.Unlock()
			defer func() { mu.Lock(); running--; mu.Unlock() }()
			switch k {
			case 1:
				<-hold // outlives two periods
			case 2:
				panic("boom")
			}
			return &http.Response{StatusCode: 200, Body: http.NoBody, Header: http.Header{}}, nil
		})
		count := func() int { mu.Lock(); defer mu.Unlock(); return calls }
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- n.Run(ctx) }()

		time.Sleep(90 * time.Second)
		synctest.Wait()
		if got := count(); got != 0 {
			t.Fatalf("%d requests with nothing owed", got)
		}
		n.Note(pages(1), nil, true, false)
		time.Sleep(60 * time.Second) // one run starts and hangs
		synctest.Wait()
		time.Sleep(120 * time.Second) // two turns come while it runs
		synctest.Wait()
		if got := count(); got != 1 {
			t.Errorf("%d requests while the first run hangs, want 1", got)
		}
		close(hold)
		synctest.Wait()
		n.Note(pages(2), nil, true, false)
		time.Sleep(60 * time.Second) // this run panics
		synctest.Wait()
		time.Sleep(60 * time.Second) // and the next one delivers
		synctest.Wait()
		if got := count(); got != 3 {
			t.Errorf("%d requests, want 3", got)
		}
		if most != 1 {
			t.Errorf("%d runs at once, want 1", most)
		}
		if logs.FilterMessageSnippet("panic").Len() == 0 {
			t.Errorf("the panic was not logged: %v", messages(logs))
		}
		if got := n.Stats()[0].Owed; got != 0 {
			t.Errorf("%d still owed", got)
		}
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
}
