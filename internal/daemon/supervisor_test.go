package daemon

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest"
	"go.uber.org/zap/zaptest/observer"
)

// multi is a daemon serving the sites of one configuration file, inline
// under sites:, each over its own document root.
type multi struct {
	t    *testing.T
	dir  string
	cfg  string
	rec  *recorder
	logs *observer.ObservedLogs
}

// siteEntry is a site's entry under sites:, with extra keys (indented).
func siteEntry(name, extra string) string {
	return fmt.Sprintf("  - name: %s\n    root: www/%s\n    base_url: https://%s.test/\n    watch: {settle: 50ms, max_delay: 500ms, rescan: 0s}\n%s", name, name, name, extra)
}

func startMulti(t *testing.T, entries ...string) *multi {
	t.Helper()
	m := &multi{t: t, dir: t.TempDir(), rec: newRecorder()}
	m.cfg = filepath.Join(m.dir, "sitemapd.yaml")
	for _, n := range []string{"a", "b", "c"} {
		os.MkdirAll(filepath.Join(m.dir, "www", n), 0o755)
		os.WriteFile(filepath.Join(m.dir, "www", n, "index.html"), []byte("<title>"+n+"</title>"), 0o644)
	}
	m.write(entries...)
	core, logs := observer.New(zap.InfoLevel)
	m.logs = logs
	log := zap.New(zapcore.NewTee(zaptest.NewLogger(t, zaptest.Level(zap.InfoLevel)).Core(), core))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	d := New(Options{ConfigPath: m.cfg, Lifecycle: m.rec}, log)
	go func() { done <- d.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("Run did not return")
		}
	})
	return m
}

func (m *multi) write(entries ...string) {
	m.t.Helper()
	body := "state_dir: state\nsites:\n" + strings.Join(entries, "")
	if err := os.WriteFile(m.cfg+".tmp", []byte(body), 0o644); err != nil {
		m.t.Fatal(err)
	}
	os.Rename(m.cfg+".tmp", m.cfg)
}

// count is how many times msg was logged for site; the page prints build
// that follows a first build (PagePrints) is not counted as a publish.
func (m *multi) count(msg, site string) int {
	n := 0
	for _, e := range m.logs.FilterMessage(msg).All() {
		if c := e.ContextMap(); c["site"] == site && c["trigger"] != PagePrints.String() {
			n++
		}
	}
	return n
}

func (m *multi) waitLog(what string, cond func() bool) {
	m.t.Helper()
	(&harness{t: m.t}).waitFor(what, cond)
}

// TestSupervisorReload: READY comes once every site has published, the
// status counts the sites; a reload restarts only the site whose
// configuration changed, starts the added one, stops the removed one, and
// one invalid site keeps its last valid configuration while the others
// take theirs.
func TestSupervisorReload(t *testing.T) {
	m := startMulti(t, siteEntry("a", ""), siteEntry("b", ""))
	m.rec.wait(t, "READY", has("READY"))
	for _, s := range []string{"a", "b"} {
		if m.count("published", s) != 1 {
			t.Errorf("site %s published %d times before READY, want 1", s, m.count("published", s))
		}
	}
	want := "STATUS=2 sites: published 2 groups, 2 URLs; waiting for changes"
	m.rec.wait(t, want, has(want))

	// a changes (depth), c is added, b stays as it was.
	m.write(siteEntry("a", "    depth: 2\n"), siteEntry("b", ""), siteEntry("c", ""))
	m.waitLog("c started and a rebuilt", func() bool {
		return m.count("published", "c") == 1 && m.count("configuration reloaded; rebuilding", "a") == 1
	})
	m.rec.wait(t, "READY again", func(es []event) bool {
		n := 0
		for _, e := range es {
			if e.what == "READY" {
				n++
			}
		}
		return n == 2
	})
	if n := m.count("starting", "b"); n != 1 {
		t.Errorf("b, unchanged, started %d times, want once", n)
	}

	// b removed, a made invalid: b stops, a keeps serving, c goes on.
	m.write(siteEntry("a", "    depth: -1\n"), siteEntry("c", "    depth: 3\n"))
	m.waitLog("c rebuilt", func() bool { return m.count("configuration reloaded; rebuilding", "c") == 1 })
	m.waitLog("b stopped", func() bool {
		return len(m.logs.FilterMessage("site removed from the configuration; stopping it").All()) == 1
	})
	bad := m.logs.FilterMessage("site configuration is invalid; the site keeps its last valid one").All()
	if len(bad) != 1 || !strings.Contains(fmt.Sprint(bad[0].ContextMap()["error"]), "sitemapd.yaml:7: sites[0].depth: -1 is outside") {
		t.Errorf("a's invalid configuration logged %v", bad)
	}
	if n := m.count("configuration reloaded; rebuilding", "a"); n != 1 {
		t.Errorf("a rebuilt %d times, want once (its invalid configuration is not taken)", n)
	}
	os.WriteFile(filepath.Join(m.dir, "www", "a", "new.html"), []byte("n"), 0o644)
	m.waitLog("a publishes its change", func() bool {
		b, _ := os.ReadFile(filepath.Join(m.dir, "www", "a", "sitemap.xml"))
		return strings.Contains(string(b), "https://a.test/new.html")
	})
}
