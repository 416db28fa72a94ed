package ping

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sitemapd/sitemapd/internal/config"
)

// attempts collects what an observer is told.
type attempts struct {
	mu  sync.Mutex
	got []Attempt
}

func (a *attempts) add(at Attempt) {
	a.mu.Lock()
	a.got = append(a.got, at)
	a.mu.Unlock()
}

func (a *attempts) list() []Attempt {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Attempt(nil), a.got...)
}

// TestObserverSeesEveryAttempt: WithObserver is told of each HTTP request
// made to an endpoint on 127.0.0.1, retries included, with the endpoint's
// name, the URLs it carried and the status that came, or the error when
// none did; Stats says when the last one was.
func TestObserverSeesEveryAttempt(t *testing.T) {
	down := newRecorder(t, status(200))
	downURL := down.URL
	down.Close()
	type want struct {
		urls, status int
		err          bool
	}
	for _, tc := range []struct {
		name  string
		kind  config.EndpointKind
		reply func(http.ResponseWriter, *http.Request, int)
		url   string // default: the recorder's
		note  func(*Notifier)
		want  []want
	}{
		{name: "indexnow accepted", kind: config.IndexNow, reply: status(200),
			note: func(n *Notifier) { n.Note(pages(3), nil, true, false) },
			want: []want{{urls: 3, status: 200}}},
		{name: "indexnow retried", kind: config.IndexNow,
			reply: func(w http.ResponseWriter, _ *http.Request, i int) { w.WriteHeader([]int{503, 429, 202}[i]) },
			note:  func(n *Notifier) { n.Note(pages(2), nil, true, false) },
			want:  []want{{urls: 2, status: 503}, {urls: 2, status: 429}, {urls: 2, status: 202}}},
		{name: "indexnow batches", kind: config.IndexNow, reply: status(200),
			note: func(n *Notifier) { n.Note(pages(IndexNowBatch+1), nil, true, false) },
			want: []want{{urls: IndexNowBatch, status: 200}, {urls: 1, status: 200}}},
		{name: "indexnow refused", kind: config.IndexNow, reply: status(403),
			note: func(n *Notifier) { n.Note(pages(1), nil, true, false) },
			want: []want{{urls: 1, status: 403}}},
		{name: "ping each index", kind: config.Ping, reply: status(200),
			note: func(n *Notifier) {
				n.Note(nil, []string{"https://static.test/a.xml", "https://static.test/b.xml"}, true, false)
			},
			want: []want{{urls: 1, status: 200}, {urls: 1, status: 200}}},
		{name: "redirect elsewhere refused", kind: config.IndexNow,
			reply: func(w http.ResponseWriter, r *http.Request, _ int) {
				http.Redirect(w, r, "http://elsewhere.test/moved?token=SECRET", http.StatusTemporaryRedirect)
			},
			note: func(n *Notifier) { n.Note(pages(2), nil, true, false) },
			want: []want{{urls: 2, status: 307, err: true}}},
		{name: "network down", kind: config.IndexNow, url: downURL,
			note: func(n *Notifier) { n.Note(pages(2), nil, true, false) },
			want: []want{{urls: 2, err: true}, {urls: 2, err: true}, {urls: 2, err: true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := tc.url
			if url == "" {
				url = newRecorder(t, tc.reply).URL
				if tc.kind == config.Ping {
					url += "/ping?sitemap={sitemap}"
				}
			}
			cfg := setup(t, tc.kind, url, "", "")
			var seen attempts
			n, err := New(cfg, nil, WithSleep(func(context.Context, time.Duration) error { return nil }), WithObserver(seen.add))
			if err != nil {
				t.Fatal(err)
			}
			defer n.Close()
			n.fresh = false
			tc.note(n)
			before := time.Now()
			n.Flush(context.Background())
			got := seen.list()
			if len(got) != len(tc.want) {
				t.Fatalf("observer saw %d attempts, want %d: %+v", len(got), len(tc.want), got)
			}
			for i, a := range got {
				w := tc.want[i]
				if a.Endpoint != "ep" || a.URLs != w.urls || a.Status != w.status || (a.Err != nil) != w.err || a.At.Before(before) {
					t.Errorf("attempt %d: %+v, want %+v", i, a, w)
				}
				if a.Err != nil && (strings.Contains(a.Err.Error(), testKey) || strings.Contains(a.Err.Error(), "SECRET")) {
					t.Errorf("attempt %d: the error shows a secret: %v", i, a.Err)
				}
			}
			if st := n.Stats()[0]; st.LastAttempt.Before(before) || st.Attempts != len(got) {
				t.Errorf("stats %+v after %d attempts", st, len(got))
			}
		})
	}
}

// TestNextTry: Stats' NextTry is the endpoint's next turn on the schedule
// while Run runs and something is owed; zero otherwise.
func TestNextTry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := setupEndpoint(t, "indexnow", "http://127.0.0.1:1/", `schedule: "@every 1m"`, "", "")
		n, _ := open(t, cfg, nil)
		n.client.Transport = roundTripper(func(r *http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: 200, Body: http.NoBody, Header: http.Header{}}, nil
		})
		n.Note(pages(1), nil, true, false)
		if next := n.Stats()[0].NextTry; !next.IsZero() {
			t.Errorf("NextTry %v before Run", next)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		start := time.Now()
		go func() { done <- n.Run(ctx) }()
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if next := n.Stats()[0].NextTry; !next.Equal(start.Add(time.Minute)) {
			t.Errorf("NextTry %v, want %v (a minute after the start)", next, start.Add(time.Minute))
		}
		time.Sleep(time.Minute) // the run delivers it
		synctest.Wait()
		if st := n.Stats()[0]; st.Owed != 0 || !st.NextTry.IsZero() {
			t.Errorf("nothing owed: %+v, want no NextTry", st)
		}
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
		if next := n.Stats()[0].NextTry; !next.IsZero() {
			t.Errorf("NextTry %v after Run", next)
		}
	})
}
