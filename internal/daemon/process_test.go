package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/indexnowtest"
	"go.uber.org/zap"
)

// TestMain lets a test run the daemon in a child process (the test binary
// itself), which it can stop and continue like any process.
func TestMain(m *testing.M) {
	if cfg := os.Getenv("SITEMAPD_TEST_DAEMON"); cfg != "" {
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
		defer stop()
		log, _ := zap.NewProduction()
		if err := New(Options{ConfigPath: cfg}, log).Run(ctx); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestKernelOverflow makes the kernel drop events for real: with
// fs.inotify.max_queued_events lowered to 64 (root only; the value is read
// when an inotify instance is created, so it is restored once the daemon
// has started), the daemon is stopped with SIGSTOP while 3,000 files are
// written, then continued. It must log the overflow, rescan, and end equal
// to a full build.
func TestKernelOverflow(t *testing.T) {
	const knob = "/proc/sys/fs/inotify/max_queued_events"
	old, err := os.ReadFile(knob)
	if err != nil || os.Geteuid() != 0 {
		t.Skip("needs root and a readable " + knob)
	}
	if err := os.WriteFile(knob, []byte("64"), 0o644); err != nil {
		t.Skipf("cannot lower %s: %v", knob, err)
	}
	restore := func() { os.WriteFile(knob, old, 0o644) }
	t.Cleanup(restore)

	dir := t.TempDir()
	h := &harness{t: t, dir: dir, root: filepath.Join(dir, "root"), cfgPath: filepath.Join(dir, "sitemapd.yaml")}
	h.write("index.html")
	os.WriteFile(h.cfgPath, []byte(testConfig), 0o644)
	var logs strings.Builder
	var logsMu sync.Mutex
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "SITEMAPD_TEST_DAEMON="+h.cfgPath)
	cmd.Stderr = writerFunc(func(p []byte) (int, error) { logsMu.Lock(); defer logsMu.Unlock(); return logs.Write(p) })
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for i := range 30 { // directories watched before the burst
		h.write(fmt.Sprintf("bulk/d%d/first.html", i))
	}
	h.sync() // started and watching
	restore()

	cmd.Process.Signal(syscall.SIGSTOP)
	for i := range 3000 {
		h.write(fmt.Sprintf("bulk/d%d/f%d.html", i%30, i))
	}
	cmd.Process.Signal(syscall.SIGCONT)
	h.sync()
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("daemon exit: %v", err)
	}
	logsMu.Lock()
	out := logs.String()
	logsMu.Unlock()
	if !strings.Contains(out, "overflowed") || !strings.Contains(out, `"trigger":"rescan"`) {
		t.Errorf("no overflow and rescan in the daemon's log (%d bytes):\n%.3000s", len(out), out)
	}
	h.checkOracle()
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestRootVanishes moves the document root away and back: nothing is
// deleted or emptied meanwhile, and on return a rescan catches up.
func TestRootVanishes(t *testing.T) {
	h := start(t, "")
	h.write("a/p.html")
	h.sync()
	away := h.root + ".away"
	if err := os.Rename(h.root, away); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(away, "a/sitemap.xml"))
	time.Sleep(500 * time.Millisecond) // five settle periods: a wrong publish would have happened
	after, err := os.ReadFile(filepath.Join(away, "a/sitemap.xml"))
	if err != nil || string(after) != string(before) || len(before) == 0 {
		t.Errorf("sitemap changed while the root was missing: %v\n%s", err, after)
	}
	os.WriteFile(filepath.Join(away, "a/q.html"), nil, 0o644)
	os.Rename(away, h.root)
	h.waitFor("q.html after the root returned", func() bool {
		b, _ := os.ReadFile(h.path("a/sitemap.xml"))
		return strings.Contains(string(b), "/a/q.html")
	})
	h.sync()
	h.checkOracle()
}

// TestSymlinkSwapDeploy swaps current -> releases/1 for releases/2 the way
// deploy tools do (ln -s + mv -T): the new release is scanned and written
// to, the old one never again.
func TestSymlinkSwapDeploy(t *testing.T) {
	dir := t.TempDir()
	rel1, rel2 := filepath.Join(dir, "releases/1"), filepath.Join(dir, "releases/2")
	for _, p := range []string{rel1 + "/index.html", rel1 + "/old.html", rel2 + "/index.html", rel2 + "/new.html"} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, nil, 0o644)
	}
	current := filepath.Join(dir, "current")
	os.Symlink("releases/1", current)
	h := &harness{t: t, dir: dir, root: current, cfgPath: filepath.Join(dir, "sitemapd.yaml"), reload: make(chan struct{}, 1)}
	os.WriteFile(h.cfgPath, []byte(strings.Replace(testConfig, "root: root", "root: current", 1)), 0o644)
	h.run()
	if b, _ := os.ReadFile(filepath.Join(rel1, "sitemap.xml")); !strings.Contains(string(b), "old.html") {
		t.Fatalf("releases/1 not built:\n%s", b)
	}
	os.Symlink("releases/2", current+".tmp")
	if err := os.Rename(current+".tmp", current); err != nil {
		t.Fatal(err)
	}
	h.waitFor("releases/2 built", func() bool {
		b, _ := os.ReadFile(filepath.Join(rel2, "sitemap.xml"))
		return strings.Contains(string(b), "new.html")
	})
	old, _ := os.ReadFile(filepath.Join(rel1, "sitemap.xml"))
	os.WriteFile(filepath.Join(rel1, "late.html"), nil, 0o644) // the old release is not watched any more
	h.sync()
	if now, _ := os.ReadFile(filepath.Join(rel1, "sitemap.xml")); string(now) != string(old) {
		t.Errorf("releases/1 was written after the swap:\n%s", now)
	}
	h.checkOracle()
}

// TestSIGTERMDuringBurst stops the daemon (a child process) with SIGTERM in
// the middle of a burst: it exits 0 and leaves no temp file, and every
// sitemap on disk is a whole document.
func TestSIGTERMDuringBurst(t *testing.T) {
	dir := t.TempDir()
	h := &harness{t: t, dir: dir, root: filepath.Join(dir, "root"), cfgPath: filepath.Join(dir, "sitemapd.yaml")}
	h.write("index.html")
	os.WriteFile(h.cfgPath, []byte(testConfig), 0o644)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "SITEMAPD_TEST_DAEMON="+h.cfgPath)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	h.sync()
	for i := range 2000 {
		h.write(fmt.Sprintf("g%d/f%d.html", i%40, i))
		if i == 1500 {
			cmd.Process.Signal(syscall.SIGTERM)
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit: %v, want 0", err)
	}
	filepath.WalkDir(h.root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case strings.HasPrefix(d.Name(), ".sitemapd-"):
			t.Errorf("temp file left: %s", p)
		case strings.HasPrefix(d.Name(), "sitemap"):
			b, _ := os.ReadFile(p)
			if !strings.HasSuffix(string(b), "</urlset>\n") && !strings.HasSuffix(string(b), "</sitemapindex>\n") {
				t.Errorf("%s is not a whole document", p)
			}
		}
		return nil
	})
}

// TestNotifyAfterSIGKILL: the IndexNow endpoint is down while a page is
// added, and the daemon is killed with SIGKILL. Restarted with the endpoint
// up, it delivers exactly the URLs it owed, each once.
func TestNotifyAfterSIGKILL(t *testing.T) {
	rcv := newReceiver(t)
	rcv.SetAnswer(func(indexnowtest.Post) (int, time.Duration) { return http.StatusServiceUnavailable, 0 }) // down

	dir := t.TempDir()
	h := &harness{t: t, dir: dir, root: filepath.Join(dir, "root"), cfgPath: filepath.Join(dir, "sitemapd.yaml")}
	h.write("index.html")
	cfg := testConfig + fmt.Sprintf("notify: {attempts: 1, endpoints: [{name: in, kind: indexnow, url: %q, key: 0123456789abcdef, schedule: \"@every 1s\"}]}\n", rcv.URL)
	os.WriteFile(h.cfgPath, []byte(cfg), 0o644)
	statePath := filepath.Join(dir, "state", "notify.json")
	owed := func() []string {
		var doc struct {
			Endpoints map[string]struct{ URLs []string } `json:"endpoints"`
		}
		b, _ := os.ReadFile(statePath)
		json.Unmarshal(b, &doc)
		return doc.Endpoints["in"].URLs
	}
	startChild := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "SITEMAPD_TEST_DAEMON="+h.cfgPath)
		var logs strings.Builder
		var logsMu sync.Mutex
		cmd.Stderr = writerFunc(func(p []byte) (int, error) { logsMu.Lock(); defer logsMu.Unlock(); return logs.Write(p) })
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cmd.Process.Kill()
			cmd.Wait()
			if t.Failed() {
				logsMu.Lock()
				t.Logf("daemon log:\n%.4000s", logs.String())
				logsMu.Unlock()
			}
		})
		return cmd
	}

	first := startChild()
	h.sync()
	h.write("blog/new.html")
	h.waitFor("new.html owed in the state file", func() bool {
		return slices.Contains(owed(), "https://static.test/blog/new.html")
	})
	first.Process.Signal(syscall.SIGKILL)
	first.Wait()
	want := owed()
	if slices.Contains(want, "https://static.test/index.html") {
		t.Errorf("owed %v: the first build of a never-notified site owes no pages", want)
	}

	rcv.SetAnswer(nil) // up
	second := startChild()
	h.waitFor("everything owed delivered", func() bool { return fileExists(statePath) && len(owed()) == 0 })
	time.Sleep(2500 * time.Millisecond) // two more turns of the schedule: nothing is sent twice
	second.Process.Signal(syscall.SIGTERM)
	second.Wait()
	sent := rcv.Counts(0)
	for _, u := range want {
		if sent[u] != 1 {
			t.Errorf("%s delivered %d times, want once", u, sent[u])
		}
	}
	for u := range sent {
		if !slices.Contains(want, u) {
			t.Errorf("%s delivered but was not owed", u)
		}
	}
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }
