package ping

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sitemapd/sitemapd/internal/config"
)

// The timing of Run's sends, on synctest's fake clock: time moves only
// when every goroutine of the test waits, so a request's time is exact.
// The endpoints answer in memory (memEndpoints), since fake time stands
// still while a goroutine waits on a real socket; the HTTP exchange
// itself is tested on 127.0.0.1 in ping_test.go, and the whole process's
// timing in cmd/sitemapd (TestIndexNowWithinSeconds).

// memRequest is one POST an in-memory endpoint received.
type memRequest struct {
	at   time.Time
	host string // the endpoint's host: which endpoint it was
	urls []string
}

// memEndpoints answers every endpoint's requests in memory, recording
// them; reply gives the status and headers of the nth request (0-based)
// to a host, and may block.
type memEndpoints struct {
	mu    sync.Mutex
	reqs  []memRequest
	reply func(host string, n int) (int, http.Header)
}

func (m *memEndpoints) RoundTrip(r *http.Request) (*http.Response, error) {
	var body indexNowBody
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		return nil, err
	}
	m.mu.Lock()
	k := 0
	for _, q := range m.reqs {
		if q.host == r.URL.Host {
			k++
		}
	}
	m.reqs = append(m.reqs, memRequest{at: time.Now(), host: r.URL.Host, urls: body.URLList})
	m.mu.Unlock()
	code, h := http.StatusOK, http.Header{}
	if m.reply != nil {
		code, h = m.reply(r.URL.Host, k)
	}
	return &http.Response{StatusCode: code, Status: http.StatusText(code), Header: h, Body: io.NopCloser(strings.NewReader(""))}, nil
}

// to returns the requests made to host.
func (m *memEndpoints) to(host string) []memRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []memRequest
	for _, q := range m.reqs {
		if q.host == host {
			out = append(out, q)
		}
	}
	return out
}

// timingConfig is a site with IndexNow endpoints a.test and b.test (more
// keys of each in keys), notify.schedule every minute.
func timingConfig(t *testing.T, stateDir, keys string) *config.Config {
	t.Helper()
	root := t.TempDir()
	var eps []string
	for _, h := range []string{"a", "b"} {
		eps = append(eps, fmt.Sprintf("{name: %s, kind: indexnow, url: \"http://%s.test/indexnow\", key: %s%s}", h, h, testKey, keys))
	}
	yml := fmt.Sprintf("root: %q\nbase_url: https://static.test/\nstate_dir: %q\nnotify:\n  schedule: \"@every 1m\"\n  attempts: 3\n  endpoints: [%s]\n",
		root, stateDir, strings.Join(eps, ", "))
	cfg, err := config.Load([]byte(yml), filepath.Join(root, "test.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// running opens a Notifier on cfg whose requests m answers, and runs it
// until the test ends.
func running(t *testing.T, cfg *config.Config, m *memEndpoints) *Notifier {
	t.Helper()
	n, _ := open(t, cfg, nil)
	n.client.Transport = m
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- n.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	synctest.Wait()
	return n
}

func page(i int) string { return fmt.Sprintf("https://static.test/p%05d.html", i) }

// TestDelayWindow: an IndexNow endpoint is sent exactly its delay (5 s by
// default) after the first change it is owed; the changes owed during
// that window go in the same POST (100 changes over 3 s: one POST); a
// change owed while the POST is under way opens the next window; and
// with nothing owed nothing is sent.
func TestDelayWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		m := &memEndpoints{reply: func(host string, k int) (int, http.Header) {
			if host == "a.test" && k == 0 {
				<-release // the first POST is under way until released
			}
			return http.StatusOK, nil
		}}
		n := running(t, timingConfig(t, t.TempDir(), ""), m)
		time.Sleep(time.Minute)
		synctest.Wait()
		if got := len(m.to("a.test")) + len(m.to("b.test")); got != 0 {
			t.Fatalf("%d requests with nothing owed", got)
		}
		first := time.Now()
		for i := range 100 { // 100 changes in 3 s, each a publish
			n.Note([]string{page(i)}, nil, true, false)
			if i == 0 {
				if next := n.Stats()[0].NextTry; !next.Equal(first.Add(config.DefaultDelay)) {
					t.Errorf("NextTry %v, want %v: the default delay after the first change", next, first.Add(config.DefaultDelay))
				}
			}
			time.Sleep(30 * time.Millisecond)
		}
		time.Sleep(first.Add(config.DefaultDelay).Sub(time.Now()) - time.Millisecond)
		synctest.Wait()
		if got := len(m.to("a.test")); got != 0 {
			t.Fatalf("%d POSTs before the window's end", got)
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		// b answered; a's POST is under way: a change now is owed anew.
		for _, host := range []string{"a.test", "b.test"} {
			reqs := m.to(host)
			if len(reqs) != 1 || !reqs[0].at.Equal(first.Add(config.DefaultDelay)) || len(reqs[0].urls) != 100 {
				t.Fatalf("%s: %d POSTs (%+v), want one of the 100 URLs at the window's end", host, len(reqs), reqs)
			}
		}
		if st := n.Stats()[0]; st.Owed != 100 || !st.NextTry.IsZero() {
			t.Errorf("while a's POST is under way: %+v, want 100 owed, no NextTry", st)
		}
		time.Sleep(2 * time.Second)
		again := time.Now()
		n.Note([]string{page(0), page(100)}, nil, true, false)
		close(release)
		time.Sleep(time.Hour)
		synctest.Wait()
		reqs := m.to("a.test")
		if len(reqs) != 2 || !reqs[1].at.Equal(again.Add(config.DefaultDelay)) || !slices.Equal(reqs[1].urls, []string{page(0), page(100)}) {
			t.Errorf("a's requests %+v: want a second POST, of the two URLs owed during the first, 5 s after they were", reqs)
		}
		if st := n.Stats()[0]; st.Owed != 0 || !st.NextTry.IsZero() {
			t.Errorf("after it all: %+v", st)
		}
	})
}

// TestDelayBatches: the changes of one window beyond IndexNow's 10,000
// URLs a POST go in further POSTs, at the same moment.
func TestDelayBatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := &memEndpoints{}
		n := running(t, timingConfig(t, t.TempDir(), ", delay: 2s"), m)
		start := time.Now()
		n.Note(pages(10_001), nil, true, false)
		time.Sleep(time.Minute)
		synctest.Wait()
		reqs := m.to("a.test")
		if len(reqs) != 2 || len(reqs[0].urls) != IndexNowBatch || len(reqs[1].urls) != 1 {
			t.Fatalf("%d POSTs, want 2: of 10,000 URLs and of 1", len(reqs))
		}
		for _, r := range reqs {
			if !r.at.Equal(start.Add(2 * time.Second)) {
				t.Errorf("a POST at %v, want %v (delay: 2s)", r.at.Sub(start), 2*time.Second)
			}
		}
	})
}

// TestRetryAfterHold: a 429 with Retry-After: 30 holds that endpoint,
// not the other, for 30 s; the changes owed meanwhile accumulate and go,
// with what it refused, in one POST when the hold ends. The hold is in
// the state file: a notifier started on it (after a kill -9) within the
// hold still waits for its end, and `sitemapd ping` (Flush) does not call
// the endpoint.
func TestRetryAfterHold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		state := t.TempDir()
		m := &memEndpoints{reply: func(host string, k int) (int, http.Header) {
			if host == "a.test" && k == 0 {
				return http.StatusTooManyRequests, http.Header{"Retry-After": {"30"}}
			}
			return http.StatusOK, nil
		}}
		cfg := timingConfig(t, state, "")
		n := running(t, cfg, m)
		start := time.Now()
		n.Note([]string{page(1)}, nil, true, false)
		time.Sleep(config.DefaultDelay)
		synctest.Wait()
		refused := start.Add(config.DefaultDelay)
		if st := n.Stats()[0]; !st.HeldUntil.Equal(refused.Add(30*time.Second)) || !st.NextTry.Equal(st.HeldUntil) || st.Owed != 1 {
			t.Errorf("after the 429: %+v, want held and next tried 30 s after it", st)
		}
		for i := 2; i <= 4; i++ { // changes keep coming during the hold
			time.Sleep(5 * time.Second)
			n.Note([]string{page(i)}, nil, true, false)
		}
		time.Sleep(config.DefaultDelay)
		synctest.Wait()
		var toB []string
		for _, r := range m.to("b.test") {
			toB = append(toB, r.urls...)
		}
		slices.Sort(toB)
		if a := m.to("a.test"); len(a) != 1 || !slices.Equal(toB, []string{page(1), page(2), page(3), page(4)}) {
			t.Errorf("during a's hold: a %d POSTs, want only the one refused; b received %q, want every URL (b is not held)", len(a), toB)
		}
		time.Sleep(refused.Add(30 * time.Second).Sub(time.Now()))
		synctest.Wait()
		a := m.to("a.test")
		if len(a) != 2 || !a[1].at.Equal(refused.Add(30*time.Second)) || !slices.Equal(a[1].urls, []string{page(1), page(2), page(3), page(4)}) {
			t.Errorf("a's POSTs %+v: want one more, of all four URLs, as the hold ends", a)
		}
		if st := n.Stats()[0]; !st.HeldUntil.IsZero() || st.Owed != 0 {
			t.Errorf("after the hold: %+v", st)
		}
	})
}

// TestHoldSurvivesRestart: a notifier stopped within a hold (its state as
// a kill -9 leaves it: the hold was saved when it began) and started
// again still holds until the time the endpoint asked for, then sends all
// it owes; Flush meanwhile refuses to call it.
func TestHoldSurvivesRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		state := t.TempDir()
		m := &memEndpoints{reply: func(host string, k int) (int, http.Header) {
			if k == 0 {
				return http.StatusServiceUnavailable, http.Header{"Retry-After": {"30"}}
			}
			return http.StatusOK, nil
		}}
		cfg := timingConfig(t, state, "")
		n, _ := open(t, cfg, nil)
		n.client.Transport = m
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- n.Run(ctx) }()
		n.Note([]string{page(1)}, nil, true, false)
		time.Sleep(config.DefaultDelay)
		synctest.Wait()
		until := time.Now().Add(30 * time.Second)
		n.Note([]string{page(2)}, nil, true, false)
		time.Sleep(10 * time.Second)
		cancel()
		<-done
		n.Close()

		n2, _ := open(t, cfg, nil)
		n2.client.Transport = m
		if st := n2.Stats()[0]; !st.HeldUntil.Equal(until) || st.Owed != 2 {
			t.Fatalf("restarted within the hold: %+v, want held until %v with 2 owed", st, until)
		}
		res := n2.Flush(context.Background())
		if res[0].Err == nil || !strings.Contains(res[0].Err.Error(), "held until") || len(m.to("a.test")) != 1 {
			t.Errorf("Flush within the hold: %+v, %d requests to a; want it refused, no request", res[0], len(m.to("a.test")))
		}
		ctx, cancel = context.WithCancel(context.Background())
		defer cancel()
		go n2.Run(ctx)
		synctest.Wait()
		if next := n2.Stats()[0].NextTry; !next.Equal(until) {
			t.Errorf("NextTry %v, want the hold's end %v", next, until)
		}
		time.Sleep(until.Sub(time.Now()))
		synctest.Wait()
		a := m.to("a.test")
		if len(a) != 2 || !a[1].at.Equal(until) || !slices.Equal(a[1].urls, []string{page(1), page(2)}) {
			t.Errorf("a's POSTs %+v: want the second, of both URLs, at the hold's end", a)
		}
	})
}

// TestFailureWaitsForSchedule: a run that fails without Retry-After (500
// after every attempt) holds a delayed endpoint until notify.schedule's
// next turn, changes meanwhile waiting with it, rather than calling a
// failing engine at every publish.
func TestFailureWaitsForSchedule(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := &memEndpoints{reply: func(host string, k int) (int, http.Header) {
			if host == "a.test" && k < 3 {
				return http.StatusInternalServerError, nil
			}
			return http.StatusOK, nil
		}}
		n := running(t, timingConfig(t, t.TempDir(), ""), m)
		start := time.Now()
		n.Note([]string{page(1)}, nil, true, false)
		time.Sleep(config.DefaultDelay)
		synctest.Wait()
		if got := len(m.to("a.test")); got != 3 {
			t.Fatalf("%d attempts, want notify.attempts (3)", got)
		}
		turn := start.Add(config.DefaultDelay + time.Minute) // @every 1m, from now
		if st := n.Stats()[0]; !st.NextTry.Equal(turn) || !st.HeldUntil.IsZero() {
			t.Errorf("after the failed run: %+v, want NextTry %v and no Retry-After hold", st, turn)
		}
		time.Sleep(10 * time.Second)
		n.Note([]string{page(2)}, nil, true, false)
		time.Sleep(turn.Sub(time.Now()))
		synctest.Wait()
		a := m.to("a.test")
		if len(a) != 4 || !a[3].at.Equal(turn) || !slices.Equal(a[3].urls, []string{page(1), page(2)}) {
			t.Errorf("a's POSTs %+v: want a fourth, of both URLs, at the schedule's turn", a)
		}
	})
}

// TestScheduledHold: an endpoint on a schedule of its own is held by a
// Retry-After as well: the turn that comes within the hold waits for its
// end, and then sends what was owed meanwhile too.
func TestScheduledHold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := &memEndpoints{reply: func(host string, k int) (int, http.Header) {
			if k == 0 {
				return http.StatusTooManyRequests, http.Header{"Retry-After": {"90"}}
			}
			return http.StatusOK, nil
		}}
		n := running(t, timingConfig(t, t.TempDir(), `, schedule: "@every 1m"`), m)
		start := time.Now()
		n.Note([]string{page(1)}, nil, true, false)
		time.Sleep(time.Minute) // the first turn: 429, held until 2m30s
		synctest.Wait()
		n.Note([]string{page(2)}, nil, true, false)
		time.Sleep(time.Minute + 29*time.Second) // the second turn waits
		synctest.Wait()
		if got := len(m.to("a.test")); got != 1 {
			t.Fatalf("%d POSTs within the hold, want only the refused one", got)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		a := m.to("a.test")
		if len(a) != 2 || !a[1].at.Equal(start.Add(150*time.Second)) || !slices.Equal(a[1].urls, []string{page(1), page(2)}) {
			t.Errorf("a's POSTs %+v: want a second, of both URLs, as the hold ends", a)
		}
	})
}
