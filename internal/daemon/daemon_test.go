package daemon

import (
	"context"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest"
	"go.uber.org/zap/zaptest/observer"

	"github.com/sitemapd/sitemapd/internal/build"
	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/textrecord"
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
	d       *Daemon
	// configFor is the configuration with extra keys for the site served
	// from root/ (the model's reloads write it).
	configFor func(extra string) string
	name      string  // names the daemon's log lines when several run
	opts      Options // fleetMember's daemon (fleetsc_test.go)
}

func (h *harness) Published(p Publish) {
	h.mu.Lock()
	h.pubs = append(h.pubs, p)
	h.mu.Unlock()
}

const testConfig = `root: root
base_url: https://static.test/
depth: 1
state_dir: state
watch: {settle: 100ms, max_delay: 1s, rescan: 0s}
`

func start(t *testing.T, extra string) *harness {
	t.Helper()
	return startConfig(t, testConfig+extra)
}

// startConfig runs a daemon on the configuration body, whose document
// root (or first site's) is root/.
func startConfig(t *testing.T, body string) *harness {
	t.Helper()
	return startNamed(t, "", body)
}

// startNamed is startConfig for one of several daemons: name is the
// name of its logger.
func startNamed(t *testing.T, name, body string) *harness {
	t.Helper()
	dir := t.TempDir()
	h := &harness{t: t, dir: dir, root: filepath.Join(dir, "root"), cfgPath: filepath.Join(dir, "sitemapd.yaml"),
		reload: make(chan struct{}, 1), configFor: func(extra string) string { return testConfig + extra }, name: name}
	os.MkdirAll(h.root, 0o755)
	os.MkdirAll(filepath.Join(dir, "outside"), 0o755)
	os.MkdirAll(filepath.Join(dir, "etc"), 0o755) // for extra_urls files
	h.write("index.html")
	if err := os.WriteFile(h.cfgPath, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	h.run()
	return h
}

// run runs the daemon as run does, and waits for it with a sync page.
func (h *harness) run() {
	h.launch()
	h.sync()
}

// launch runs the daemon as run does, without waiting for it with a sync
// page.
func (h *harness) launch() {
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel, h.done = cancel, make(chan error, 1)
	core, logs := observer.New(zap.InfoLevel)
	h.logs = logs
	// Info, not Debug: a failure's log must stay short enough to read
	// (every inotify event is a debug line).
	log := zap.New(zapcore.NewTee(zaptest.NewLogger(h.t, zaptest.Level(zap.InfoLevel)).Core(), core)).Named(h.name)
	d := New(Options{ConfigPath: h.cfgPath, Notifier: h, Reload: h.reload}, log)
	h.d = d
	go func() { h.done <- d.Run(ctx) }()
	h.t.Cleanup(h.stop)
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

// rootSitemapHas reports whether the root group's sitemap lists s, in any
// of its parts (part_size may cut it in several).
func (h *harness) rootSitemapHas(s string) bool {
	parts, _ := filepath.Glob(h.path("sitemap*.xml"))
	for _, p := range parts {
		if b, _ := os.ReadFile(p); strings.Contains(string(b), s) {
			return true
		}
	}
	return false
}

// sync waits until the daemon has handled every event so far: inotify
// delivers in order, so once a page created now is published, and then its
// removal, everything before it has been seen. The removal is waited for
// as the publish's report (Notifier), not as the sitemap's bytes: the
// group's sitemap lands before the index (its own batch), and a test
// reading the files between the two would see an index of the publish
// before. A daemon in another process (process_test.go, h.d nil) reports
// no publish: its removal is waited for in the sitemap.
func (h *harness) sync() {
	h.t.Helper()
	h.syncN++
	name := fmt.Sprintf("zz-sync-%d.html", h.syncN)
	h.write(name)
	h.waitFor(name+" published", func() bool { return h.rootSitemapHas(name) })
	n := h.published()
	os.Remove(h.path(name))
	if h.d == nil {
		h.waitFor(name+" unpublished", func() bool { return !h.rootSitemapHas(name) })
		return
	}
	h.waitFor(name+"'s removal published", func() bool { return h.removedSince(n, name) })
	if h.rootSitemapHas(name) {
		h.t.Fatalf("%s: its removal was published, and the root sitemap still lists it", name)
	}
}

// removedSince reports whether a publish since the n-th removed the URL of
// the page name at the root.
func (h *harness) removedSince(n int, name string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, p := range h.pubs[n:] {
		for _, u := range p.Changes.Removed {
			if strings.HasSuffix(u, "/"+name) {
				return true
			}
		}
	}
	return false
}

// checkOracle stops the daemon and checks the invariant: a fresh full build
// of the final tree changes nothing on disk, for every site it served.
func (h *harness) checkOracle() {
	h.t.Helper()
	h.stop()
	proc, err := config.LoadProcessFile(h.cfgPath)
	if err != nil {
		h.t.Fatal(err)
	}
	for _, cfg := range proc.Sites {
		h.checkSite(cfg)
	}
}

// checkSite checks that a full build of one site changes nothing on disk.
func (h *harness) checkSite(cfg *config.Config) {
	h.t.Helper()
	e, err := build.New(cfg, nil, build.WithProgress(0))
	if err != nil {
		h.t.Fatal(err)
	}
	defer e.Close()
	root := cfg.OutputRoot()
	before := map[string]string{}
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && (strings.HasPrefix(d.Name(), "sitemap") || filepath.Ext(d.Name()) == ".atom") {
			b, _ := os.ReadFile(p)
			before[p] = string(b)
		}
		return nil
	})
	record := filepath.Join(root, textrecord.Name)
	recBefore, _ := os.ReadFile(record)
	rep, err := e.Build(context.Background())
	if err != nil {
		h.t.Fatal(err)
	}
	if recAfter, _ := os.ReadFile(record); string(recAfter) != string(recBefore) {
		h.t.Errorf("%s: the record of text sitemaps differs from a full build's:\n%s\nfull build:\n%s", root, recBefore, recAfter)
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
		return strings.Contains(string(b), "https://static.test/blog/post.html")
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
	if !contains(added, "https://static.test/blog/post.html") || !contains(removed, "https://static.test/blog/post.html") {
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

// TestRenamedDirectory: after mv d e, files written under e are listed and
// nothing under d is. A watch follows a directory, not its name, so a
// watcher that missed the rename would report e's new files under d.
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
		return strings.Contains(string(b), "https://static.test/docs/p.html")
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
	os.WriteFile(h.cfgPath, []byte(strings.Replace(testConfig, "https://static.test/", "https://other.example/", 1)), 0o644)
	h.waitFor("new base URL", func() bool { return h.rootSitemapHas("https://other.example/") })
	h.checkOracle()
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
				found = found || u.Loc == "https://static.test/docs/stable.html"
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
