package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// slowGate stands before the receiver: it hands each request on at once, and
// while held, answers only once released (or after a minute), as a
// receiver slow to answer. A batch it holds has arrived, but its sender
// does not know yet.
type slowGate struct {
	srv     *httptest.Server
	rcv     *receiver
	mu      sync.Mutex
	release chan struct{} // nil: not holding
	// from and to bound the receiver's posts made while held (to: -1,
	// still holding).
	from, to int
}

func newSlowGate(t *testing.T, rcv *receiver) *slowGate {
	g := &slowGate{rcv: rcv}
	g.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		resp, err := http.Post(rcv.URL, r.Header.Get("Content-Type"), r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		resp.Body.Close()
		g.mu.Lock()
		release := g.release
		g.mu.Unlock()
		if release != nil {
			select {
			case <-release:
			case <-time.After(time.Minute):
			}
		}
		w.WriteHeader(resp.StatusCode)
	}))
	t.Cleanup(g.srv.Close)
	return g
}

func (g *slowGate) hold() {
	g.mu.Lock()
	g.release, g.from, g.to = make(chan struct{}), g.rcv.Mark(), -1
	g.mu.Unlock()
}

func (g *slowGate) open() {
	g.mu.Lock()
	if g.release != nil {
		close(g.release)
		g.to = g.rcv.Mark()
	}
	g.release = nil
	g.mu.Unlock()
}

// batches are the URLs of each post that reached the receiver while
// the gate held.
func (g *slowGate) batches() [][]string {
	g.mu.Lock()
	from, to := g.from, g.to
	g.mu.Unlock()
	posts := g.rcv.Posts(from)
	if to >= 0 {
		posts = posts[:to-from]
	}
	var out [][]string
	for _, p := range posts {
		out = append(out, p.URLs)
	}
	return out
}

// leader is the index in f.servers of the server whose metrics say it
// leads, or -1.
func (f *fleetRun) leader() int {
	for i, s := range f.servers {
		if s != nil && strings.Contains(s.metrics(f.t), "\nsitemapd_fleet_leader 1\n") {
			return i
		}
	}
	return -1
}

// handover: the leader killed (SIGKILL) while the receiver holds its
// batch, which arrived but was not answered, so never marked. Another
// server takes over, counts that batch, and sends what the fleet owes:
// every change arrives, and only the batch in flight arrives twice.
func (f *fleetRun) handover() {
	t := f.t
	old := f.leader()
	if old < 0 {
		t.Fatal("no leader")
	}
	// The leader sent the outage's edit, and so marked it (it marks
	// before it forgets): the others forget it long before a new leader
	// is elected (a lease), and it must not be sent again.
	poll(t, f.servers[old].name+", the leader, to owe nothing", func() (bool, string) {
		m := grepLines(f.servers[old].metrics(t), "sitemapd_notify_owed_urls")
		return strings.HasSuffix(m, `{endpoint="receiver"} 0`), m
	})
	mark := f.rcv.Mark()
	f.gate.hold()
	defer f.gate.open()
	var want []string
	add := func(from, to int) {
		for i := from; i < to; i++ {
			rel := fmt.Sprintf("docs/handover-%d.html", i)
			want = append(want, pageURL(rel))
			page := fmt.Sprintf("<!doctype html><html><head><title>Handover %d</title></head><body><h1>Handover %d</h1><p>A page added on every server.</p></body></html>\n", i, i)
			for _, s := range f.servers {
				if err := os.WriteFile(filepath.Join(s.root, rel), []byte(page), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	add(0, 5)
	poll(t, "the leader's batch to arrive, held", func() (bool, string) {
		return len(f.gate.batches()) > 0, fmt.Sprint(f.rcv.URLs(mark))
	})
	// More changes, which the leader cannot send while it waits for the
	// answer: only the next leader can.
	add(5, 8)
	for _, s := range f.servers {
		s.c.waitQuiet(t, s.c.count("published")-1)
	}
	killed := f.servers[old]
	killed.c.cmd.Process.Kill()
	killed.c.cmd.Wait()
	f.gate.open()
	inFlight := f.gate.batches()[0]
	f.servers = slices.Delete(slices.Clone(f.servers), old, old+1)
	next := -1
	pollFor(t, 2*time.Minute, "another server to lead", func() (bool, string) {
		next = f.leader()
		return next >= 0, ""
	})
	f.rcv.waitFor(t, mark, want...)
	m := f.servers[next].metrics(t)
	if !strings.Contains(m, "\nsitemapd_fleet_resent_batches_total 1\n") ||
		!strings.Contains(m, fmt.Sprintf("\nsitemapd_fleet_resent_urls_total %d\n", len(inFlight))) {
		t.Errorf("the new leader, %s, does not count the batch in flight (%d URLs) in its metrics:\n%s", f.servers[next].name, len(inFlight), grepLines(m, "sitemapd_fleet_"))
	}
	time.Sleep(3 * time.Second) // three of notify.schedule's runs: anything more would have been sent
	seen := map[string]int{}
	for _, u := range f.rcv.URLs(mark) {
		seen[u]++
	}
	for _, u := range want {
		if n := seen[u]; n == 0 || (n > 1 && !slices.Contains(inFlight, u)) || n > 2 {
			t.Errorf("%s arrived %d times; the batch in flight at the kill was %q", u, n, inFlight)
		}
	}
	// Besides, the new leader sends what it alone owes, once; not what
	// the old one sent (the ledger's marks).
	for u, n := range seen {
		if !slices.Contains(want, u) && (n > 1 || u == pageURL(fleetEdited)) {
			t.Errorf("%s, which the old leader sent or did not change now, arrived %d times", u, n)
		}
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
