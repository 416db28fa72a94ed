package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/indexnowtest"
)

// publishTimes returns when the daemon logged each publish, in its log's
// own timestamps.
func publishTimes(t *testing.T, c *child) []time.Time {
	t.Helper()
	var out []time.Time
	for _, e := range c.entries(func(e logEntry) bool { return e.str("msg") == "published" }) {
		at, err := time.Parse("2006-01-02T15:04:05.000Z0700", e.str("ts"))
		if err != nil {
			t.Fatalf("log line %v: %v", e, err)
		}
		out = append(out, at)
	}
	return out
}

// TestIndexNowWithinSeconds runs `sitemapd run` with an IndexNow endpoint
// at its default delay (5 s) against a receiver on 127.0.0.1. 100 pages
// written over 3 s, published as several publishes (watch.max_delay 1 s),
// arrive in one POST, no sooner than 5 s after the first was written.
// Then the receiver answers 429 with Retry-After: 30; pages written during
// that hold, a kill -9 within it and a restart: nothing reaches the
// receiver before the hold ends, and every page owed arrives after it.
// The latencies are logged, not asserted: machines are noisy.
func TestIndexNowWithinSeconds(t *testing.T) {
	holdFor := 30 // the figure
	if testing.Short() {
		holdFor = 5 // the same path, shorter
	}
	rcv := newReceiver(t)
	cfg, root := writeConfig(t, fmt.Sprintf(`watch: {settle: 100ms, max_delay: 1s, rescan: 0s}
notify:
  endpoints:
    - {name: receiver, kind: indexnow, url: %q, key: 0123456789abcdef}
`, rcv.URL))
	c := startChild(t, cfg)
	c.expect(t, "READY=1")
	published := len(publishTimes(t, c))

	first := time.Now()
	var want []string
	for i := range 100 {
		name := fmt.Sprintf("p%03d.html", i)
		if err := os.WriteFile(filepath.Join(root, "blog", name), []byte("<title>"+name+"</title>"), 0o644); err != nil {
			t.Fatal(err)
		}
		want = append(want, base+"/blog/"+name)
		time.Sleep(30 * time.Millisecond)
	}
	pollFor(t, 30*time.Second, "the POST of the 100 pages", func() (bool, string) {
		return len(rcv.Posts(0)) > 0, "none yet"
	})
	c.waitQuiet(t, published)
	time.Sleep(6 * time.Second) // more than a window: a second POST would have come
	posts := rcv.Posts(0)
	got := slices.Sorted(slices.Values(posts[0].URLs))
	if len(posts) != 1 || !slices.Equal(got, want) {
		t.Fatalf("%d POSTs, the first of %d URLs; want one of the 100 pages", len(posts), len(got))
	}
	pubs := publishTimes(t, c)[published:]
	if posts[0].At.Before(first.Add(5 * time.Second)) {
		t.Errorf("the POST came %v after the first page was written, before the 5 s window ended", posts[0].At.Sub(first))
	}
	// Generous: the daemon waits 5 s after the first publish's changes
	// were owed; 20 s more is a machine stalled, not a slow one.
	if late := posts[0].At.Sub(pubs[0]); late > 25*time.Second {
		t.Errorf("the POST came %v after the first publish", late)
	}
	t.Logf("100 changes over %v in %d publishes, one POST: %v after the first publish, %v after the last, %v after the first write",
		pubs[len(pubs)-1].Sub(first).Round(time.Millisecond), len(pubs), posts[0].At.Sub(pubs[0]).Round(time.Millisecond),
		posts[0].At.Sub(pubs[len(pubs)-1]).Round(time.Millisecond), posts[0].At.Sub(first).Round(time.Millisecond))

	heldPages := holdAndKill(t, c, cfg, root, rcv, holdFor)
	t.Logf("hold of %d s: %d URLs owed across a kill -9 arrived", holdFor, len(heldPages))
}

// holdAndKill has the receiver refuse the next POST with Retry-After:
// holdFor, writes pages before and during the hold, kills the daemon with
// SIGKILL within it and starts it again, and checks that no POST comes
// before the hold's end and every page comes after it. It returns the
// URLs held.
func holdAndKill(t *testing.T, c *child, cfg, root string, rcv *receiver, holdFor int) []string {
	t.Helper()
	before := len(rcv.Posts(0))
	refusedOne := false // SetAnswer's calls are serialised
	rcv.SetAnswer(func(indexnowtest.Post) (int, time.Duration) {
		if refusedOne {
			return http.StatusOK, 0
		}
		refusedOne = true
		return http.StatusTooManyRequests, time.Duration(holdFor) * time.Second
	})
	write := func(name string) string {
		if err := os.WriteFile(filepath.Join(root, "blog", name), []byte("<title>"+name+"</title>"), 0o644); err != nil {
			t.Fatal(err)
		}
		return base + "/blog/" + name
	}
	want := []string{write("held-0.html")}
	pollFor(t, 30*time.Second, "the POST refused with 429", func() (bool, string) {
		return len(rcv.Posts(0)) > before, "none yet"
	})
	refused := rcv.Posts(0)[before]
	end := refused.At.Add(time.Duration(holdFor) * time.Second)
	for i := 1; i <= 2; i++ { // changes keep coming during the hold
		n := c.count("published")
		want = append(want, write(fmt.Sprintf("held-%d.html", i)))
		c.waitQuiet(t, n)
	}
	c.cmd.Process.Signal(syscall.SIGKILL)
	c.cmd.Wait()
	c2 := startChild(t, cfg)
	c2.expect(t, "READY=1")
	want = append(want, write("held-3.html")) // and after the restart
	if time.Now().After(end) {
		t.Fatalf("the hold ended before the restart: the test tested nothing (machine too slow for a %d s hold)", holdFor)
	}
	pollFor(t, time.Duration(holdFor)*time.Second+30*time.Second, "every page owed to arrive after the hold", func() (bool, string) {
		var got []string
		for _, p := range rcv.Posts(0)[before+1:] {
			got = append(got, p.URLs...)
		}
		for _, u := range want {
			if !slices.Contains(got, u) {
				return false, fmt.Sprintf("received %q", got)
			}
		}
		return true, ""
	})
	for _, p := range rcv.Posts(0)[before+1:] {
		if p.At.Before(end) {
			t.Errorf("a POST of %q came %v before the hold's end", p.URLs, end.Sub(p.At))
		}
		t.Logf("after the hold: a POST of %d URLs, %v after its end", len(p.URLs), p.At.Sub(end).Round(time.Millisecond))
	}
	c2.stop(t)
	return want
}
