package daemon

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/fleet/etcdtest"
)

// lastmodOf is the <lastmod> the sitemap of page rel's top directory
// gives it (depth: 1), or "".
func (h *harness) lastmodOf(rel string) string {
	top, _, _ := strings.Cut(rel, "/")
	b, _ := os.ReadFile(h.path(top + "/sitemap.xml"))
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
	rcv := newReceiver(t)
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
	// restored with its mtimes), started while etcd is down: its first
	// publish has its own times, and owes nothing (its first run: the
	// sitemaps announce the site).
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

// owedDocs is what the daemon owes of the pages of docs/ (not the
// harness's sync pages, at the root, which are its own).
func (h *harness) owedDocs() []string {
	return slices.DeleteFunc(h.owedURLs(), func(u string) bool { return !strings.HasPrefix(u, "https://static.test/docs/") })
}

// TestFleetLateCopyNotOwed: the leader sent a page's change, and marked
// it sent, before a follower's copy got the same bytes (a deploy that
// reached it later). The follower publishes the change with the fleet's
// time and owes nothing for it: the mark came before the change here,
// and the change is the version the leader sent. A page whose bytes on
// the follower are its own (not the version the leader sent) stays
// owed.
func TestFleetLateCopyNotOwed(t *testing.T) {
	c := etcdtest.Start(t, 1)
	rcv := newReceiver(t)
	notify := func(when string) string {
		return fmt.Sprintf("notify: {attempts: 1, endpoints: [{name: in, kind: indexnow, url: %q, key: 0123456789abcdef, %s}]}\n", rcv.URL, when)
	}
	a := fleetMember(t, t.TempDir(), c.Endpoints(), "/late.test/", "web-a", notify("delay: 0s"))
	b := fleetMember(t, t.TempDir(), c.Endpoints(), "/late.test/", "web-b", notify(`schedule: "@every 1h"`))
	earlier := time.Now().Add(-time.Hour) // its edit below changes its lastmod
	for _, h := range []*harness{a, b} {
		h.write("index.html")
		h.write("docs/both.html")
		os.Chtimes(h.path("docs/both.html"), earlier, earlier)
	}
	a.start("web-a")
	a.sync()
	b.start("web-b")
	b.sync()

	// On web-a: two pages, sent in one batch. On web-b: one of them,
	// which it owes until the mark of that batch arrives: then it has the
	// mark of the other page too.
	write := func(h *harness, rel, body string) {
		if err := os.WriteFile(h.path(rel), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(a, "docs/both.html", "<title>both, edited</title>")
	write(a, "docs/late.html", "<title>late</title>")
	write(a, "docs/own.html", "<title>own, as web-a has it</title>")
	write(b, "docs/both.html", "<title>both, edited</title>")
	for _, p := range []string{"docs/both.html", "docs/late.html", "docs/own.html"} {
		a.waitFor("web-a to send "+p, func() bool { return rcv.Got("https://static.test/" + p) })
	}
	b.waitFor("web-b to forget what web-a sent", func() bool {
		return b.lastmodOf("docs/both.html") == a.lastmodOf("docs/both.html") && len(b.owedDocs()) == 0
	})

	// The deploy reaches web-b: late.html as web-a has it, own.html with
	// other bytes.
	write(b, "docs/late.html", "<title>late</title>")
	write(b, "docs/own.html", "<title>own, as web-b has it</title>")
	b.waitFor("web-b to publish them", func() bool { return b.lastmodOf("docs/late.html") != "" && b.lastmodOf("docs/own.html") != "" })
	if got, want := b.lastmodOf("docs/late.html"), a.lastmodOf("docs/late.html"); got != want {
		t.Errorf("web-b's lastmod of late.html %s, want the fleet's %s", got, want)
	}
	if got, want := b.owedDocs(), []string{"https://static.test/docs/own.html"}; !slices.Equal(got, want) {
		t.Errorf("web-b owes %q, want %q: what web-a sent of the same bytes is not owed, its own bytes are", got, want)
	}
}
