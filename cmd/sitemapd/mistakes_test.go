package main

import (
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// realDocs is a real documentation tree: PostgreSQL's, from Debian's
// postgresql-doc-15 (1,169 pages), which .ci/run installs.
const realDocs = "/usr/share/doc/postgresql-doc-15/html"

// mistakeSite is the daemon serving a copy of realDocs, its sitemaps kept
// apart from the content (output_dir, the layout docs/operations.md gives
// for content on a mounted volume), telling a receiver on 127.0.0.1.
type mistakeSite struct {
	dir, root, out, cfg, addr string
	rcv                       *receiver
	c                         *child
}

func newMistakeSite(t *testing.T) *mistakeSite {
	t.Helper()
	realDocsOrSkip(t)
	dir := t.TempDir()
	m := &mistakeSite{dir: dir, root: filepath.Join(dir, "www"), out: filepath.Join(dir, "sitemaps"), cfg: filepath.Join(dir, "sitemapd.yaml"), rcv: newReceiver(t)}
	command(t, "cp", "-a", realDocs, m.root)
	os.Mkdir(m.out, 0o755)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m.addr = ln.Addr().String()
	ln.Close()
	body := fmt.Sprintf("root: www\noutput_dir: sitemaps\nbase_url: https://static.test/\nstate_dir: state\nlog: {format: json}\nlisten: %s\n%s",
		m.addr, notifyConfig(m.rcv.URL))
	if err := os.WriteFile(m.cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return m
}

func (m *mistakeSite) start(t *testing.T) {
	t.Helper()
	m.c = startChild(t, m.cfg)
	m.c.expect(t, "READY=1")
}

// sitemaps returns every file below the output directory and its bytes.
func (m *mistakeSite) sitemaps(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(m.out, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && !strings.HasPrefix(d.Name(), ".") {
			b, _ := os.ReadFile(p)
			out[p] = string(b)
		}
		return nil
	})
	return out
}

func (m *mistakeSite) health() (int, string) {
	resp, err := http.Get("http://" + m.addr + "/healthz")
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// refused waits until /healthz says the shrink guard holds the site,
// naming why, then checks that the sitemaps are as they were and nothing
// was sent since mark.
func (m *mistakeSite) refused(t *testing.T, what string, before map[string]string, mark int) {
	t.Helper()
	poll(t, "/healthz to say the shrink guard holds "+what, func() (bool, string) {
		code, body := m.health()
		return code == http.StatusServiceUnavailable && strings.Contains(body, "gone from the document root"), body
	})
	if after := m.sitemaps(t); !maps.Equal(after, before) {
		t.Errorf("%s: the sitemaps changed though the guard refused", what)
	}
	if got := m.rcv.URLs(mark); len(got) != 0 {
		t.Errorf("%s: %d URLs sent, want none: %.3q", what, len(got), got)
	}
}

// TestMistakesKeepTheSite plays, on PostgreSQL's documentation with the
// daemon running, the mistakes that used to empty a site: a deploy that
// deletes 90% of the pages, a restart while the content's volume is not
// mounted (an empty directory in its place), and root pointed at another
// tree. Each time the old sitemaps stay, nothing is sent, /healthz says
// why; the site put right publishes nothing new; and the deliberate step
// (stop, `sitemapd build -force`, start) publishes a shrink that is meant.
func TestMistakesKeepTheSite(t *testing.T) {
	m := newMistakeSite(t)
	m.start(t)
	before := m.sitemaps(t)
	if len(before) < 3 {
		t.Fatalf("only %d files published", len(before))
	}
	pages, _ := filepath.Glob(filepath.Join(m.root, "*.html"))
	slices.Sort(pages)
	mark := m.rcv.Mark()

	// A deploy that deletes 90% of the pages, with the daemon running.
	aside := filepath.Join(m.dir, "aside")
	os.Mkdir(aside, 0o755)
	cut := pages[:len(pages)*9/10]
	for _, p := range cut {
		if err := os.Rename(p, filepath.Join(aside, filepath.Base(p))); err != nil {
			t.Fatal(err)
		}
	}
	m.refused(t, "a deploy that deleted 90% of the pages", before, mark)
	for _, p := range cut { // the deploy put right
		os.Rename(filepath.Join(aside, filepath.Base(p)), p)
	}
	poll(t, "/healthz ok once the pages are back", func() (bool, string) {
		code, body := m.health()
		return code == http.StatusOK, body
	})
	m.c.stop(t)

	// Restarted while the volume is not mounted: an empty directory.
	volume := filepath.Join(m.dir, "volume")
	if err := os.Rename(m.root, volume); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(m.root, 0o755)
	m.start(t)
	m.refused(t, "a restart with the volume not mounted", before, mark)
	m.c.stop(t)
	os.Remove(m.root)
	os.Rename(volume, m.root)

	// root pointed at another tree.
	other := filepath.Join(m.dir, "other")
	for i := range 40 {
		writeFileAt(t, filepath.Join(other, fmt.Sprintf("p%d.html", i)), []byte("<title>other</title>"), time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC))
	}
	cfg, _ := os.ReadFile(m.cfg)
	os.WriteFile(m.cfg, []byte(strings.Replace(string(cfg), "root: www", "root: other", 1)), 0o644)
	m.start(t)
	m.refused(t, "root pointed at another tree", before, mark)
	m.c.stop(t)
	os.WriteFile(m.cfg, cfg, 0o644)

	// The site as it was: nothing to publish, nothing sent.
	m.start(t)
	poll(t, "/healthz ok", func() (bool, string) { code, body := m.health(); return code == http.StatusOK, body })
	if after := m.sitemaps(t); !maps.Equal(after, before) {
		t.Error("the sitemaps changed, the site being as it was")
	}
	m.c.stop(t)
	if got := m.rcv.URLs(mark); len(got) != 0 {
		t.Errorf("%d URLs sent over the mistakes, want none", len(got))
	}

	// A shrink that is meant: stop, build -force, start; the pages it
	// removed are sent, and nothing else.
	var removed []string
	for _, p := range cut {
		os.Remove(p)
		u := base + "/" + filepath.Base(p)
		if filepath.Base(p) == "index.html" {
			u = base + "/"
		}
		removed = append(removed, u)
	}
	mark = m.rcv.Mark()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "SITEMAPD_CLI_ARGS=build\n-config\n"+m.cfg+"\n-force")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sitemapd build -force: %v\n%s", err, out)
	}
	m.start(t)
	poll(t, "/healthz ok after the forced shrink", func() (bool, string) { code, body := m.health(); return code == http.StatusOK, body })
	n := 0
	for p, b := range m.sitemaps(t) {
		if strings.HasSuffix(p, ".xml") {
			n += strings.Count(b, "<url>")
		}
	}
	if want := len(pages) - len(cut); n < want || n > want+len(pages)/20 {
		t.Errorf("after the forced shrink the sitemaps list %d URLs, want about %d", n, want)
	}
	m.rcv.waitFor(t, mark, removed...)
	m.c.stop(t)
	if got := m.rcv.URLs(mark); len(got) != len(removed) {
		t.Errorf("after the forced shrink %d URLs sent, want the %d removed", len(got), len(removed))
	}
}
