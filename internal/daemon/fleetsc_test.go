package daemon

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/sitemapd/sitemapd/internal/fleet/etcdtest"
	"github.com/sitemapd/sitemapd/internal/searchconsole"
	"github.com/sitemapd/sitemapd/internal/searchconsole/sctest"
)

// fakeConsole is a fake of Google's API for one server of a fleet: the
// calls it answered.
type fakeConsole struct {
	srv   *httptest.Server
	mu    sync.Mutex
	calls []string
}

func newFakeConsole(t *testing.T) *fakeConsole {
	g := &fakeConsole{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"access_token":"tok","token_type":"Bearer","expires_in":3600}`)
	})
	mux.HandleFunc("/webmasters/v3/", func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		g.calls = append(g.calls, r.Method+" "+r.RequestURI)
		g.mu.Unlock()
		if r.Method == http.MethodGet {
			io.WriteString(w, `{"path":"x","isPending":true,"isSitemapsIndex":true,"errors":"0","warnings":"0","contents":[{"type":"web","submitted":"2"}]}`)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	g.srv = httptest.NewServer(mux)
	t.Cleanup(g.srv.Close)
	return g
}

func (g *fakeConsole) seen() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.calls)
}

// startFleetConsole runs a daemon, server name of a fleet on the etcd
// endpoints, whose searchconsole endpoint calls g.
func startFleetConsole(t *testing.T, endpoints []string, prefix, name string, g *fakeConsole) *harness {
	t.Helper()
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "gsc.json")
	sctest.WriteKey(t, keyFile, g.srv.URL+"/token", 0o600)
	h := fleetMember(t, dir, endpoints, prefix, name,
		fmt.Sprintf("notify: {endpoints: [{name: google, kind: searchconsole, property: \"sc-domain:static.test\", credentials: %s}]}\n", keyFile),
		searchconsole.WithAPIBase(g.srv.URL+"/webmasters/v3/"))
	h.write("index.html")
	h.write("docs/a.html")
	h.start(name)
	h.sync()
	return h
}

// fleetMember prepares a daemon in dir, server name of a fleet on the
// etcd endpoints, with the notify section given; start runs it.
func fleetMember(t *testing.T, dir string, endpoints []string, prefix, name, notify string, sc ...searchconsole.Option) *harness {
	t.Helper()
	h := &harness{t: t, dir: dir, root: filepath.Join(dir, "root"), cfgPath: filepath.Join(dir, "sitemapd.yaml"), reload: make(chan struct{}, 1)}
	cfg := testConfig + "pages: {lastmod: content}\n" +
		fmt.Sprintf("fleet: {etcd: {endpoints: [%s]}, prefix: %s, name: %s}\n", strings.Join(endpoints, ", "), prefix, name) + notify
	if err := os.WriteFile(h.cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	h.opts = Options{ConfigPath: h.cfgPath, Notifier: h, Reload: h.reload, SearchConsole: sc}
	return h
}

// start runs the daemon fleetMember prepared.
func (h *harness) start(name string) {
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel, h.done = cancel, make(chan error, 1)
	h.d = New(h.opts, zaptest.NewLogger(h.t, zaptest.Level(zap.WarnLevel)).Named(name))
	go func() { h.done <- h.d.Run(ctx) }()
	h.t.Cleanup(h.stop)
}

// TestSearchConsoleFollowsTheLeader: in a fleet (a real etcd), only the
// leader submits and polls; the other server, which publishes the same
// sitemaps and is told them alike, calls nothing. When the leader stops,
// the other is elected and takes the loop over: having no record of what
// was submitted (each server's state_dir), it submits the site's
// sitemaps again, which Search Console takes as the same submission.
func TestSearchConsoleFollowsTheLeader(t *testing.T) {
	c := etcdtest.Start(t, 1)
	const prefix = "/sc.test/"
	ga, gb := newFakeConsole(t), newFakeConsole(t)
	index := "PUT /webmasters/v3/sites/sc-domain%3Astatic.test/sitemaps/https%3A%2F%2Fstatic.test%2Fsitemap_index.xml"
	poll := "GET /webmasters/v3/sites/sc-domain%3Astatic.test/sitemaps/https%3A%2F%2Fstatic.test%2Fsitemap_index.xml"
	a := startFleetConsole(t, c.Endpoints(), prefix, "web-a", ga)
	a.waitFor("the leader's submission and poll", func() bool {
		s := ga.seen()
		return slices.Contains(s, index) && slices.Contains(s, poll)
	})
	b := startFleetConsole(t, c.Endpoints(), prefix, "web-b", gb)
	// b published and announced its sitemaps (sync); a change on b is
	// announced again. A client running would call at each.
	b.write("docs/b.html")
	b.sync()
	time.Sleep(2 * time.Second)
	if got := gb.seen(); len(got) != 0 {
		t.Fatalf("web-b, not the leader, called Search Console: %q", got)
	}
	a.stop() // resigns: b is elected at once
	b.waitFor("the new leader's submission and poll", func() bool {
		s := gb.seen()
		return slices.Contains(s, index) && slices.Contains(s, poll)
	})
	if n := len(ga.seen()); n == 0 {
		t.Error("web-a made no call")
	}
}
