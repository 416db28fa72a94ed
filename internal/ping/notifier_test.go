package ping

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

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

	for _, bad := range []string{"{not json", `{"version": 99, "endpoints": {}}`, "a directory"} {
		p := filepath.Join(state, StateFile)
		if bad == "a directory" {
			os.Remove(p)
			os.MkdirAll(filepath.Join(p, "x"), 0o700)
		} else {
			os.WriteFile(p, []byte(bad), 0o600)
		}
		n3, logs := open(t, cfg, nil)
		if got := n3.Stats()[0].Owed; got != 0 {
			t.Errorf("%s: %d owed from a corrupt state", bad, got)
		}
		if logs.FilterMessageSnippet("moved it aside").Len() != 1 {
			t.Errorf("%s: no warning about the corrupt state; logs %v", bad, messages(logs))
		}
		// What was owed is lost, but not the fact that the site was
		// notified before: the first build's changes are owed.
		n3.Note(pages(2), nil, true, true)
		if got := n3.Stats()[0].Owed; got != 2 {
			t.Errorf("%s: %d owed after the first build that follows a lost state, want 2", bad, got)
		}
		n3.Close()
		aside, _ := filepath.Glob(filepath.Join(state, StateFile+".corrupt-*"))
		if len(aside) == 0 {
			t.Error("the corrupt state file was not kept aside")
		}
		for _, a := range aside {
			os.RemoveAll(a)
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
	// WantsPages says beforehand what Note will do with page URLs.
	if n.WantsPages(true) || !n.WantsPages(false) {
		t.Errorf("new site: WantsPages(initial) %v, WantsPages(later) %v; want false, true", n.WantsPages(true), n.WantsPages(false))
	}
	n.Note(pages(5), []string{"https://static.test/sitemap_index.xml"}, true, true)
	if got := n.Stats()[0].Owed; got != 0 {
		t.Errorf("%d URLs owed after the first build of a new site, want 0", got)
	}
	if !n.WantsPages(true) {
		t.Error("WantsPages(initial) false once the site was notified")
	}
	n.Note(pages(2), nil, true, false)
	if got := n.Stats()[0].Owed; got != 2 {
		t.Errorf("%d URLs owed after a later change, want 2", got)
	}
}

// TestWantsPagesPing: a ping endpoint is told of index URLs only.
func TestWantsPagesPing(t *testing.T) {
	srv := newRecorder(t, status(200))
	n, err := New(setup(t, "ping", srv.URL+"/ping?sitemap={sitemap}", "", ""), zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	n.Note(pages(5), []string{"https://static.test/sitemap_index.xml"}, true, true)
	if n.WantsPages(false) {
		t.Error("WantsPages with a ping endpoint only")
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

// TestSchedule runs an endpoint with a schedule of its own on fake time
// (an IndexNow endpoint, batched on it instead of sent after a delay): a
// run per period, nothing
// sent when nothing is owed, a run still going when the next is due skips
// that turn, a panic is survived, and cancel stops it all.
func TestSchedule(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := setupEndpoint(t, "indexnow", "http://127.0.0.1:1/", `schedule: "@every 1m"`, "", "")
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
