package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// multiSite is a process configuration of several sites in a temporary
// directory: sites.d holds one file a site, and each site's document
// root is www/NAME.
type multiSite struct {
	t    *testing.T
	dir  string
	cfg  string
	addr string // listen address
}

func newMultiSite(t *testing.T, top string) *multiSite {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := &multiSite{t: t, dir: t.TempDir(), addr: ln.Addr().String()}
	ln.Close()
	m.cfg = filepath.Join(m.dir, "sitemapd.yaml")
	os.MkdirAll(filepath.Join(m.dir, "sites.d"), 0o755)
	body := "state_dir: state\nlisten: " + m.addr + "\nlog: {format: json}\ninclude: [sites.d/*.yaml]\n" + top
	if err := os.WriteFile(m.cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return m
}

// root is the document root of site name.
func (m *multiSite) root(name string) string { return filepath.Join(m.dir, "www", name) }

// addSite writes sites.d/NAME.yaml for a site at https://NAME.test/, with
// an index page.
func (m *multiSite) addSite(name string) {
	m.t.Helper()
	m.page(name, "index.html")
	body := fmt.Sprintf("root: ../www/%s\nbase_url: https://%s.test/\nwatch: {settle: 50ms, max_delay: 500ms, rescan: 0s}\n", name, name)
	m.writeSiteFile(name, body)
}

func (m *multiSite) writeSiteFile(name, body string) {
	m.t.Helper()
	// Written aside and renamed, as an editor or a package manager does,
	// so the daemon never reads half a file.
	p := filepath.Join(m.dir, "sites.d", name+".yaml")
	if err := os.WriteFile(p+".tmp", []byte(body), 0o644); err != nil {
		m.t.Fatal(err)
	}
	if err := os.Rename(p+".tmp", p); err != nil {
		m.t.Fatal(err)
	}
}

func (m *multiSite) page(site, rel string) {
	m.t.Helper()
	p := filepath.Join(m.root(site), rel)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte("<title>"+rel+"</title>"), 0o644); err != nil {
		m.t.Fatal(err)
	}
}

// locs reads the URLs a site's sitemaps list, following its index, with
// encoding/xml: the sitemaps.org elements, as a crawler reads them.
func (m *multiSite) locs(site string) []string {
	index := readLocs(filepath.Join(m.root(site), "sitemap_index.xml"))
	var urls []string
	prefix := "https://" + site + ".test/"
	for _, sm := range index {
		rel, ok := strings.CutPrefix(sm, prefix)
		if !ok {
			m.t.Errorf("site %s: index lists %s, not on its host", site, sm)
			continue
		}
		urls = append(urls, readLocs(filepath.Join(m.root(site), filepath.FromSlash(rel)))...)
	}
	slices.Sort(urls)
	return urls
}

func readLocs(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var doc struct {
		Locs []string `xml:"url>loc"`
		Maps []string `xml:"sitemap>loc"`
	}
	if xml.Unmarshal(b, &doc) != nil {
		return nil
	}
	return append(doc.Locs, doc.Maps...)
}

// waitLocs waits until site's sitemaps list exactly the pages named
// (paths from its root, as URLs).
func (m *multiSite) waitLocs(site string, pages ...string) {
	m.t.Helper()
	var want []string
	for _, p := range pages {
		want = append(want, "https://"+site+".test/"+p)
	}
	slices.Sort(want)
	deadline := time.Now().Add(60 * time.Second)
	for {
		got := m.locs(site)
		if slices.Equal(got, want) {
			return
		}
		if time.Now().After(deadline) {
			m.t.Fatalf("site %s lists %q, want %q", site, got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (m *multiSite) get(path string) (int, string) {
	m.t.Helper()
	resp, err := http.Get("http://" + m.addr + path)
	if err != nil {
		m.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestMultiSiteRun: one `sitemapd run` keeps three sites (one inline under
// sites:, two included) true through changes, each in its own output and
// state; a reload that adds a site and breaks another starts the new one,
// names the broken file and line in the log, keeps the broken one on its
// last valid configuration, and leaves the others publishing. /healthz
// answers per site and overall, /metrics labels by site.
func TestMultiSiteRun(t *testing.T) {
	m := newMultiSite(t, "sites:\n  - name: a\n    root: www/a\n    base_url: https://a.test/\n    watch: {settle: 50ms, max_delay: 500ms, rescan: 0s}\n")
	m.page("a", "index.html")
	m.addSite("b")
	m.addSite("c")
	if code, out, stderr := runCLI("check", "-config", m.cfg); code != ExitOK || !strings.Contains(out, "3 sites") {
		t.Fatalf("check: exit %d, %q %q", code, out, stderr)
	}
	c := startChild(t, m.cfg)
	c.expect(t, "READY=1")
	for _, s := range []string{"a", "b", "c"} {
		m.waitLocs(s, "")
		if _, err := os.Stat(filepath.Join(m.dir, "state", s)); err != nil {
			t.Errorf("site %s has no state directory of its own: %v", s, err)
		}
	}

	// A second daemon on the same sites is refused (exit 2): every site's
	// output is locked by the first.
	second := startChild(t, m.cfg)
	if err := second.cmd.Wait(); second.cmd.ProcessState.ExitCode() != ExitUsage {
		t.Errorf("a second daemon on the same sites: %v, want exit %d", err, ExitUsage)
	}

	// Changes in each site show in its sitemaps only.
	m.page("a", "docs/one.html")
	m.page("b", "two.html")
	os.Remove(filepath.Join(m.root("c"), "index.html"))
	m.page("c", "blog/three.html")
	m.waitLocs("a", "", "docs/one.html")
	m.waitLocs("b", "", "two.html")
	m.waitLocs("c", "blog/three.html")

	if code, body := m.get("/healthz"); code != 200 || !strings.Contains(body, `"c":{"status":"ok"`) {
		t.Errorf("/healthz: %d %s", code, body)
	}
	// The gauges are set once a publish is recorded, a moment after its
	// files land.
	poll(t, "/metrics to show the URLs by site", func() (bool, string) {
		_, body := m.get("/metrics")
		var urls []string
		for line := range strings.Lines(body) {
			if strings.HasPrefix(line, "sitemapd_urls{") {
				urls = append(urls, strings.TrimSpace(line))
			}
		}
		return strings.Contains(body, `sitemapd_urls{site="a"} 2`) && strings.Contains(body, `sitemapd_urls{site="c"} 1`), fmt.Sprint(urls)
	})

	// Reload: d is added, c's file is broken (a list where a URL goes).
	m.addSite("d")
	m.writeSiteFile("c", "root: ../www/c\nbase_url: [https://c.test/]\n")
	c.expect(t, "RELOADING=1")
	c.expect(t, "READY=1")
	m.waitLocs("d", "")
	deadline := time.Now().Add(30 * time.Second)
	cFile := filepath.Join(m.dir, "sites.d", "c.yaml")
	for !strings.Contains(c.stderr.String(), cFile+":2: base_url") {
		if time.Now().After(deadline) {
			t.Fatalf("the log does not name %s:2: base_url", cFile)
		}
		time.Sleep(20 * time.Millisecond)
	}
	m.page("a", "after.html")
	m.page("b", "after.html")
	m.page("c", "after.html") // c serves its last valid configuration
	m.waitLocs("a", "", "docs/one.html", "after.html")
	m.waitLocs("b", "", "two.html", "after.html")
	m.waitLocs("c", "blog/three.html", "after.html")

	code, body := m.get("/healthz")
	var h struct {
		Status, Reason string
		Sites          map[string]struct{ Status, Reason string }
	}
	if err := json.Unmarshal([]byte(body), &h); err != nil || code != 503 || h.Sites["c"].Status != "unhealthy" ||
		!strings.Contains(h.Reason, "site c: ") || h.Sites["a"].Status != "ok" || h.Sites["d"].Status != "ok" {
		t.Errorf("/healthz with c broken: %d %s", code, body)
	}
	if code, body := m.get("/healthz?site=a"); code != 200 || !strings.Contains(body, `"status":"ok"`) {
		t.Errorf("/healthz?site=a: %d %s", code, body)
	}
	if code, out, _ := runCLI("health", "-config", m.cfg, "-site", "b"); code != ExitOK || out != "ok\n" {
		t.Errorf("health -site b: exit %d, %q", code, out)
	}
	if code, out, _ := runCLI("health", "-config", m.cfg); code != ExitFailure || !strings.Contains(out, "site c") {
		t.Errorf("health: exit %d, %q; want 1 naming site c", code, out)
	}

	// c mended: it takes its new configuration, and all are healthy.
	m.writeSiteFile("c", "root: ../www/c\nbase_url: https://c.test/\nwatch: {settle: 50ms, max_delay: 500ms, rescan: 0s}\n")
	deadline = time.Now().Add(60 * time.Second)
	for {
		code, body := m.get("/healthz")
		if code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/healthz after c was mended: %d %s", code, body)
		}
		time.Sleep(20 * time.Millisecond)
	}

	// d removed: it is stopped (no longer on /healthz), its sitemaps stay.
	os.Remove(filepath.Join(m.dir, "sites.d", "d.yaml"))
	deadline = time.Now().Add(60 * time.Second)
	for {
		if _, body := m.get("/healthz"); !strings.Contains(body, `"d":`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("site d still served after its file was removed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	m.page("a", "last.html")
	m.waitLocs("a", "", "docs/one.html", "after.html", "last.html")
}

// TestManySitesOneInotify: 200 small sites in one process share their
// inotify instances (two: events, and files closed after writing), counted
// in /proc/PID/fd (links to anon_inode:inotify).
func TestManySitesOneInotify(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc: cannot count inotify instances")
	}
	m := newMultiSite(t, "")
	const n = 200
	for i := range n {
		m.addSite(fmt.Sprintf("s%03d", i))
	}
	c := startChild(t, m.cfg)
	c.expect(t, "READY=1")
	m.page("s123", "new.html")
	m.waitLocs("s123", "", "new.html")
	pid := c.cmd.Process.Pid
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	instances := 0
	for _, fd := range fds {
		if l, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name())); l == "anon_inode:inotify" {
			instances++
		}
	}
	// One for fsnotify's events, one for files closed after writing
	// (internal/watch/closes.go), whatever the number of sites.
	if instances != 2 {
		t.Errorf("%d sites take %d inotify instances, want 2", n, instances)
	}
	if status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
		for _, l := range strings.Split(string(status), "\n") {
			if strings.HasPrefix(l, "VmRSS:") || strings.HasPrefix(l, "Threads:") {
				t.Logf("%d sites: %s", n, strings.Join(strings.Fields(l), " "))
			}
		}
	}
}

// TestMultiSiteCommands: check, build and ping act on every site of a
// multi-site configuration, or on the one -site names; a site whose file
// is invalid fails the commands that would act on it, named by file and
// line, and not those that act on another.
func TestMultiSiteCommands(t *testing.T) {
	m := newMultiSite(t, "")
	m.addSite("a")
	m.addSite("b")
	index := func(site string) string { return filepath.Join(m.root(site), "sitemap_index.xml") }
	if code, out, stderr := runCLI("check", "-config", m.cfg); code != ExitOK || !strings.Contains(out, "2 sites") {
		t.Fatalf("check: exit %d, %q %q", code, out, stderr)
	}
	if code, _, stderr := runCLI("build", "-config", m.cfg, "-site", "a"); code != ExitOK {
		t.Fatalf("build -site a: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(index("b")); err == nil {
		t.Error("build -site a built b too")
	}
	m.waitLocs("a", "")
	if code, _, stderr := runCLI("build", "-config", m.cfg); code != ExitOK {
		t.Fatalf("build: exit %d: %s", code, stderr)
	}
	m.waitLocs("b", "")
	// A file on disk is checked as served by the site whose output holds it.
	if code, out, _ := runCLI("check", "-config", m.cfg, filepath.Join(m.root("b"), "sitemap.xml")); code != ExitOK {
		t.Errorf("check b's sitemap: exit %d: %s", code, out)
	}
	if code, out, _ := runCLI("ping", "-config", m.cfg, "-site", "b"); code != ExitOK || !strings.Contains(out, "(site b): no notify endpoints") {
		t.Errorf("ping -site b: exit %d, %q", code, out)
	}

	m.writeSiteFile("b", "root: ../www/b\nbase_url: ftp://b.test/\n")
	bFile := filepath.Join(m.dir, "sites.d", "b.yaml")
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"check"}, ExitUsage, bFile + ":2: base_url: \"ftp://b.test/\" must start with http:// or https://"},
		{[]string{"build"}, ExitUsage, bFile + ":2: base_url"},
		{[]string{"build", "-site", "b"}, ExitUsage, bFile + ":2: base_url"},
		{[]string{"build", "-site", "zz"}, ExitUsage, `no site is named "zz" (its sites: a)`},
		{[]string{"check", "-site", "a"}, ExitOK, ""},
		{[]string{"build", "-site", "a"}, ExitOK, ""},
	} {
		code, _, stderr := runCLI(append(tc.args, "-config", m.cfg)...)
		if code != tc.code || !strings.Contains(stderr, tc.stderr) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, tc.code, tc.stderr)
		}
	}
}
