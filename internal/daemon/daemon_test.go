package daemon

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
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

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest"
	"go.uber.org/zap/zaptest/observer"

	"github.com/sitemapd/sitemapd/internal/build"
	"github.com/sitemapd/sitemapd/internal/config"
)

// harness runs a daemon on a temporary document root.
type harness struct {
	t       *testing.T
	dir     string // holds root/, outside/ and the config
	root    string
	cfgPath string
	cancel  context.CancelFunc
	done    chan error
	reload  chan struct{}
	mu      sync.Mutex
	pubs    []Publish
	syncN   int
	logs    *observer.ObservedLogs
}

func (h *harness) Published(p Publish) {
	h.mu.Lock()
	h.pubs = append(h.pubs, p)
	h.mu.Unlock()
}

const testConfig = `root: root
base_url: https://example.com/
depth: 1
watch: {settle: 100ms, max_delay: 1s, rescan: 0s}
`

func start(t *testing.T, extra string) *harness {
	t.Helper()
	dir := t.TempDir()
	h := &harness{t: t, dir: dir, root: filepath.Join(dir, "root"), cfgPath: filepath.Join(dir, "sitemapd.yaml"),
		reload: make(chan struct{}, 1)}
	os.MkdirAll(h.root, 0o755)
	os.MkdirAll(filepath.Join(dir, "outside"), 0o755)
	h.write("index.html")
	if err := os.WriteFile(h.cfgPath, []byte(testConfig+extra), 0o644); err != nil {
		t.Fatal(err)
	}
	h.run()
	return h
}

func (h *harness) run() {
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel, h.done = cancel, make(chan error, 1)
	core, logs := observer.New(zap.InfoLevel)
	h.logs = logs
	// Info, not Debug: a failure's log must stay short enough to read
	// (every inotify event is a debug line).
	log := zap.New(zapcore.NewTee(zaptest.NewLogger(h.t, zaptest.Level(zap.InfoLevel)).Core(), core))
	d := New(Options{ConfigPath: h.cfgPath, Notifier: h, Reload: h.reload}, log)
	go func() { h.done <- d.Run(ctx) }()
	h.t.Cleanup(h.stop)
	h.sync()
}

func (h *harness) stop() {
	if h.cancel == nil {
		return
	}
	h.cancel()
	select {
	case err := <-h.done:
		if err != nil {
			h.t.Errorf("daemon: %v", err)
		}
	case <-time.After(30 * time.Second):
		h.t.Fatal("daemon did not stop within 30 s")
	}
	h.cancel = nil
}

func (h *harness) path(rel string) string { return filepath.Join(h.root, rel) }

func (h *harness) write(rel string) {
	h.t.Helper()
	p := h.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("<title>"+rel+"</title>"), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

// waitFor polls cond until it holds; the bound only stops a broken test.
func (h *harness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			h.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (h *harness) rootSitemapHas(s string) bool {
	b, _ := os.ReadFile(h.path("sitemap.xml"))
	return strings.Contains(string(b), s)
}

// sync waits until the daemon has handled every event so far: inotify
// delivers in order, so once a page created now is published, and then its
// removal, everything before it has been seen.
func (h *harness) sync() {
	h.t.Helper()
	h.syncN++
	name := fmt.Sprintf("zz-sync-%d.html", h.syncN)
	h.write(name)
	h.waitFor(name+" published", func() bool { return h.rootSitemapHas(name) })
	os.Remove(h.path(name))
	h.waitFor(name+" unpublished", func() bool { return !h.rootSitemapHas(name) })
}

// checkOracle stops the daemon and checks the invariant: a fresh full build
// of the final tree changes nothing on disk.
func (h *harness) checkOracle() {
	h.t.Helper()
	h.stop()
	cfg, err := config.LoadFile(h.cfgPath)
	if err != nil {
		h.t.Fatal(err)
	}
	e, err := build.New(cfg, nil, build.WithProgress(0))
	if err != nil {
		h.t.Fatal(err)
	}
	defer e.Close()
	before := map[string]string{}
	filepath.WalkDir(h.root, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), "sitemap") {
			b, _ := os.ReadFile(p)
			before[p] = string(b)
		}
		return nil
	})
	record := filepath.Join(h.root, build.TextRecordName)
	recBefore, _ := os.ReadFile(record)
	rep, err := e.Build(context.Background())
	if err != nil {
		h.t.Fatal(err)
	}
	if recAfter, _ := os.ReadFile(record); string(recAfter) != string(recBefore) {
		h.t.Errorf("the record of text sitemaps differs from a full build's:\n%s\nfull build:\n%s", recBefore, recAfter)
	}
	if len(rep.Written) != 0 || len(rep.Removed) != 0 {
		h.t.Errorf("the daemon's output differs from a full build: it would write %v and remove %v", rep.Written, rep.Removed)
		for _, p := range rep.Written {
			after, _ := os.ReadFile(p)
			h.t.Errorf("%s: lines only the daemon wrote:\n%s\nlines only the full build wrote:\n%s",
				p, linesNotIn(before[p], string(after)), linesNotIn(string(after), before[p]))
		}
	}
}

// linesNotIn returns the lines of a that b lacks.
func linesNotIn(a, b string) string {
	have := map[string]bool{}
	for _, l := range strings.Split(b, "\n") {
		have[l] = true
	}
	var out []string
	for _, l := range strings.Split(a, "\n") {
		if !have[l] {
			out = append(out, "\t"+l)
		}
	}
	return strings.Join(out, "\n")
}

func TestAddChangeRemove(t *testing.T) {
	h := start(t, "")
	h.write("blog/post.html")
	h.waitFor("blog sitemap", func() bool {
		b, _ := os.ReadFile(h.path("blog/sitemap.xml"))
		return strings.Contains(string(b), "https://example.com/blog/post.html")
	})
	os.RemoveAll(h.path("blog"))
	h.waitFor("blog sitemap removed", func() bool { _, err := os.Stat(h.path("blog/sitemap.xml")); return err != nil })
	h.sync()
	h.mu.Lock()
	var added, removed []string
	for _, p := range h.pubs {
		added = append(added, p.Changes.Added...)
		removed = append(removed, p.Changes.Removed...)
	}
	h.mu.Unlock()
	if !contains(added, "https://example.com/blog/post.html") || !contains(removed, "https://example.com/blog/post.html") {
		t.Errorf("notifier saw added %v, removed %v", added, removed)
	}
	h.checkOracle()
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TestRenamedDirectory follows RELIABILITY.md §7 A7: after mv d e, files
// written under e are listed and nothing under d is.
func TestRenamedDirectory(t *testing.T) {
	h := start(t, "")
	h.write("d/sub/x.html")
	h.sync()
	if err := os.Rename(h.path("d"), h.path("e")); err != nil {
		t.Fatal(err)
	}
	h.write("e/sub/y.html")
	h.write("e/top.html")
	h.sync()
	b, _ := os.ReadFile(h.path("e/sitemap.xml"))
	for _, want := range []string{"/e/sub/x.html", "/e/sub/y.html", "/e/top.html"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("e/sitemap.xml lacks %s:\n%s", want, b)
		}
	}
	if _, err := os.Stat(h.path("d/sitemap.xml")); err == nil {
		t.Error("d/sitemap.xml still exists")
	}
	h.checkOracle()
}

// TestFailedGroupIsRetried puts a hand-made sitemap.xml in a group's way:
// the group fails and the file is left alone. Once it is moved away (which
// no event reports: sitemap.xml is an output name), the retry publishes the
// group without any change or signal.
func TestFailedGroupIsRetried(t *testing.T) {
	h := start(t, "")
	const foreign = "<urlset>hand-made</urlset>"
	os.MkdirAll(h.path("docs"), 0o755)
	os.WriteFile(h.path("docs/sitemap.xml"), []byte(foreign), 0o644)
	h.write("docs/p.html")
	h.waitFor("a retry to be scheduled", func() bool {
		return h.logs.FilterMessage("will retry the groups that failed").Len() > 0
	})
	if b, _ := os.ReadFile(h.path("docs/sitemap.xml")); string(b) != foreign {
		t.Fatalf("the foreign file was touched: %q", b)
	}
	os.Remove(h.path("docs/sitemap.xml"))
	h.waitFor("the retry to publish docs", func() bool {
		b, _ := os.ReadFile(h.path("docs/sitemap.xml"))
		return strings.Contains(string(b), "https://example.com/docs/p.html")
	})
	h.checkOracle()
}

// TestRobotsTxtChange: new robots.txt rules take pages out (and back in)
// without any other change, and the result is a full build's.
func TestRobotsTxtChange(t *testing.T) {
	h := start(t, "")
	h.write("private/x.html")
	h.write("blog/y.html")
	h.sync()
	listed := func() bool {
		b, _ := os.ReadFile(h.path("private/sitemap.xml"))
		return strings.Contains(string(b), "/private/x.html")
	}
	if !listed() {
		t.Fatal("private/x.html not listed before robots.txt")
	}
	os.WriteFile(h.path("robots.txt"), []byte("User-agent: *\nDisallow: /private/\n"), 0o644)
	h.waitFor("private/x.html left out", func() bool { return !listed() })
	os.WriteFile(h.path("robots.txt"), []byte("User-agent: *\nDisallow: /nothing/\n"), 0o644)
	h.waitFor("private/x.html back", listed)
	h.checkOracle()
}

// TestReload writes a broken config and sends SIGHUP's stand-in: the
// daemon keeps running on the old config. A valid edit of the file is then
// applied without any signal.
func TestReload(t *testing.T) {
	h := start(t, "")
	h.write("a/p.html")
	h.sync()
	os.WriteFile(h.cfgPath, []byte(testConfig+"depht: 2\n"), 0o644)
	h.reload <- struct{}{}
	h.write("a/q.html")
	h.sync() // still serving
	if b, _ := os.ReadFile(h.path("a/sitemap.xml")); !strings.Contains(string(b), "q.html") {
		t.Errorf("daemon stopped serving after an invalid reload:\n%s", b)
	}
	// An edit of the file is enough: no signal.
	os.WriteFile(h.cfgPath, []byte(strings.Replace(testConfig, "https://example.com/", "https://other.example/", 1)), 0o644)
	h.waitFor("new base URL", func() bool { return h.rootSitemapHas("https://other.example/") })
	h.checkOracle()
}

// TestModel runs random sequences of the operations a real server sees and
// checks, once the daemon is idle, that its files equal a fresh full build.
func TestModel(t *testing.T) {
	seeds := []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	if testing.Short() {
		seeds = seeds[:1]
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			// Every feature that writes files is on: text sitemaps too.
			h := start(t, "formats: [xml, txt]\n")
			m := &model{h: h, r: rand.New(rand.NewPCG(seed, seed))}
			for i := range 60 {
				m.step(i)
				if i%20 == 19 {
					h.sync()
				}
			}
			h.sync()
			h.checkOracle()
		})
	}
}

type model struct {
	h *harness
	r *rand.Rand
	n int
}

var dirs = []string{"", "a", "a/b", "a/b/c", "blog", "blog/2024", "docs", "x y", "caf\u00e9"}

func (m *model) dir() string {
	d := dirs[m.r.IntN(len(dirs))]
	return d
}

func (m *model) name() string {
	m.n++
	return fmt.Sprintf("p%d.html", m.n)
}

// existing returns a random page or directory below the root, or "".
func (m *model) existing(wantDir bool) string {
	var found []string
	filepath.WalkDir(m.h.root, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == m.h.root {
			return nil
		}
		rel, _ := filepath.Rel(m.h.root, p)
		if d.IsDir() == wantDir && !strings.Contains(d.Name(), "sitemap") {
			found = append(found, rel)
		}
		return nil
	})
	if len(found) == 0 {
		return ""
	}
	return found[m.r.IntN(len(found))]
}

// step performs one random operation and logs it, so that a failure
// names the sequence that led to it.
func (m *model) step(i int) {
	h, r := m.h, m.r
	logf := func(format string, args ...any) { h.t.Logf("step %d: "+format, append([]any{i}, args...)...) }
	if i == 30 { // once per sequence, a burst of thousands
		d := filepath.Join(m.dir(), "bigburst")
		logf("write 2000 files in %s", d)
		for j := range 2000 {
			h.write(filepath.Join(d, fmt.Sprintf("d%d/f%d.html", j%10, j)))
		}
		return
	}
	switch op := r.IntN(14); op {
	case 0, 1: // create
		f := filepath.Join(m.dir(), m.name())
		logf("create %s", f)
		h.write(f)
	case 2: // write again with a new mtime
		if f := m.existing(false); f != "" {
			logf("rewrite %s", f)
			h.write(f)
			mt := time.Now().Add(-time.Duration(1+r.IntN(1000)) * time.Second) // past: a future mtime has no lastmod until it passes
			os.Chtimes(h.path(f), mt, mt)
		}
	case 3: // delete
		if f := m.existing(false); f != "" {
			logf("rm %s", f)
			os.Remove(h.path(f))
		}
	case 4: // rename a file, maybe across directories
		if f := m.existing(false); f != "" {
			to := filepath.Join(m.dir(), m.name())
			logf("mv %s %s", f, to)
			os.MkdirAll(filepath.Dir(h.path(to)), 0o755)
			os.Rename(h.path(f), h.path(to))
		}
	case 5: // rename a directory
		if d := m.existing(true); d != "" {
			to := filepath.Join(filepath.Dir(d), fmt.Sprintf("moved%d", i))
			logf("mv %s/ %s/", d, to)
			os.Rename(h.path(d), h.path(to))
		}
	case 6: // move a pre-populated tree in from outside
		src := filepath.Join(h.dir, "outside", fmt.Sprintf("tree%d", i))
		for _, f := range []string{"t/a.html", "t/u/b.html", "t/u/v/c.html"} {
			p := filepath.Join(src, f)
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte("x"), 0o644)
		}
		to := filepath.Join(m.dir(), fmt.Sprintf("in%d", i))
		logf("mv outside/tree%d/ %s/", i, to)
		os.Rename(src, h.path(to))
	case 7: // move a tree out
		if d := m.existing(true); d != "" {
			logf("mv %s/ outside/out%d/", d, i)
			os.Rename(h.path(d), filepath.Join(h.dir, "outside", fmt.Sprintf("out%d", i)))
		}
	case 8: // mkdir -p and write at once
		d := filepath.Join(m.dir(), fmt.Sprintf("new%d/deep/er", i))
		logf("mkdir -p %s; write a.html there and b.html above", d)
		h.write(filepath.Join(d, "a.html"))
		h.write(filepath.Join(filepath.Dir(d), "b.html"))
	case 9: // a vim save (backupcopy=no)
		if f := m.existing(false); f != "" {
			logf("vim save %s", f)
			p := h.path(f)
			probe := filepath.Join(filepath.Dir(p), "4913")
			os.WriteFile(probe, nil, 0o644)
			os.Remove(probe)
			os.WriteFile(filepath.Join(filepath.Dir(p), "."+filepath.Base(p)+".swp"), []byte("swap"), 0o644)
			os.Rename(p, p+"~")
			os.WriteFile(p, []byte("saved"), 0o644)
			os.Remove(p + "~")
			os.Remove(filepath.Join(filepath.Dir(p), "."+filepath.Base(p)+".swp"))
		}
	case 10: // a burst of files
		d := filepath.Join(m.dir(), fmt.Sprintf("burst%d", i))
		logf("write 300 files in %s", d)
		for j := range 300 {
			h.write(filepath.Join(d, fmt.Sprintf("f%d.html", j)))
		}
	case 12: // new robots.txt rules, or none
		if r.IntN(3) == 0 {
			logf("rm robots.txt")
			os.Remove(h.path("robots.txt"))
			break
		}
		d := m.dir()
		logf("robots.txt: Disallow /%s/", d)
		os.WriteFile(h.path("robots.txt"), []byte("User-agent: *\nDisallow: /"+(&url.URL{Path: d}).EscapedPath()+"/\n"), 0o644)
	case 13: // a new head: what it says decides whether and how the page is listed
		if f := m.existing(false); f != "" {
			heads := []string{
				`<meta name="robots" content="noindex">`,
				`<link rel="canonical" href="/elsewhere.html">`,
				`<link rel="canonical" href="` + filepath.Base(f) + `">`, // itself
				`<link rel="alternate" hreflang="de" href="/de/` + filepath.Base(f) + `"><link rel="alternate" hreflang="x-default" href="/">`,
				`<title>plain</title>`,
			}
			head := heads[r.IntN(len(heads))]
			logf("write %s: %s", f, head)
			if err := os.WriteFile(h.path(f), []byte("<!doctype html><head>"+head+"</head>"), 0o644); err != nil {
				h.t.Fatal(err)
			}
		}
	case 11: // chmod: an event (IN_ATTRIB) that changes no sitemap
		dir := r.IntN(2) == 0
		if f := m.existing(dir); f != "" {
			mode := os.FileMode(0o600)
			if dir {
				mode = 0o711 // still readable by the daemon's user
			}
			logf("chmod %o %s", mode, f)
			os.Chmod(h.path(f), mode)
		}
	}
}

// TestReadersSeeWholeFiles re-reads the sitemaps throughout bursts and
// editor saves: every read is a complete, valid document, and a page that
// exists before and after each save is never missing.
func TestReadersSeeWholeFiles(t *testing.T) {
	h := start(t, "")
	h.write("docs/stable.html")
	h.sync()
	stop := make(chan struct{})
	errc := make(chan error, 1)
	reads := 0
	go func() {
		defer close(errc)
		for {
			select {
			case <-stop:
				return
			default:
			}
			b, err := os.ReadFile(h.path("docs/sitemap.xml"))
			if err != nil {
				errc <- fmt.Errorf("read %d: %v", reads, err)
				return
			}
			var us struct {
				URLs []struct {
					Loc string `xml:"loc"`
				} `xml:"url"`
			}
			if err := xml.Unmarshal(b, &us); err != nil || !strings.HasSuffix(string(b), "</urlset>\n") {
				errc <- fmt.Errorf("read %d: not a whole document (%v):\n%s", reads, err, b)
				return
			}
			found := false
			for _, u := range us.URLs {
				found = found || u.Loc == "https://example.com/docs/stable.html"
			}
			if !found {
				errc <- fmt.Errorf("read %d: stable.html missing during a save", reads)
				return
			}
			reads++
		}
	}()
	p := h.path("docs/stable.html")
	for i := range 30 {
		for j := range 50 {
			h.write(fmt.Sprintf("docs/burst%d/f%d.html", i, j))
		}
		// vim, backupcopy=no: the file is briefly absent.
		os.Rename(p, p+"~")
		os.WriteFile(p, []byte(fmt.Sprint(i)), 0o644)
		os.Remove(p + "~")
		time.Sleep(20 * time.Millisecond)
	}
	h.sync()
	close(stop)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if reads == 0 {
		t.Fatal("the reader read nothing")
	}
	h.checkOracle()
}

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
	var mu sync.Mutex
	up := false
	sent := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			URLList []string `json:"urlList"`
		}
		json.NewDecoder(r.Body).Decode(&body)
		mu.Lock()
		defer mu.Unlock()
		if !up {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		for _, u := range body.URLList {
			sent[u]++
		}
	}))
	defer srv.Close()

	dir := t.TempDir()
	h := &harness{t: t, dir: dir, root: filepath.Join(dir, "root"), cfgPath: filepath.Join(dir, "sitemapd.yaml")}
	h.write("index.html")
	cfg := testConfig + fmt.Sprintf("state_dir: state\nnotify: {schedule: \"@every 1s\", attempts: 1, endpoints: [{name: in, kind: indexnow, url: %q, key: 0123456789abcdef}]}\n", srv.URL)
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
		return slices.Contains(owed(), "https://example.com/blog/new.html")
	})
	first.Process.Signal(syscall.SIGKILL)
	first.Wait()
	want := owed()
	if slices.Contains(want, "https://example.com/index.html") {
		t.Errorf("owed %v: the first build of a never-notified site owes no pages", want)
	}

	mu.Lock()
	up = true
	mu.Unlock()
	second := startChild()
	h.waitFor("everything owed delivered", func() bool { return fileExists(statePath) && len(owed()) == 0 })
	time.Sleep(2500 * time.Millisecond) // two more turns of the schedule: nothing is sent twice
	second.Process.Signal(syscall.SIGTERM)
	second.Wait()
	mu.Lock()
	defer mu.Unlock()
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
