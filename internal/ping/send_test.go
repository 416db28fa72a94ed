package ping

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"
)

// TestHungServer: a server that never answers costs one timeout per
// attempt, and the URLs stay owed. Canceling the run ends it.
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

// TestHugeBody: at most maxBody bytes of an endless answer are read; the
// server sees its connection closed long before it is done.
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
// run without loss.
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
