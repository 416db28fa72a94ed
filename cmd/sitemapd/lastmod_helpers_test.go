package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/indexnowtest"
)

// Helpers of the whole-process lastmod tests (lastmod_test.go): an
// IndexNow receiver, the child's log, a realistic site and reading what
// sitemapd wrote, all from outside sitemapd.

// notifyConfig sends to rcv on a one-second schedule; changes are
// published after 200 ms of quiet (enough that a copy of a few hundred
// small files is seen whole), at the latest 30 s after the first.
func notifyConfig(url string) string {
	return fmt.Sprintf(`watch: {settle: 200ms, max_delay: 30s, rescan: 0s}
notify:
  endpoints:
    - {name: receiver, kind: indexnow, url: %q, key: 0123456789abcdef, schedule: "@every 1s"}
`, url)
}

// receiver is the tests' IndexNow endpoint on 127.0.0.1 (indexnowtest).
type receiver struct{ *indexnowtest.Receiver }

// newReceiver takes requests for static.test only.
func newReceiver(t *testing.T) *receiver {
	return &receiver{indexnowtest.Start(t, indexnowtest.Hosts("static.test"))}
}

// waitFor waits until every URL of want was received after mark.
func (r *receiver) waitFor(t *testing.T, mark int, want ...string) {
	t.Helper()
	poll(t, fmt.Sprintf("IndexNow to receive %q", want), func() (bool, string) {
		got := r.URLs(mark)
		for _, u := range want {
			if !slices.Contains(got, u) {
				return false, fmt.Sprintf("it received %q", got)
			}
		}
		return true, ""
	})
}

// canary adds the page zz-canary/name.html and waits until IndexNow
// receives it and its sitemap lists it. Everything owed before it was
// owed (inotify reports in order, the daemon publishes in order, and a
// notifier run sends all that is owed) has been sent by then. It returns
// what was sent since it was written.
func canary(t *testing.T, c *child, rcv *receiver, root, name string) []string {
	t.Helper()
	n, mark := c.count("published"), rcv.Mark()
	url := base + "/zz-canary/" + name + ".html"
	if err := os.WriteFile(filepath.Join(root, "zz-canary", name+".html"), []byte("<title>"+name+"</title>"), 0o644); err != nil {
		t.Fatal(err)
	}
	rcv.waitFor(t, mark, url)
	poll(t, "zz-canary/sitemap.xml to list "+url, func() (bool, string) {
		_, ok := readURLSet(t, filepath.Join(root, "zz-canary", "sitemap.xml"))[url]
		return ok, "it does not"
	})
	c.waitQuiet(t, n)
	return rcv.URLs(mark)
}

// logEntry is one line of the daemon's JSON log.
type logEntry map[string]any

func (e logEntry) str(key string) string { s, _ := e[key].(string); return s }

func (e logEntry) String() string { b, _ := json.Marshal(map[string]any(e)); return string(b) }

// entries returns the log lines so far that keep says to keep.
func (c *child) entries(keep func(logEntry) bool) []logEntry {
	var out []logEntry
	for _, line := range strings.Split(c.stderr.String(), "\n") {
		var e logEntry
		if json.Unmarshal([]byte(line), &e) == nil && keep(e) {
			out = append(out, e)
		}
	}
	return out
}

// count is the number of log lines so far whose message is msg.
func (c *child) count(msg string) int {
	return len(c.entries(func(e logEntry) bool { return e.str("msg") == msg }))
}

// waitQuiet waits until the daemon has published after the first n
// publishes and then published nothing for a second (five times
// watch.settle): what a change made it do is done.
func (c *child) waitQuiet(t *testing.T, n int) {
	t.Helper()
	last, since := n, time.Now()
	poll(t, fmt.Sprintf("the daemon to publish (after publish %d) and then rest", n), func() (bool, string) {
		if now := c.count("published"); now != last {
			last, since = now, time.Now()
		}
		return last > n && time.Since(since) >= time.Second, fmt.Sprintf("%d publishes so far", last)
	})
}

// printed waits for the full build that follows a first start and reads
// what every page says (trigger "page prints"): until it is done, the
// daemon is publishing.
func (c *child) printed(t *testing.T) {
	t.Helper()
	poll(t, "the page prints build", func() (bool, string) {
		n := len(c.entries(func(e logEntry) bool { return e.str("msg") == "published" && e.str("trigger") == "page prints" }))
		return n > 0, "not yet"
	})
}

// stop ends the daemon with SIGTERM and waits for it.
func (c *child) stop(t *testing.T) {
	t.Helper()
	c.cmd.Process.Signal(syscall.SIGTERM)
	if err := c.cmd.Wait(); err != nil {
		t.Errorf("sitemapd run after SIGTERM: %v", err)
	}
}

// poll waits up to a minute for check to say done, failing the test with
// what it waited for and what check saw last.
func poll(t *testing.T, what string, check func() (done bool, now string)) {
	t.Helper()
	pollFor(t, time.Minute, what, check)
}

func pollFor(t *testing.T, limit time.Duration, what string, check func() (done bool, now string)) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		done, now := check()
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s; %s", limit.Round(time.Second), what, now)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

func command(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %q: %v\n%s", name, args, err, out)
	}
}

// w3c is how a sitemap writes a lastmod: UTC, to the second.
func w3c(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

func writeFileAt(t *testing.T, path string, data []byte, mtime time.Time) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}
