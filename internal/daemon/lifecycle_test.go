package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/sitemapd/sitemapd/internal/lock"
)

// recorder is a Lifecycle that records what it is told.
type recorder struct {
	mu     sync.Mutex
	events []event
	ch     chan struct{} // signaled on every event
}

type event struct {
	at   time.Time
	what string // "READY", "RELOADING", "STOPPING", "ALIVE", "EXTEND", "STATUS=…"
}

func newRecorder() *recorder { return &recorder{ch: make(chan struct{}, 1)} }

func (r *recorder) add(what string) {
	r.mu.Lock()
	r.events = append(r.events, event{time.Now(), what})
	r.mu.Unlock()
	select {
	case r.ch <- struct{}{}:
	default:
	}
}

func (r *recorder) Ready()                        { r.add("READY") }
func (r *recorder) Reloading()                    { r.add("RELOADING") }
func (r *recorder) Stopping()                     { r.add("STOPPING") }
func (r *recorder) Alive()                        { r.add("ALIVE") }
func (r *recorder) Status(s string)               { r.add("STATUS=" + s) }
func (r *recorder) ExtendTimeout(d time.Duration) { r.add("EXTEND") }

func (r *recorder) snapshot() []event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]event(nil), r.events...)
}

// statuses lists what was told other than keep-alives.
func (r *recorder) statuses() []string {
	var out []string
	for _, e := range r.snapshot() {
		if e.what != "ALIVE" && e.what != "EXTEND" {
			out = append(out, e.what)
		}
	}
	return out
}

// wait waits until cond holds of the events.
func (r *recorder) wait(t *testing.T, what string, cond func([]event) bool) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for !cond(r.snapshot()) {
		select {
		case <-r.ch:
		case <-deadline:
			t.Fatalf("timed out waiting for %s; told %q", what, r.statuses())
		}
	}
}

func has(what string) func([]event) bool {
	return func(es []event) bool {
		for _, e := range es {
			if strings.HasPrefix(e.what, what) {
				return true
			}
		}
		return false
	}
}

// site writes a configuration over a document root with the files given
// (relative path -> content) and returns the config path and the root.
func site(t *testing.T, extra string, files map[string]string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	os.MkdirAll(root, 0o755)
	for rel, data := range files {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(dir, "sitemapd.yaml")
	if err := os.WriteFile(cfg, []byte(testConfig+extra), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg, root
}

// runDaemon runs a daemon on cfg with a recorder as its Lifecycle; the
// returned function waits for Run's result (30 s at most).
func runDaemon(t *testing.T, cfg string, watchdog time.Duration) (*recorder, context.CancelFunc, func() error) {
	rec := newRecorder()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var err error
	d := New(Options{ConfigPath: cfg, Lifecycle: rec, Watchdog: watchdog}, zaptest.NewLogger(t))
	go func() { err = d.Run(ctx); close(done) }()
	wait := func() error {
		t.Helper()
		select {
		case <-done:
			return err
		case <-time.After(30 * time.Second):
			t.Fatal("Run did not return")
			return nil
		}
	}
	t.Cleanup(func() {
		cancel()
		wait()
	})
	return rec, cancel, wait
}

// TestReadyAfterFirstPublish: READY comes once the first build is
// published, after a status that says it scans, and the status then says
// what is published; a reload goes through RELOADING, scanning and READY
// again, and a stop says STOPPING.
func TestReadyAfterFirstPublish(t *testing.T) {
	cfg, _ := site(t, "", map[string]string{"index.html": "<title>a</title>", "docs/a.html": "a", "docs/b.html": "b"})
	rec, cancel, wait := runDaemon(t, cfg, 0)
	rec.wait(t, "READY", has("READY"))
	want := "STATUS=published 2 groups, 3 URLs; waiting for changes"
	rec.wait(t, want, has(want))
	got := rec.statuses()
	iScan, iReady, iPub := -1, -1, -1
	for i, s := range got {
		switch {
		case strings.HasPrefix(s, "STATUS=scanning: ") && iScan < 0:
			iScan = i
		case s == "READY":
			iReady = i
		case s == want:
			iPub = i
		}
	}
	if !(iScan >= 0 && iScan < iPub && iPub < iReady) {
		t.Errorf("told %q; want scanning, then what is published, then READY", got)
	}

	f, _ := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("# edited\n")
	f.Close()
	n := len(got)
	rec.wait(t, "READY after the reload", func(es []event) bool {
		return strings.Contains(strings.Join(rec.statuses()[n:], "\n"), want+"\nREADY")
	})
	after := strings.Join(rec.statuses()[n:], "\n")
	if !strings.Contains(after, "RELOADING\nSTATUS=reloading\nSTATUS=scanning: ") {
		t.Errorf("reload told %q", after)
	}
	cancel()
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	if s := rec.statuses(); s[len(s)-1] != "STOPPING" {
		t.Errorf("last told %q, want STOPPING", s[len(s)-1])
	}
}

// TestEmptySiteIsReady: a site without pages publishes (an empty index)
// and is ready.
func TestEmptySiteIsReady(t *testing.T) {
	cfg, _ := site(t, "", map[string]string{"robots.txt": "User-agent: *\n"})
	rec, _, _ := runDaemon(t, cfg, 0)
	rec.wait(t, "READY", has("READY"))
}

// foreign is a sitemap sitemapd did not write: it is never replaced.
const foreign = `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></urlset>`

// TestNothingPublishedIsNoStart: when every file of the first build fails
// (here foreign files stand where the sitemap and the index go, which
// stops root and non-root alike), Run returns ErrNothingPublished naming
// the files, and READY is never sent.
func TestNothingPublishedIsNoStart(t *testing.T) {
	cfg, root := site(t, "", map[string]string{
		"index.html": "<title>a</title>", "sitemap.xml": foreign, "sitemap_index.xml": foreign,
	})
	rec, _, wait := runDaemon(t, cfg, 0)
	err := wait()
	if !errors.Is(err, ErrNothingPublished) || !strings.Contains(err.Error(), "refusing to replace "+filepath.Join(root, "sitemap.xml")) {
		t.Errorf("Run: %v; want ErrNothingPublished naming the sitemap in the way", err)
	}
	if has("READY")(rec.snapshot()) {
		t.Errorf("READY was sent: %q", rec.statuses())
	}
	if s := rec.statuses(); len(s) < 2 || !strings.HasPrefix(s[len(s)-2], "STATUS=failed: the first build published nothing: ") || s[len(s)-1] != "STOPPING" {
		t.Errorf("told %q", s)
	}
}

// TestPartialFailureIsDegraded: when one group fails and the others are
// published, the daemon is ready and its status says it is degraded, with
// /healthz's reason.
func TestPartialFailureIsDegraded(t *testing.T) {
	cfg, _ := site(t, "", map[string]string{
		"index.html": "<title>a</title>", "docs/a.html": "a", "docs/sitemap.xml": foreign,
	})
	rec, _, _ := runDaemon(t, cfg, 0)
	rec.wait(t, "READY", has("READY"))
	rec.wait(t, "a degraded status", has("STATUS=degraded: the last publish failed: "))
	for _, s := range rec.statuses() {
		if strings.HasPrefix(s, "STATUS=degraded") && !strings.Contains(s, "docs/sitemap.xml") {
			t.Errorf("status %q does not name the file in the way", s)
		}
	}
}

// TestOneDaemonPerTree: a second daemon on the same configuration, or on
// another with the same output root, or the same state directory, stops
// at once with a *lock.HeldError naming the first; a `sitemapd build`
// holding the tree is waited for.
func TestOneDaemonPerTree(t *testing.T) {
	cfg, root := site(t, "", map[string]string{"index.html": "<title>a</title>"})
	os.MkdirAll(filepath.Join(filepath.Dir(cfg), "state"), 0o755)
	rec, _, _ := runDaemon(t, cfg, 0)
	rec.wait(t, "READY", has("READY"))

	other := filepath.Join(t.TempDir(), "other.yaml")
	otherRoot := filepath.Join(filepath.Dir(other), "root")
	os.MkdirAll(otherRoot, 0o755)
	for name, yaml := range map[string]string{
		"same config":      "",
		"same output root": fmt.Sprintf("root: %s\nbase_url: https://static.test/\nstate_dir: %s\n", root, filepath.Join(filepath.Dir(other), "state")),
		"same state_dir":   fmt.Sprintf("root: %s\nbase_url: https://static.test/\nstate_dir: %s\n", otherRoot, filepath.Join(filepath.Dir(cfg), "state")),
	} {
		path := cfg
		if yaml != "" {
			path = other
			os.WriteFile(path, []byte(yaml), 0o644)
		}
		d := New(Options{ConfigPath: path}, zaptest.NewLogger(t))
		err := d.Run(context.Background())
		var held *lock.HeldError
		if !errors.As(err, &held) {
			t.Errorf("%s: %v, want a *lock.HeldError", name, err)
			continue
		}
		if held.Holder.PID != os.Getpid() || held.Holder.Command != "run" {
			t.Errorf("%s: holder %+v", name, held.Holder)
		}
	}
}

// TestWaitsForBuild: a daemon whose tree a build holds waits for it, and
// says so.
func TestWaitsForBuild(t *testing.T) {
	cfg, root := site(t, "", map[string]string{"index.html": "<title>a</title>"})
	b, err := lock.Acquire(filepath.Join(root, lock.OutputName), root, lock.Holder{PID: 99, Command: "build"})
	if err != nil {
		t.Fatal(err)
	}
	rec, _, _ := runDaemon(t, cfg, 0)
	rec.wait(t, "the wait", has("STATUS=waiting for sitemapd build (pid 99"))
	time.Sleep(200 * time.Millisecond)
	if has("READY")(rec.snapshot()) {
		t.Fatal("ready while the build holds the tree")
	}
	b.Close()
	rec.wait(t, "READY", has("READY"))
}

// TestReloadMeetsLock: a new configuration whose output root another
// sitemapd holds is not applied (the old one goes on serving, holding its
// locks); once it is free, the next edit applies it and the old tree's
// lock is let go.
func TestReloadMeetsLock(t *testing.T) {
	cfg, root := site(t, "", map[string]string{"index.html": "<title>a</title>"})
	root2 := filepath.Join(t.TempDir(), "root2")
	os.MkdirAll(root2, 0o755)
	os.WriteFile(filepath.Join(root2, "b.html"), []byte("b"), 0o644)
	other, err := lock.Acquire(filepath.Join(root2, lock.OutputName), root2, lock.Holder{PID: 77, Command: "run"})
	if err != nil {
		t.Fatal(err)
	}
	rec, _, _ := runDaemon(t, cfg, 0)
	rec.wait(t, "READY", has("READY"))
	body, _ := os.ReadFile(cfg)
	moved := strings.Replace(string(body), "root: root", "root: "+root2, 1)
	os.WriteFile(cfg, []byte(moved), 0o644)
	time.Sleep(time.Second)
	if has("RELOADING")(rec.snapshot()) {
		t.Fatal("reloaded onto a tree another sitemapd holds")
	}
	if _, err := lock.Acquire(filepath.Join(root, lock.OutputName), root, lock.Holder{}); err == nil {
		t.Fatal("the old tree's lock was let go")
	}
	other.Close()
	os.WriteFile(cfg, []byte(moved+"# again\n"), 0o644)
	rec.wait(t, "the reload", func(es []event) bool {
		all := strings.Join(rec.statuses(), "\n")
		i := strings.Index(all, "RELOADING\nSTATUS=reloading\nSTATUS=scanning: ")
		return i >= 0 && strings.Contains(all[i:], "\nSTATUS=published 1 group, 1 URL; waiting for changes\nREADY")
	})
	l, err := lock.Acquire(filepath.Join(root, lock.OutputName), root, lock.Holder{})
	if err != nil {
		t.Fatalf("the old tree stays locked: %v", err)
	}
	l.Close()
}
