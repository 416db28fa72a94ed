package searchconsole

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/config"
)

// A sitemaps.get answer as the API gives it: its longs as JSON strings.
const viewDoc = `{"path": "%s", "lastSubmitted": "2026-11-20T10:00:00.000Z", "isPending": false, "isSitemapsIndex": true,
 "lastDownloaded": "2026-11-21T08:30:00.000Z", "warnings": "1", "errors": "2",
 "contents": [{"type": "web", "submitted": "120", "indexed": "0"}, {"type": "image", "submitted": "7"}]}`

// rig is a client on a fake Google with a fake clock and sleeps.
type rig struct {
	t      *testing.T
	g      *fakeGoogle
	c      *Client
	cfg    *config.Config
	ep     config.Endpoint
	clock  time.Time
	mu     sync.Mutex
	sleeps []time.Duration
}

func newRig(t *testing.T, property string) *rig {
	t.Helper()
	r := &rig{t: t, g: newFakeGoogle(t), clock: time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)}
	cfg := config.Default()
	cfg.StateDir = t.TempDir()
	cfg.Notify.Attempts = 3
	r.cfg = &cfg
	r.ep = config.Endpoint{Name: "google", Kind: config.SearchConsole, Property: property, Credentials: r.g.keyFile}
	r.open()
	return r
}

// open makes the client (again, on the same state directory).
func (r *rig) open() {
	c, err := New(r.cfg, r.ep, nil, WithAPIBase(r.g.srv.URL+"/webmasters/v3/"), withClock(func() time.Time { return r.clock }),
		withSleep(func(_ context.Context, d time.Duration) error {
			r.mu.Lock()
			r.sleeps = append(r.sleeps, d)
			r.mu.Unlock()
			return nil
		}))
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { c.Close() })
	r.c = c
}

// expect checks the requests the fake received since the last check:
// method and exact request URI, an empty body, the token of the fake.
func (r *rig) expect(want ...string) {
	r.t.Helper()
	var got []string
	for _, q := range r.g.take() {
		got = append(got, q.Method+" "+q.URI)
		if q.Body != "" {
			r.t.Errorf("%s %s carries a body %q: the API wants none", q.Method, q.URI, q.Body)
		}
		if !strings.HasPrefix(q.Auth, "Bearer tok-") {
			r.t.Errorf("%s %s: Authorization %q", q.Method, q.URI, q.Auth)
		}
	}
	if !slices.Equal(got, want) {
		r.t.Errorf("requests:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// TestSubmitAndPoll runs the endpoint against the fake for both kinds of
// property: the paths are the API's (sites/{siteUrl}/sitemaps/{feedpath})
// with each parameter escaped whole, as Google's client libraries expand
// them (RFC 6570: all but unreserved characters percent-encoded).
func TestSubmitAndPoll(t *testing.T) {
	const index = "https://example.test/sitemap_index.xml"
	const renamed = "https://example.test/sitemap-index.xml"
	cases := []struct{ property, site string }{
		{"sc-domain:example.test", "/webmasters/v3/sites/sc-domain%3Aexample.test/sitemaps/"},
		{"https://example.test/", "/webmasters/v3/sites/https%3A%2F%2Fexample.test%2F/sitemaps/"},
	}
	for _, tc := range cases {
		t.Run(tc.property, func(t *testing.T) {
			r := newRig(t, tc.property)
			feed := tc.site + "https%3A%2F%2Fexample.test%2Fsitemap_index.xml"
			feed2 := tc.site + "https%3A%2F%2Fexample.test%2Fsitemap-index.xml"
			r.g.setView(index, strings.Replace(viewDoc, "%s", index, 1))
			ctx := context.Background()

			if d := r.c.pass(ctx); d != PollEvery {
				t.Errorf("before Announce: next pass in %v, want %v", d, PollEvery)
			}
			r.expect() // nothing before the daemon says what the site announces

			r.c.Announce([]string{index, "https://other.test/sitemap.xml", index})
			if d := r.c.pass(ctx); d != PollEvery {
				t.Errorf("next pass in %v, want %v", d, PollEvery)
			}
			r.expect("PUT "+feed, "GET "+feed)
			checkFirstView(t, r, index)

			r.c.Announce([]string{index}) // the same: a change of the index is no reason to submit
			r.c.pass(ctx)
			r.expect()
			r.clock = r.clock.Add(PollEvery)
			r.c.pass(ctx)
			r.expect("GET " + feed)

			r.c.Close() // a restart submits nothing again
			r.open()
			r.c.Announce([]string{index})
			r.c.pass(ctx)
			r.expect("GET " + feed)
			if got := r.c.Status().Sitemaps[0].Submitted; !got.Equal(r.clock.Add(-PollEvery)) {
				t.Errorf("submitted %v after a restart, want %v", got, r.clock.Add(-PollEvery))
			}

			// The index renamed: the new one submitted, the old deleted.
			r.g.setView(renamed, strings.Replace(viewDoc, "%s", renamed, 1))
			r.c.Announce([]string{renamed})
			r.c.pass(ctx)
			r.expect("PUT "+feed2, "DELETE "+feed, "GET "+feed2)
			if n := r.g.issued(); n != 2 {
				t.Errorf("%d tokens asked for: want one per process, reused until it expires", n)
			}
		})
	}
}

// checkFirstView checks what Status says after the first pass: the
// sitemap submitted now, Google's view as the fake gave it, and /healthz
// degraded by its errors.
func checkFirstView(t *testing.T, r *rig, index string) {
	t.Helper()
	st := r.c.Status()
	if len(st.Sitemaps) != 1 || st.Account != testAccount || st.Requests != 2 || st.LastError != "" {
		t.Fatalf("status %+v", st)
	}
	sm := st.Sitemaps[0]
	want := View{URL: index, Polled: r.clock, LastSubmitted: time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC),
		LastDownloaded: time.Date(2026, 11, 21, 8, 30, 0, 0, time.UTC), Index: true, Errors: 2, Warnings: 1,
		Contents: []Content{{"web", 120}, {"image", 7}}}
	if !sm.Submitted.Equal(r.clock) || sm.View == nil || !viewEqual(*sm.View, want) {
		t.Errorf("sitemap %+v view %+v\nwant view %+v", sm, sm.View, want)
	}
	if tr := st.Trouble(r.clock); !strings.Contains(tr, "Google reports 2 errors in sitemap "+index) {
		t.Errorf("trouble %q", tr)
	}
}

func viewEqual(a, b View) bool {
	return a.URL == b.URL && a.Polled.Equal(b.Polled) && a.LastSubmitted.Equal(b.LastSubmitted) &&
		a.LastDownloaded.Equal(b.LastDownloaded) && a.Pending == b.Pending && a.Index == b.Index &&
		a.Errors == b.Errors && a.Warnings == b.Warnings && slices.Equal(a.Contents, b.Contents)
}

const (
	index     = "https://example.test/sitemap_index.xml"
	indexPath = "/webmasters/v3/sites/sc-domain%3Aexample.test/sitemaps/https%3A%2F%2Fexample.test%2Fsitemap_index.xml"
)

// TestFailures: what each kind of failure costs, and how it is reported.
func TestFailures(t *testing.T) {
	forbidden := answer{status: 403, body: `{"error":{"code":403,"message":"User does not have sufficient permission for site 'sc-domain:example.test'. See also: https://support.google.com/webmasters/answer/2451999.","errors":[{"domain":"global","reason":"forbidden"}]}}`}
	quota := answer{status: 403, body: `{"error":{"code":403,"message":"Quota exceeded.","errors":[{"reason":"quotaExceeded"}]}}`}
	unavailable := answer{status: 503, body: `{"error":{"code":503,"message":"The service is currently unavailable.","status":"UNAVAILABLE"}}`}
	cases := []failureCase{
		{name: "not a user of the property", put: []answer{forbidden}, requests: []string{"PUT " + indexPath},
			next: time.Minute, kind: Auth, trouble: true,
			errHas: []string{"HTTP 403 forbidden", "add " + testAccount + " as an owner or full user of sc-domain:example.test"}},
		{name: "rate limited, then taken", put: []answer{{status: 429, body: `{"error":{"code":429,"status":"RESOURCE_EXHAUSTED"}}`, header: map[string]string{"Retry-After": "7"}}},
			requests: []string{"PUT " + indexPath, "PUT " + indexPath, "GET " + indexPath}, sleeps: []time.Duration{7 * time.Second}, next: PollEvery},
		{name: "unavailable", put: []answer{unavailable, unavailable, unavailable, unavailable},
			requests: []string{"PUT " + indexPath, "PUT " + indexPath, "PUT " + indexPath}, maxSleep: []time.Duration{time.Second, 2 * time.Second},
			next: time.Minute, kind: Transient, errHas: []string{"HTTP 503 UNAVAILABLE: The service is currently unavailable."}},
		{name: "quota spent", put: []answer{quota}, requests: []string{"PUT " + indexPath}, next: QuotaWait, kind: Quota,
			errHas: []string{"quotaExceeded", "tries again later"}},
		{name: "key refused", tokenErr: &answer{status: 400, body: `{"error":"invalid_grant","error_description":"Invalid JWT Signature."}`},
			next: time.Minute, kind: Auth, trouble: true, errHas: []string{"invalid_grant", "Invalid JWT Signature.", "Google refused the service account's key " + testAccount}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { failure(t, tc) })
	}
}

// failureCase is a failure of the first submission, and what it costs.
type failureCase struct {
	name     string
	put      []answer
	tokenErr *answer
	requests []string
	sleeps   []time.Duration // exact, or (maxSleep) at most
	maxSleep []time.Duration
	next     time.Duration
	kind     Kind
	errHas   []string
	trouble  bool // /healthz degraded at once
}

// failure runs one: the first pass meets it, then a second pass meets it
// again.
func failure(t *testing.T, tc failureCase) {
	r := newRig(t, "sc-domain:example.test")
	r.g.setView(index, strings.Replace(viewDoc, "%s", index, 1))
	r.g.queue("PUT", tc.put...)
	r.g.tokenErr = tc.tokenErr
	r.c.Announce([]string{index})
	if d := r.c.pass(context.Background()); d != tc.next {
		t.Errorf("next pass in %v, want %v", d, tc.next)
	}
	r.expect(tc.requests...)
	if tc.sleeps != nil && !slices.Equal(r.sleeps, tc.sleeps) {
		t.Errorf("slept %v, want %v", r.sleeps, tc.sleeps)
	}
	if tc.maxSleep != nil {
		if len(r.sleeps) != len(tc.maxSleep) {
			t.Errorf("slept %v, want %d waits", r.sleeps, len(tc.maxSleep))
		}
		for i := range min(len(r.sleeps), len(tc.maxSleep)) {
			if r.sleeps[i] > tc.maxSleep[i] {
				t.Errorf("wait %d: %v, over the backoff's ceiling %v", i+1, r.sleeps[i], tc.maxSleep[i])
			}
		}
	}
	st := r.c.Status()
	if len(tc.errHas) == 0 {
		if st.LastError != "" {
			t.Errorf("last error %q", st.LastError)
		}
		return
	}
	if st.Kind != tc.kind {
		t.Errorf("kind %v, want %v", st.Kind, tc.kind)
	}
	for _, w := range tc.errHas {
		if !strings.Contains(st.LastError, w) {
			t.Errorf("error %q\nlacks %q", st.LastError, w)
		}
	}
	if got := st.Trouble(r.clock) != ""; got != tc.trouble {
		t.Errorf("degraded at once: %v, want %v (%q)", got, tc.trouble, st.Trouble(r.clock))
	}
	if st.Trouble(r.clock.Add(FailingAfter+time.Minute)) == "" {
		t.Errorf("not degraded after failing for over %v", FailingAfter)
	}
	r.g.queue("PUT", tc.put...) // failing again
	want := 2 * tc.next
	if tc.kind == Quota {
		want = QuotaWait // the least wait, more than the doubled minute
	}
	if d := r.c.pass(context.Background()); d != want {
		t.Errorf("second failed pass: next in %v, want %v", d, want)
	}
}

// TestSubmittedAgain: a sitemap Google no longer knows (deleted by hand
// in Search Console) is submitted again.
func TestSubmittedAgain(t *testing.T) {
	r := newRig(t, "sc-domain:example.test")
	r.c.Announce([]string{index})
	r.c.pass(context.Background()) // PUT, then a GET Google answers 404
	r.expect("PUT "+indexPath, "GET "+indexPath)
	r.g.setView(index, strings.Replace(viewDoc, "%s", index, 1))
	select {
	case <-r.c.kick:
	default:
		t.Fatal("no pass asked for at once")
	}
	r.c.pass(context.Background())
	r.expect("PUT "+indexPath, "GET "+indexPath)
}

// TestRun: the loop submits soon after Announce, and stops with its
// context.
func TestRun(t *testing.T) {
	r := newRig(t, "https://example.test/")
	c, err := New(r.cfg, r.ep, nil, WithAPIBase(r.g.srv.URL+"/webmasters/v3/"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r.g.setView(index, strings.Replace(viewDoc, "%s", index, 1))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- c.Run(ctx) }()
	c.Announce([]string{index})
	deadline := time.Now().Add(10 * time.Second)
	for c.Status().Requests < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	st := c.Status()
	if sm := st.Sitemaps; len(sm) != 1 || sm[0].Submitted.IsZero() || sm[0].View == nil || st.NextPoll.IsZero() {
		t.Errorf("status %+v", st)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestReadStatus: what `build -dry-run` shows is what the daemon saved.
func TestReadStatus(t *testing.T) {
	r := newRig(t, "sc-domain:example.test")
	r.g.setView(index, strings.Replace(viewDoc, "%s", index, 1))
	r.c.Announce([]string{index})
	r.c.pass(context.Background())
	other := "https://example.test/news-sitemap_index.xml"
	st := ReadStatus(r.cfg.StateDir, "google", "sc-domain:example.test", []string{other, index})
	if len(st.Sitemaps) != 2 || st.Sitemaps[0].URL != other || !st.Sitemaps[0].Submitted.IsZero() ||
		st.Sitemaps[1].View == nil || st.Sitemaps[1].View.Errors != 2 {
		t.Errorf("%+v", st)
	}
	if st := ReadStatus(r.cfg.StateDir, "google", "sc-domain:other.test", []string{index}); !st.Sitemaps[0].Submitted.IsZero() {
		t.Errorf("another property's state was taken: %+v", st)
	}
}

// TestTokenRefused: a 401 to a call (the token revoked before it
// expired) asks for another token at once and makes the call again.
func TestTokenRefused(t *testing.T) {
	r := newRig(t, "sc-domain:example.test")
	r.g.setView(index, strings.Replace(viewDoc, "%s", index, 1))
	r.c.Announce([]string{index})
	r.c.pass(context.Background())
	r.expect("PUT "+indexPath, "GET "+indexPath)
	r.g.revoke()
	r.clock = r.clock.Add(PollEvery)
	if d := r.c.pass(context.Background()); d != PollEvery {
		t.Errorf("next pass in %v, want %v", d, PollEvery)
	}
	got := r.g.take()
	if len(got) != 2 || got[0].Auth != "Bearer tok-1" || got[1].Auth != "Bearer tok-3" || got[1].Method != "GET" {
		t.Errorf("requests %+v: want the GET refused with tok-1, then made again with a new token", got)
	}
	if st := r.c.Status(); st.LastError != "" || st.Failures != 1 {
		t.Errorf("status %+v", st)
	}
}
