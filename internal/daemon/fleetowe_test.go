package daemon

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/fleet/etcdtest"
)

// lastmodOf is the <lastmod> the docs/ sitemap gives page rel, or "".
func (h *harness) lastmodOf(rel string) string {
	b, _ := os.ReadFile(h.path("docs/sitemap.xml"))
	m := regexp.MustCompile(`<loc>https://static.test/` + regexp.QuoteMeta(rel) + `</loc>\s*<lastmod>([^<]+)</lastmod>`).FindSubmatch(b)
	if m == nil {
		return ""
	}
	return string(m[1])
}

// TestFleetAdoptedTimesAreNotOwed: a server whose first run publishes its
// own times (etcd down when it starts: a restored backup, a new replica)
// adopts the fleet's once etcd is back, and publishes its pages again
// with them. That publish changes no page's bytes: the versions are those
// another server published first, which that server owed (and its
// leader sent). The server owes nothing for them; owed, they would be
// sent again, a false change each, if it led one day. A page whose bytes
// changed on it meanwhile stays owed.
func TestFleetAdoptedTimesAreNotOwed(t *testing.T) {
	c := etcdtest.Start(t, 1)
	defer func(w time.Duration) { joinWait = w }(joinWait)
	joinWait = time.Second
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusOK)
	}))
	defer rcv.Close()
	notify := func(every string) string {
		return fmt.Sprintf("notify: {attempts: 1, endpoints: [{name: in, kind: indexnow, url: %q, key: 0123456789abcdef, schedule: \"@every %s\"}]}\n", rcv.URL, every)
	}
	pages := []string{"docs/a.html", "docs/b.html", "docs/c.html", "docs/d.html"}

	a := fleetMember(t, t.TempDir(), c.Endpoints(), "/owe.test/", "web-a", notify("1s"))
	for _, p := range pages {
		a.write(p)
	}
	a.write("index.html")
	a.start("web-a")
	a.sync()

	// web-b: the same bytes, with mtimes an hour earlier (a backup
	// restored with its mtimes), started while etcd is down: its first publish has its own
	// times, and owes nothing (its first run: the sitemaps announce the
	// site).
	c.KillAll()
	b := fleetMember(t, t.TempDir(), c.Endpoints(), "/owe.test/", "web-b", notify("1h")) // if it leads after the outage, what it owes stays
	earlier := time.Now().Add(-time.Hour)
	for _, p := range append(pages, "index.html") {
		b.write(p)
		os.Chtimes(b.path(p), earlier, earlier)
	}
	b.start("web-b")
	b.waitFor("web-b's first publish", func() bool { return b.lastmodOf("docs/a.html") != "" })
	if got, fleet := b.lastmodOf("docs/a.html"), a.lastmodOf("docs/a.html"); got == fleet {
		t.Fatalf("web-b published the fleet's time %s without etcd", got)
	}
	// A page whose bytes change on web-b alone: that change is its own.
	os.WriteFile(b.path("docs/d.html"), []byte("<title>d, edited on web-b</title>"), 0o644)
	own := []string{"https://static.test/docs/d.html"}
	b.waitFor("web-b to owe its edit", func() bool { return slices.Equal(b.owedURLs(), own) })

	c.RestartAll()
	for _, p := range pages[:3] {
		b.waitFor("web-b to adopt the fleet's time of "+p, func() bool { return b.lastmodOf(p) == a.lastmodOf(p) })
	}
	if got := b.owedURLs(); !slices.Equal(got, own) {
		t.Errorf("web-b owes %q after adopting the fleet's times, want %q (its own edit)", got, own)
	}
}
