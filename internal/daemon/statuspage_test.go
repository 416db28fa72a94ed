package daemon

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/sitemapd/sitemapd/internal/build"
	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/ping"
	"github.com/sitemapd/sitemapd/internal/status"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// statusKey and statusToken are the IndexNow key and a secret in the
// endpoint's URL: neither may show on the status page.
const (
	statusKey   = "statuspagekey0042"
	statusToken = "s3cr3t-t0ken-9481"
)

// TestStatusPage runs a daemon listening on 127.0.0.1 with an IndexNow
// receiver there too, through a few publishes and a submission; /status
// and /status?format=text then show the URLs listed, the publishes, and
// the submission with its HTTP status; neither shows the test's
// directories, the key or the secret in the endpoint's URL.
func TestStatusPage(t *testing.T) {
	rcv := newReceiver(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	h := start(t, fmt.Sprintf("listen: %s\nnotify: {attempts: 1, endpoints: [{name: receiver, kind: indexnow, url: %q, key: %s, schedule: \"@every 1s\"}]}\n",
		addr, rcv.URL+"/indexnow?token="+statusToken, statusKey))
	// After the first build: a page it finds is not submitted (a first
	// run owes search engines nothing), so the pages to submit come
	// after it.
	h.sync()
	h.write("blog/a.html")
	h.write("blog/b.html")
	// Pages left out, per group: in /blog/ one noindex, in /docs/ one
	// redirect stub and one that names another page canonical. Written
	// after the first publish, they come in changes, not a full build.
	writeHead := func(rel, head string) {
		t.Helper()
		h.write(rel)
		if err := os.WriteFile(h.path(rel), []byte("<html><head>"+head+"</head></html>"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeHead("blog/hidden.html", `<meta name="robots" content="noindex">`)
	// Its lastmod the date its head states (pages.head_dates, on by
	// default): the one page counted under "page date".
	writeHead("docs/index.html", `<title>docs</title><meta property="article:modified_time" content="2021-03-04T05:06:07Z">`)
	writeHead("docs/moved.html", `<meta http-equiv="refresh" content="0; url=/docs/">`)
	writeHead("docs/copy.html", `<link rel="canonical" href="https://static.test/docs/">`)
	h.sync()
	h.waitFor("blog/a.html submitted", func() bool { return rcv.Got("https://static.test/blog/a.html") })

	get := func(target string) (int, http.Header, string) {
		t.Helper()
		resp, err := http.Get("http://" + addr + target)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, string(b)
	}
	// The groups as the fixture makes them (sync markers come and go at
	// the root: what the page shows is read after them).
	groups := "groups (3; those with pages left out first):\n" +
		"  /blog/  2 listed, 1 left out\n" +
		"    lastmods: page date 0, content 2, mtime 0\n" +
		"    noindex: 1\n" +
		"      https://static.test/blog/hidden.html\n" +
		"  /docs/  1 listed, 2 left out\n" +
		"    lastmods: page date 1, content 0, mtime 0\n" +
		"    canonical elsewhere: 1\n" +
		"      https://static.test/docs/copy.html\n" +
		"    redirect: 1\n" +
		"      https://static.test/docs/moved.html\n" +
		"  /  1 listed\n" +
		"    lastmods: page date 0, content 1, mtime 0\n"
	// The submission is recorded once its answer is read, which may be a
	// moment after the receiver has the URLs, and its URLs are no longer
	// owed a moment after that (the notifier forgets them once the answer
	// is judged): wait for both.
	var text string
	defer func() {
		if t.Failed() {
			t.Logf("the last text /status answered:\n%s", text)
		}
	}()
	h.waitFor("/status to show the submission and the groups", func() bool {
		_, _, text = get("/status?format=text")
		return strings.Contains(text, "recent submissions") && strings.Contains(text[strings.Index(text, "recent submissions"):], "receiver") &&
			strings.Contains(text, "owed to search engines: 0 URLs") && strings.Contains(text, groups)
	})
	code, hd, page := get("/status")
	if code != http.StatusOK || !strings.HasPrefix(hd.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /status: %d %s", code, hd.Get("Content-Type"))
	}
	for _, want := range []string{
		"https://static.test/",
		"health: ok",
		"listed: 4 URLs in 3 sitemaps", // index.html, blog/a.html, blog/b.html, docs/ in /, /blog/, /docs/
		groups,
		"owed to search engines: 0 URLs",
		// docs/index.html states its date; the others' lastmods come from
		// their content (pages.lastmod: significant, by default).
		"lastmods from: page date 1, content 3, mtime 0\n",
		"receiver  http://127.0.0.1:",
		"last answer HTTP 200",
		"initial build",
		"change",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the text lacks %q:\n%s", want, text)
		}
	}
	if n := movedPageDates(t, text); n != 1 {
		t.Errorf("the recent publishes moved %d lastmods to a page date, want 1 (docs/index.html's):\n%s", n, text)
	}
	sub := text[strings.Index(text, "recent submissions"):]
	if !strings.Contains(sub, "receiver") || !strings.Contains(sub, "HTTP 200") {
		t.Errorf("no submission answered HTTP 200:\n%s", sub)
	}
	for _, want := range []string{"receiver", "HTTP 200", "initial build", "https://static.test/", "https://static.test/docs/moved.html"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for name, body := range map[string]string{"text": text, "page": page} {
		for _, secret := range []string{h.dir, statusKey, statusToken} {
			if strings.Contains(body, secret) {
				t.Errorf("the %s shows %q", name, secret)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(h.dir, "state", status.FileName)); err != nil {
		t.Errorf("no history in state_dir: %v", err)
	}
	if code, _, _ := get("/status?site=other"); code != http.StatusNotFound {
		t.Errorf("GET /status?site=other: %d, want 404", code)
	}
	// The history outlives the daemon: a restart shows the publishes so far.
	// Its first build finds the same groups, the pages hidden by their
	// heads among them whether it reads them again or takes them from
	// the page store.
	// (The harness's sync marker may be listed a moment at the root.)
	h.stop()
	h.run()
	h.waitFor("the groups as they were", func() bool {
		_, _, text = get("/status?format=text")
		return strings.Contains(text, groups)
	})
	if !strings.Contains(text, "HTTP 200") || strings.Count(text, "initial build") < 2 {
		t.Errorf("after a restart, the history is lost:\n%s", text)
	}
	// The pages taken from the page store keep their sources, and the
	// first build moved none.
	if !strings.Contains(text, "lastmods from: page date 1, content 3, mtime 0\n") || movedPageDates(t, text) != 1 {
		t.Errorf("after a restart, the sources are not what they were:\n%s", text)
	}
}

// movedPageDates sums the page dates of the "moved" column (page
// date/content/mtime) of the text's recent publishes.
func movedPageDates(t *testing.T, text string) int {
	t.Helper()
	n := 0
	for line := range strings.Lines(text) {
		_, moved, ok := strings.Cut(line, "moved ")
		if !ok || strings.HasPrefix(moved, "page date") {
			continue
		}
		var pd, c, m int
		if _, err := fmt.Sscanf(moved, "%d/%d/%d", &pd, &c, &m); err != nil {
			t.Fatalf("a publish's moved column %q: %v", line, err)
		}
		n += pd
	}
	return n
}

// TestStatusWithoutHistory: a history that cannot be opened (its state
// directory cannot be made) is logged, records nothing and shows an empty
// activity; it stops nothing.
func TestStatusWithoutHistory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	core, logs := observer.New(zap.InfoLevel)
	hist := openHistory(filepath.Join(file, "state"), zap.New(core))
	if hist != nil {
		t.Fatal("a history opened under a regular file")
	}
	if logs.FilterMessageSnippet("history cannot be opened").Len() != 1 {
		t.Errorf("not logged: %v", logs.All())
	}
	hist.publish(status.Publish{Trigger: "change"})
	hist.submission(ping.Attempt{Endpoint: "e", URLs: 1, Status: 200})
	if a := hist.activity(); len(a.Publishes)+len(a.Submissions) != 0 {
		t.Errorf("activity %+v", a)
	}
	hist.close()
}

// BenchmarkGroupsOf is what the daemon does per request of /status with
// the engine's groups: 20,000 of them, one in four with pages left out.
func BenchmarkGroupsOf(b *testing.B) {
	cfg := &config.Config{BaseURL: "https://static.test/"}
	var gs []*build.GroupStatus
	for i := range 20_000 {
		g := &build.GroupStatus{Dir: fmt.Sprintf("g%05d", i), URL: fmt.Sprintf("https://static.test/g%05d/", i), Listed: 50}
		if i%4 == 0 {
			g.LeftOut[tree.NoIndex], g.LeftOut[tree.Robots] = 40, 3
			g.Examples[tree.NoIndex] = []string{"https://static.test/x.html"}
		}
		gs = append(gs, g)
	}
	b.ReportAllocs()
	for b.Loop() {
		if out := groupsOf(cfg, gs); len(out) != len(gs) {
			b.Fatal(len(out))
		}
	}
}
