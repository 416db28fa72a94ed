package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"html"
	"io/fs"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// These tests run `sitemapd run` as a child process on real inotify with
// pages.lastmod at its default (content) and pages.head_dates on, and judge
// it from outside: the sitemap files as encoding/xml reads them and as the
// filesystem describes them (bytes, inode, mtime), the times the tests set
// with os.Chtimes or wrote into heads, and the URLs an IndexNow receiver on
// 127.0.0.1 is sent.

const base = "https://example.com"

// TestIdenticalRedeploySendsNothing deploys a realistic site again, byte
// for byte, in the ways real deploys do (cp -r over the tree, rsync -r
// without -t, a temp file renamed over each file), while the daemon runs:
// no sitemap file may be rewritten and no URL may reach IndexNow. Then one
// page's content changes: exactly its URL is sent, and only its sitemap
// (and the index, which dates each sitemap) changes, by that page's lastmod.
func TestIdenticalRedeploySendsNothing(t *testing.T) {
	rcv := newReceiver(t)
	cfg, root := writeConfig(t, notifyConfig(rcv))
	// writeConfig's two placeholder pages are not part of this site.
	os.Remove(filepath.Join(root, "index.html"))
	os.RemoveAll(filepath.Join(root, "blog"))

	site := realisticSite()
	src := filepath.Join(t.TempDir(), "public") // the build output deploys copy from
	writeSite(t, src, site)
	writeSite(t, root, site)
	// The canary group: new pages here are barriers for the notifier.
	canaryStart := time.Date(2025, 2, 1, 12, 0, 0, 0, time.UTC)
	writeFileAt(t, filepath.Join(root, "zz-canary", "start.html"), []byte("<title>canary</title>"), canaryStart)

	c := startChild(t, cfg)
	c.expect(t, "READY=1")

	want := map[string]string{base + "/zz-canary/start.html": w3c(canaryStart)}
	pages, others := 0, 0
	for _, f := range site {
		switch {
		case f.url != "":
			want[f.url] = f.lastmod
			pages++
		case isPageName(f.rel):
			others++ // disallowed by robots.txt, or an error page
		}
	}
	if pages < 120 {
		t.Fatalf("the generated site has %d listed pages, want 120 or more", pages)
	}
	if got := sitemapLastmods(t, root); !maps.Equal(got, want) {
		t.Fatalf("first publish: the sitemaps differ from the site (URL, listed lastmod, want):\n%s", diffMap(got, want))
	}
	t.Logf("site: %d pages listed, %d kept out, %d files in all", pages, others, len(site))

	// Whatever is owed at start is flushed by the time a new page is sent.
	startOwed := canary(t, c, rcv, root, "canary-0")
	t.Logf("sent at start: %q", startOwed)
	before := outputs(t, root)

	steps := []struct {
		name     string
		newInode bool // each file is replaced, not written in place
		deploy   func(t *testing.T)
	}{
		{"cp -r", false, func(t *testing.T) { command(t, "cp", "-r", src+"/.", root) }},
		{"rsync -r", true, func(t *testing.T) {
			if _, err := exec.LookPath("rsync"); err != nil {
				t.Skip("rsync is not installed (Debian: rsync)")
			}
			command(t, "rsync", "-r", src+"/", root+"/")
		}},
		{"rename over", true, func(t *testing.T) {
			for _, f := range site {
				dir, name := filepath.Split(filepath.Join(root, f.rel))
				tmp, err := os.CreateTemp(dir, "."+name+".*")
				if err != nil {
					t.Fatal(err)
				}
				_, err = tmp.Write(f.data)
				if cerr := tmp.Close(); err == nil {
					err = cerr
				}
				if err == nil {
					err = os.Chmod(tmp.Name(), 0o644)
				}
				if err == nil {
					err = os.Rename(tmp.Name(), filepath.Join(dir, name))
				}
				if err != nil {
					t.Fatal(err)
				}
			}
		}},
	}
	for i, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			was := stats(t, root, site)
			n, mark := c.count("published"), rcv.count()
			step.deploy(t)
			for rel, st := range stats(t, root, site) {
				if st.mtime.Equal(was[rel].mtime) || (st.ino != was[rel].ino) != step.newInode || st.size != was[rel].size {
					t.Fatalf("%s did not do what the step means to test to %s: %+v, then %+v", step.name, rel, was[rel], st)
				}
			}
			c.waitQuiet(t, n)
			compareOutputs(t, step.name, before, outputs(t, root), nil)

			url := base + fmt.Sprintf("/zz-canary/canary-%d.html", i+1)
			canary(t, c, rcv, root, fmt.Sprintf("canary-%d", i+1))
			if sent := rcv.since(mark); !slices.Equal(sortedSet(sent), []string{url}) {
				t.Errorf("after %s of the identical tree, IndexNow was sent %d URLs %.300q; want only the canary %s", step.name, len(sent), sent, url)
			}
			after := outputs(t, root)
			compareOutputs(t, step.name+", then a canary page", before, after,
				map[string]bool{"zz-canary/sitemap.xml": true, "sitemap_index.xml": true})
			compareIndex(t, root, before, after, "zz-canary/sitemap.xml")
			before = after
		})
	}

	// One page's content changes: that URL alone is owed, and only its
	// sitemap and the index change.
	const edited = "docs/guide/install.html"
	editedURL := base + "/" + edited
	n, mark := c.count("published"), rcv.count()
	oldDocs := readURLSet(t, filepath.Join(root, "docs", "sitemap.xml"))
	var data []byte
	for _, f := range site {
		if f.rel == edited {
			data = bytes.Replace(f.data, []byte("<h1>"), []byte("<h1>Updated: "), 1)
		}
	}
	if err := os.WriteFile(filepath.Join(root, edited), data, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(root, edited))
	if err != nil {
		t.Fatal(err)
	}
	newLastmod := w3c(st.ModTime())
	if newLastmod == want[editedURL] {
		t.Fatalf("the edit kept the lastmod %s: the test cannot see it", newLastmod)
	}
	rcv.waitFor(t, mark, editedURL)
	poll(t, "docs/sitemap.xml to show the edited page's new lastmod "+newLastmod, func() (bool, string) {
		lm := readURLSet(t, filepath.Join(root, "docs", "sitemap.xml"))[editedURL]
		return lm == newLastmod, "it shows " + lm
	})
	c.waitQuiet(t, n)
	if sent := rcv.since(mark); !slices.Equal(sortedSet(sent), []string{editedURL}) {
		t.Errorf("after editing %s, IndexNow was sent %q; want only %s", edited, sent, editedURL)
	}
	after := outputs(t, root)
	compareOutputs(t, "an edit of "+edited, before, after, map[string]bool{"docs/sitemap.xml": true, "sitemap_index.xml": true})
	compareIndex(t, root, before, after, "docs/sitemap.xml")
	wantDocs := maps.Clone(oldDocs)
	wantDocs[editedURL] = newLastmod
	if got := readURLSet(t, filepath.Join(root, "docs", "sitemap.xml")); !maps.Equal(got, wantDocs) {
		t.Errorf("docs/sitemap.xml after the edit:\n%s\nwant\n%s", fmtMap(got), fmtMap(wantDocs))
	}

	// Nothing is left owed that the schedule has not sent yet.
	c.stop(t)
	if code, out, stderr := runCLI("ping", "-config", cfg); code != ExitOK || out != "receiver: sent 0, owed 0\n" {
		t.Errorf("sitemapd ping after the daemon stopped: exit %d, %q %s", code, out, stderr)
	}
	if sent := rcv.since(mark); !slices.Equal(sortedSet(sent), []string{editedURL}) {
		t.Errorf("in the end IndexNow was sent %q since the edit; want only %s", sent, editedURL)
	}
}

// TestHardLinkEditRepublishesEveryName edits, through one of its names, a
// file that two pages in different directories share (hard links): both
// URLs are sent and both sitemaps show the new lastmod. Then the same with
// names made while the daemon runs (`cp -al` of a directory), the file
// edited through its old name.
func TestHardLinkEditRepublishesEveryName(t *testing.T) {
	rcv := newReceiver(t)
	cfg, root := writeConfig(t, notifyConfig(rcv))
	first := filepath.Join(root, "en", "howto.html")
	second := filepath.Join(root, "archive", "howto-2024.html")
	was := time.Date(2024, 2, 3, 4, 5, 6, 700_000_000, time.UTC)
	writeFileAt(t, first, []byte("<!DOCTYPE html><title>How to</title><h1>How to</h1>"), was)
	if err := os.MkdirAll(filepath.Dir(second), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(first, second); err != nil {
		t.Fatal(err)
	}
	urls := map[string]string{ // URL -> its group's sitemap
		base + "/en/howto.html":           "en/sitemap.xml",
		base + "/archive/howto-2024.html": "archive/sitemap.xml",
		base + "/en-mirror/howto.html":    "en-mirror/sitemap.xml",
	}

	c := startChild(t, cfg)
	c.expect(t, "READY=1")
	for _, u := range []string{base + "/en/howto.html", base + "/archive/howto-2024.html"} {
		if got := readURLSet(t, filepath.Join(root, urls[u]))[u]; got != w3c(was) {
			t.Fatalf("first publish: %s has lastmod %q, want %s", u, got, w3c(was))
		}
	}

	// editInPlace writes new bytes into the file through one name, as an
	// editor that keeps the inode does.
	editInPlace := func(t *testing.T, path, text string) string {
		t.Helper()
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(text); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return w3c(st.ModTime())
	}
	expectAll := func(t *testing.T, what string, mark int, lastmod string, names ...string) {
		t.Helper()
		rcv.waitFor(t, mark, names...)
		for _, u := range names {
			poll(t, fmt.Sprintf("%s: %s to show %s with lastmod %s", what, urls[u], u, lastmod), func() (bool, string) {
				lm, ok := readURLSet(t, filepath.Join(root, urls[u]))[u]
				return lm == lastmod, fmt.Sprintf("listed %v, lastmod %q", ok, lm)
			})
		}
	}

	t.Run("links made before the start", func(t *testing.T) {
		n, mark := c.count("published"), rcv.count()
		lastmod := editInPlace(t, first, "<!DOCTYPE html><title>How to</title><h1>How to, revised</h1>")
		names := []string{base + "/en/howto.html", base + "/archive/howto-2024.html"}
		expectAll(t, "edited through en/howto.html", mark, lastmod, names...)
		c.waitQuiet(t, n)
		if sent := sortedSet(rcv.since(mark)); !slices.Equal(sent, sortedSet(names)) {
			t.Errorf("IndexNow was sent %q; want %q", sent, sortedSet(names))
		}
	})

	t.Run("links made by cp -al while running", func(t *testing.T) {
		mark := rcv.count()
		command(t, "cp", "-al", filepath.Join(root, "en"), filepath.Join(root, "en-mirror"))
		mirrored := base + "/en-mirror/howto.html"
		st, err := os.Stat(first)
		if err != nil {
			t.Fatal(err)
		}
		// The new name is listed (and sent, as an added page) with the
		// file's time, as the engine now knows it.
		expectAll(t, "after cp -al", mark, w3c(st.ModTime()), mirrored)
		n, mark := c.count("published"), rcv.count()
		// A new lastmod must differ from the current one at second
		// precision: wait for the clock's next second if need be.
		for time.Now().Truncate(time.Second).Equal(st.ModTime().Truncate(time.Second)) {
			time.Sleep(20 * time.Millisecond)
		}
		lastmod := editInPlace(t, first, "<!DOCTYPE html><title>How to</title><h1>How to, revised again</h1>")
		names := []string{base + "/en/howto.html", base + "/archive/howto-2024.html", mirrored}
		expectAll(t, "edited through the old name en/howto.html", mark, lastmod, names...)
		c.waitQuiet(t, n)
		if sent := sortedSet(rcv.since(mark)); !slices.Equal(sent, sortedSet(names)) {
			t.Errorf("IndexNow was sent %q; want %q", sent, sortedSet(names))
		}
		// cp -al linked en/sitemap.xml as en-mirror/sitemap.xml: writing
		// the latter must not have changed the former.
		for dir, u := range map[string]string{"en": base + "/en/howto.html", "en-mirror": mirrored} {
			if got := slices.Collect(maps.Keys(readURLSet(t, filepath.Join(root, dir, "sitemap.xml")))); !slices.Equal(got, []string{u}) {
				t.Errorf("%s/sitemap.xml lists %q, want only %s", dir, got, u)
			}
		}
	})
}

// TestFutureMTimeGetsLastmodWhenDue: pages whose mtime is a few seconds
// ahead are listed without lastmod, with one warning for the walk however
// many they are; when their time comes, with no file touched, the daemon
// lists them with that time.
func TestFutureMTimeGetsLastmodWhenDue(t *testing.T) {
	cfg, root := writeConfig(t, "watch: {settle: 50ms, max_delay: 1s, rescan: 0s}\n")
	due := time.Now().Add(4 * time.Second).Truncate(time.Second).Add(321 * time.Millisecond)
	var future []string // URLs
	for d := range 5 {
		for i := range 10 {
			rel := fmt.Sprintf("section-%d/page %02d.html", d, i)
			writeFileAt(t, filepath.Join(root, rel), fmt.Appendf(nil, "<!DOCTYPE html><title>Page %d.%d</title>", d, i), due)
			future = append(future, fmt.Sprintf("%s/section-%d/page%%20%02d.html", base, d, i))
		}
	}
	present := time.Date(2023, 9, 8, 7, 6, 5, 0, time.UTC)
	writeFileAt(t, filepath.Join(root, "section-0", "present.html"), []byte("<title>now</title>"), present)

	c := startChild(t, cfg)
	c.expect(t, "READY=1")
	if !time.Now().Before(due) {
		t.Skipf("the daemon was ready only at %s, after the pages' time %s: nothing to see on a machine this slow", time.Now().Format(time.StampMilli), due.Format(time.StampMilli))
	}
	got := sitemapLastmods(t, root)
	for _, u := range future {
		if lm, ok := got[u]; !ok || lm != "" {
			t.Errorf("first publish: %s listed %v with lastmod %q; want listed without lastmod", u, ok, lm)
		}
	}
	if got[base+"/section-0/present.html"] != w3c(present) {
		t.Errorf("the page beside them has lastmod %q, want %s", got[base+"/section-0/present.html"], w3c(present))
	}

	want := w3c(due)
	deadline := time.Until(due) + 20*time.Second
	pollFor(t, deadline, fmt.Sprintf("the 50 pages to get lastmod %s when their time comes", want), func() (bool, string) {
		got := sitemapLastmods(t, root)
		for _, u := range future {
			if got[u] != want {
				return false, fmt.Sprintf("%s has lastmod %q", u, got[u])
			}
		}
		return true, ""
	})
	if got := sitemapLastmods(t, root)[base+"/section-0/present.html"]; got != w3c(present) {
		t.Errorf("after the due publish the page beside them has lastmod %q, want %s", got, w3c(present))
	}
	warns := c.entries(func(e logEntry) bool {
		return e.str("level") == "warn" && strings.Contains(e.str("msg"), "future")
	})
	if len(warns) != 1 || warns[0]["pages"] != float64(50) {
		t.Errorf("warnings about future times: %d, want 1 counting 50 pages:\n%s", len(warns), warns)
	}
}

// TestHeadDateIsLastmod: the modification date a page's head states
// (article:modified_time, og:updated_time, JSON-LD dateModified) is its
// lastmod, whatever the file's mtime; a date in the future is not shown
// until it comes (no lastmod, as for a future mtime), with one warning.
func TestHeadDateIsLastmod(t *testing.T) {
	cfg, root := writeConfig(t, "watch: {settle: 50ms, max_delay: 1s, rescan: 0s}\n")
	next := time.Now().Year() + 1
	type page struct {
		rel, head string
		mtime     time.Time
		want      string
	}
	mtime := time.Date(2023, 6, 7, 8, 9, 10, 0, time.UTC)
	old := time.Date(2019, 1, 2, 3, 4, 5, 0, time.UTC)
	pages := []page{
		{"articles/dated.html", `<meta property="article:modified_time" content="2021-03-04T05:06:07+00:00">`, mtime, "2021-03-04T05:06:07Z"},
		{"articles/dated-old-file.html", `<meta property="article:modified_time" content="2021-03-04T05:06:07+00:00">`, old, "2021-03-04T05:06:07Z"},
		{"articles/og.html", `<meta property="og:updated_time" content="2020-07-08T09:10:11+02:00">`, mtime, "2020-07-08T07:10:11Z"},
		{"articles/json-ld.html", `<script type="application/ld+json">{"@context":"https://schema.org","@type":"Article","headline":"x","dateModified":"2019-12-31T23:59:59-05:00"}</script>`, mtime, "2020-01-01T04:59:59Z"},
		{"articles/next-year.html", fmt.Sprintf(`<meta property="article:modified_time" content="%d-12-31T00:00:00+00:00">`, next), time.Date(2022, 5, 6, 7, 8, 9, 0, time.UTC), ""},
		{"articles/next-year-json-ld.html", fmt.Sprintf(`<script type="application/ld+json">{"@context":"https://schema.org","@type":"BlogPosting","dateModified":"%d-01-15"}</script>`, next), old, ""},
		{"articles/undated.html", `<meta property="og:title" content="no date">`, mtime, w3c(mtime)},
	}
	for _, p := range pages {
		doc := "<!DOCTYPE html>\n<html lang=\"en\"><head>\n<meta charset=\"utf-8\">\n<title>" + p.rel + "</title>\n" + p.head + "\n</head>\n<body><p>text</p></body></html>\n"
		writeFileAt(t, filepath.Join(root, p.rel), []byte(doc), p.mtime)
	}
	check := func(what string) {
		t.Helper()
		got := readURLSet(t, filepath.Join(root, "articles", "sitemap.xml"))
		for _, p := range pages {
			if u := base + "/" + p.rel; got[u] != p.want {
				t.Errorf("%s: %s has lastmod %q, want %s", what, p.rel, got[u], p.want)
			}
		}
	}

	c := startChild(t, cfg)
	c.expect(t, "READY=1")
	check("first publish")
	warns := c.entries(func(e logEntry) bool {
		return e.str("level") == "warn" && strings.Contains(e.str("msg"), "future")
	})
	if len(warns) != 1 || !strings.Contains(warns[0].str("msg"), "head states") || warns[0]["pages"] != float64(2) {
		t.Errorf("warnings about future dates: %d, want 1, about heads, counting 2 pages:\n%s", len(warns), warns)
	}

	// A new mtime (touch) on a dated page moves nothing: its head says when.
	n := c.count("published")
	now := time.Now()
	if err := os.Chtimes(filepath.Join(root, "articles", "dated-old-file.html"), now, now); err != nil {
		t.Fatal(err)
	}
	c.waitQuiet(t, n)
	check("after a touch of articles/dated-old-file.html")
}

// notifyConfig sends to rcv on a one-second schedule; changes are
// published after 200 ms of quiet (enough that a copy of a few hundred
// small files is seen whole), at the latest 30 s after the first.
func notifyConfig(rcv *receiver) string {
	return fmt.Sprintf(`watch: {settle: 200ms, max_delay: 30s, rescan: 0s}
notify:
  schedule: "@every 1s"
  endpoints:
    - {name: receiver, kind: indexnow, url: %q, key: 0123456789abcdef}
`, rcv.srv.URL)
}

// receiver is an IndexNow endpoint on 127.0.0.1 that keeps every URL it is
// sent, in order.
type receiver struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []string
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var body struct {
			Host    string   `json:"host"`
			URLList []string `json:"urlList"`
		}
		if err := json.NewDecoder(req.Body).Decode(&body); err != nil || body.Host != "example.com" {
			http.Error(w, fmt.Sprintf("bad body: %v, host %q", err, body.Host), http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		r.got = append(r.got, body.URLList...)
		r.mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.got)
}

// since returns the URLs received after the first mark.
func (r *receiver) since(mark int) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got[mark:])
}

// waitFor waits until every URL of want was received after mark.
func (r *receiver) waitFor(t *testing.T, mark int, want ...string) {
	t.Helper()
	poll(t, fmt.Sprintf("IndexNow to receive %q", want), func() (bool, string) {
		got := r.since(mark)
		for _, u := range want {
			if !slices.Contains(got, u) {
				return false, fmt.Sprintf("it received %q", got)
			}
		}
		return true, ""
	})
}

// canary adds the page zz-canary/name.html and waits until IndexNow
// receives it and its sitemap lists it. Everything owed before it was
// owed (inotify reports in order, the daemon publishes in order, and a
// notifier run sends all that is owed) has been sent by then. It returns
// what was sent since it was written.
func canary(t *testing.T, c *child, rcv *receiver, root, name string) []string {
	t.Helper()
	n, mark := c.count("published"), rcv.count()
	url := base + "/zz-canary/" + name + ".html"
	if err := os.WriteFile(filepath.Join(root, "zz-canary", name+".html"), []byte("<title>"+name+"</title>"), 0o644); err != nil {
		t.Fatal(err)
	}
	rcv.waitFor(t, mark, url)
	poll(t, "zz-canary/sitemap.xml to list "+url, func() (bool, string) {
		_, ok := readURLSet(t, filepath.Join(root, "zz-canary", "sitemap.xml"))[url]
		return ok, "it does not"
	})
	c.waitQuiet(t, n)
	return rcv.since(mark)
}

// logEntry is one line of the daemon's JSON log.
type logEntry map[string]any

func (e logEntry) str(key string) string { s, _ := e[key].(string); return s }

func (e logEntry) String() string { b, _ := json.Marshal(map[string]any(e)); return string(b) }

// entries returns the log lines so far that keep says to keep.
func (c *child) entries(keep func(logEntry) bool) []logEntry {
	var out []logEntry
	for _, line := range strings.Split(c.stderr.String(), "\n") {
		var e logEntry
		if json.Unmarshal([]byte(line), &e) == nil && keep(e) {
			out = append(out, e)
		}
	}
	return out
}

// count is the number of log lines so far whose message is msg.
func (c *child) count(msg string) int {
	return len(c.entries(func(e logEntry) bool { return e.str("msg") == msg }))
}

// waitQuiet waits until the daemon has published after the first n
// publishes and then published nothing for a second (five times
// watch.settle): what a change made it do is done.
func (c *child) waitQuiet(t *testing.T, n int) {
	t.Helper()
	last, since := n, time.Now()
	poll(t, fmt.Sprintf("the daemon to publish (after publish %d) and then rest", n), func() (bool, string) {
		if now := c.count("published"); now != last {
			last, since = now, time.Now()
		}
		return last > n && time.Since(since) >= time.Second, fmt.Sprintf("%d publishes so far", last)
	})
}

// stop ends the daemon with SIGTERM and waits for it.
func (c *child) stop(t *testing.T) {
	t.Helper()
	c.cmd.Process.Signal(syscall.SIGTERM)
	if err := c.cmd.Wait(); err != nil {
		t.Errorf("sitemapd run after SIGTERM: %v", err)
	}
}

// poll waits up to a minute for check to say done, failing the test with
// what it waited for and what check saw last.
func poll(t *testing.T, what string, check func() (done bool, now string)) {
	t.Helper()
	pollFor(t, time.Minute, what, check)
}

func pollFor(t *testing.T, limit time.Duration, what string, check func() (done bool, now string)) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		done, now := check()
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s; %s", limit.Round(time.Second), what, now)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

func command(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %q: %v\n%s", name, args, err, out)
	}
}

// w3c is how a sitemap writes a lastmod: UTC, to the second.
func w3c(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

func writeFileAt(t *testing.T, path string, data []byte, mtime time.Time) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

// siteFile is one file of a generated site: its path, bytes and mtime,
// and, for a page that is listed, its URL and expected lastmod.
type siteFile struct {
	rel          string
	data         []byte
	mtime        time.Time
	url, lastmod string
}

func writeSite(t *testing.T, dir string, site []siteFile) {
	t.Helper()
	for _, f := range site {
		writeFileAt(t, filepath.Join(dir, f.rel), f.data, f.mtime)
	}
}

// pageURL is a page's URL as sitemaps.org and RFC 3986 want it, computed
// here: each path segment's bytes percent-encoded but for letters, digits
// and -._~!$&'()*,;=:@; an index.html maps to its directory.
func pageURL(rel string) string {
	const hex = "0123456789ABCDEF"
	if rel == "index.html" {
		rel = ""
	} else if strings.HasSuffix(rel, "/index.html") {
		rel = strings.TrimSuffix(rel, "index.html")
	}
	var b strings.Builder
	b.WriteString(base + "/")
	for i := 0; i < len(rel); i++ {
		c := rel[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '/' || strings.IndexByte("-._~!$&'()*,;=:@", c) >= 0 {
			b.WriteByte(c)
		} else {
			b.WriteString("%" + string(hex[c>>4]) + string(hex[c&15]))
		}
	}
	return b.String()
}

func isPageName(rel string) bool {
	ext := strings.ToLower(filepath.Ext(rel))
	return ext == ".html" || ext == ".htm" || ext == ".pdf"
}

// realisticSite is a static site as a generator leaves it: nested
// sections, heads with canonical links, Open Graph and JSON-LD, hreflang
// pairs, PDFs, assets, names with spaces and UTF-8, an error page and a
// section robots.txt disallows. Each file has its own mtime, in the past.
func realisticSite() []siteFile {
	var site []siteFile
	mtime := time.Date(2025, 3, 1, 8, 0, 0, 0, time.UTC)
	add := func(rel string, data []byte, listed bool, headDate time.Time) {
		mtime = mtime.Add(37*time.Minute + 13*time.Second + 123_456_789)
		f := siteFile{rel: rel, data: data, mtime: mtime}
		if listed {
			f.url, f.lastmod = pageURL(rel), w3c(mtime)
			if !headDate.IsZero() {
				f.lastmod = w3c(headDate)
			}
		}
		site = append(site, f)
	}
	cet := time.FixedZone("CET", 3600)
	page := func(rel, title, extraHead string, listed bool, headDate time.Time) {
		var h strings.Builder
		fmt.Fprintf(&h, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
		fmt.Fprintf(&h, "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
		fmt.Fprintf(&h, "<title>%s | Example Corp</title>\n", html.EscapeString(title))
		fmt.Fprintf(&h, "<meta name=\"description\" content=\"%s, from Example Corp.\">\n", html.EscapeString(title))
		fmt.Fprintf(&h, "<link rel=\"canonical\" href=\"%s\">\n", html.EscapeString(pageURL(rel)))
		fmt.Fprintf(&h, "<meta property=\"og:title\" content=\"%s\">\n<meta property=\"og:url\" content=\"%s\">\n", html.EscapeString(title), html.EscapeString(pageURL(rel)))
		h.WriteString(extraHead)
		fmt.Fprintf(&h, "<link rel=\"stylesheet\" href=\"/assets/site.css\">\n<script src=\"/assets/app.js\" defer></script>\n</head>\n")
		fmt.Fprintf(&h, "<body>\n<nav><a href=\"/\">Home</a> <a href=\"/blog/\">Blog</a> <a href=\"/docs/\">Docs</a></nav>\n<main>\n<h1>%s</h1>\n", html.EscapeString(title))
		for i := range 3 + len(rel)%4 {
			fmt.Fprintf(&h, "<p>Paragraph %d of %s. Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>\n", i+1, html.EscapeString(rel))
		}
		h.WriteString("</main>\n<footer>© 2025 Example Corp</footer>\n</body>\n</html>\n")
		add(rel, []byte(h.String()), listed, headDate)
	}
	pdf := func(rel string) {
		add(rel, fmt.Appendf(nil, "%%PDF-1.4\n%%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Title (%s) >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%%%EOF\n", rel), true, time.Time{})
	}
	hreflang := func(en, de string) string {
		return fmt.Sprintf("<link rel=\"alternate\" hreflang=\"en\" href=\"%s\">\n<link rel=\"alternate\" hreflang=\"de\" href=\"%s\">\n", pageURL(en), pageURL(de))
	}

	add("robots.txt", []byte("User-agent: *\nDisallow: /private/\n\nSitemap: https://example.com/sitemap_index.xml\n"), false, time.Time{})
	add("assets/site.css", []byte("body { font-family: sans-serif; }\n"), false, time.Time{})
	add("assets/app.js", []byte("document.documentElement.classList.add('js');\n"), false, time.Time{})
	add("assets/logo.png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), false, time.Time{})
	page("index.html", "Example Corp", hreflang("index.html", "de/index.html"), true, time.Time{})
	page("about.html", "About us", hreflang("about.html", "de/about.html"), true, time.Time{})
	page("contact.html", "Contact", "", true, time.Time{})
	page("privacy policy.html", "Privacy policy", "", true, time.Time{})
	page("404.html", "Not found", "", false, time.Time{})
	page("de/index.html", "Example Corp (Deutsch)", hreflang("index.html", "de/index.html"), true, time.Time{})
	page("de/about.html", "Über uns", hreflang("about.html", "de/about.html"), true, time.Time{})
	page("private/drafts.html", "Drafts", "", false, time.Time{})
	page("private/roadmap.html", "Roadmap", "", false, time.Time{})

	page("blog/index.html", "Blog", "", true, time.Time{})
	for _, year := range []int{2023, 2024} {
		for i := range 36 {
			published := time.Date(year, 1, 1, 9, 30, 0, 0, cet).AddDate(0, 0, 10*i)
			modified := published.Add(72*time.Hour + time.Duration(i)*time.Hour + 17*time.Second)
			rel := fmt.Sprintf("blog/%d/%02d-notes-on-topic-%d.html", year, i+1, i)
			title := fmt.Sprintf("Notes on topic %d (%d)", i, year)
			head := fmt.Sprintf("<meta property=\"og:type\" content=\"article\">\n"+
				"<meta property=\"article:published_time\" content=\"%s\">\n"+
				"<meta property=\"article:modified_time\" content=\"%s\">\n"+
				"<script type=\"application/ld+json\">{\"@context\":\"https://schema.org\",\"@type\":\"BlogPosting\",\"headline\":%q,\"datePublished\":%q,\"dateModified\":%q}</script>\n",
				published.Format(time.RFC3339), modified.Format(time.RFC3339), title, published.Format(time.RFC3339), modified.Format(time.RFC3339))
			page(rel, title, head, true, modified)
		}
	}
	for _, tag := range []string{"go", "linux", "nginx", "seo", "sitemaps", "deploys", "c++", "q&a"} {
		page("blog/tags/"+tag+".html", "Posts tagged "+tag, "", true, time.Time{})
	}

	page("docs/index.html", "Documentation", "", true, time.Time{})
	for _, name := range []string{"getting-started", "install", "configure", "upgrade", "uninstall", "faq", "troubleshooting",
		"security", "performance", "logging", "metrics", "backups", "clustering", "tls", "proxies", "docker", "systemd",
		"kubernetes", "glossary", "release notes"} {
		page("docs/guide/"+name+".html", "Guide: "+name, "", true, time.Time{})
	}
	for i := range 15 {
		page(fmt.Sprintf("docs/api/v1/endpoint-%02d.html", i), fmt.Sprintf("API endpoint %d", i), "", true, time.Time{})
	}
	pdf("docs/manual.pdf")
	pdf("docs/api/reference.pdf")

	page("über uns/index.html", "Über uns", "", true, time.Time{})
	page("über uns/team & culture.html", "Team & culture", "", true, time.Time{})
	page("über uns/café menu.html", "Café menu", "", true, time.Time{})
	page("news and events/2024 recap.html", "2024 recap", "", true, time.Time{})
	page("news and events/日本語のお知らせ.html", "お知らせ", "", true, time.Time{})
	pdf("news and events/résumé.pdf")
	return site
}

type fileStat struct {
	mtime time.Time
	ino   uint64
	size  int64
}

// stats stats every file of the site under root.
func stats(t *testing.T, root string, site []siteFile) map[string]fileStat {
	t.Helper()
	out := map[string]fileStat{}
	for _, f := range site {
		fi, err := os.Stat(filepath.Join(root, f.rel))
		if err != nil {
			t.Fatal(err)
		}
		out[f.rel] = fileStat{fi.ModTime(), fi.Sys().(*syscall.Stat_t).Ino, fi.Size()}
	}
	return out
}

// output is one file sitemapd wrote, as the filesystem shows it.
type output struct {
	data  []byte
	mtime time.Time
	ino   uint64
}

// outputs returns sitemapd's files under root by path: sitemaps, indexes
// and the IndexNow key file.
func outputs(t *testing.T, root string) map[string]output {
	t.Helper()
	out := map[string]output{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() || !(strings.HasPrefix(name, "sitemap") && strings.HasSuffix(name, ".xml") || name == "0123456789abcdef.txt") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fi, err := os.Stat(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		out[filepath.ToSlash(rel)] = output{data, fi.ModTime(), fi.Sys().(*syscall.Stat_t).Ino}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("no sitemap under " + root)
	}
	return out
}

// compareOutputs reports every output file, but those in except, that
// appeared, vanished, or was written again (other bytes, another inode or
// another mtime) between before and after.
func compareOutputs(t *testing.T, what string, before, after map[string]output, except map[string]bool) {
	t.Helper()
	for _, rel := range slices.Sorted(maps.Keys(before)) {
		if except[rel] {
			continue
		}
		b, a := before[rel], after[rel]
		_, ok := after[rel]
		switch {
		case !ok:
			t.Errorf("%s: %s was removed", what, rel)
		case !bytes.Equal(a.data, b.data):
			t.Errorf("%s: %s was rewritten with other bytes:\n%s", what, rel, diffLines(b.data, a.data))
		case a.ino != b.ino || !a.mtime.Equal(b.mtime):
			t.Errorf("%s: %s was written again with the same bytes (inode %d -> %d, mtime %s -> %s)", what, rel, b.ino, a.ino,
				b.mtime.Format(time.RFC3339Nano), a.mtime.Format(time.RFC3339Nano))
		}
	}
	for rel := range after {
		if _, ok := before[rel]; !ok && !except[rel] {
			t.Errorf("%s: %s appeared", what, rel)
		}
	}
}

// compareIndex reports an index entry, but that of the sitemap changed,
// that differs between the outputs before and after, and a changed entry
// whose date is not its sitemap file's mtime.
func compareIndex(t *testing.T, root string, before, after map[string]output, changed string) {
	t.Helper()
	b, a := readIndexFrom(before), readIndexFrom(after)
	loc := base + "/" + changed
	want := maps.Clone(b)
	fi, err := os.Stat(filepath.Join(root, changed))
	if err != nil {
		t.Fatal(err)
	}
	want[loc] = w3c(fi.ModTime())
	if !maps.Equal(a, want) {
		t.Errorf("the index lists\n%s\nwant\n%s", fmtMap(a), fmtMap(want))
	}
}

// urlset is a sitemap as encoding/xml reads it.
type urlset struct {
	XMLName xml.Name `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 urlset"`
	URLs    []struct {
		Loc     string  `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 loc"`
		LastMod *string `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 lastmod"`
	} `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 url"`
}

type sitemapIndex struct {
	XMLName  xml.Name `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 sitemapindex"`
	Sitemaps []struct {
		Loc     string `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 loc"`
		LastMod string `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 lastmod"`
	} `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 sitemap"`
}

// readURLSet returns a sitemap's URLs with their lastmod ("" for none);
// nothing for a sitemap that is not there.
func readURLSet(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var s urlset
	if err := xml.Unmarshal(data, &s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := map[string]string{}
	for _, u := range s.URLs {
		if _, dup := out[u.Loc]; dup {
			t.Errorf("%s lists %s twice", path, u.Loc)
		}
		out[u.Loc] = ""
		if u.LastMod != nil {
			out[u.Loc] = *u.LastMod
		}
	}
	return out
}

// sitemapLastmods reads every sitemap the root index lists and returns
// all their URLs with their lastmod.
func sitemapLastmods(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for loc := range readIndex(t, root) {
		rel, ok := strings.CutPrefix(loc, base+"/")
		if !ok {
			t.Fatalf("the index lists %s, not under %s", loc, base)
		}
		rel, err := url.PathUnescape(rel)
		if err != nil {
			t.Fatalf("the index lists %s: %v", loc, err)
		}
		urls := readURLSet(t, filepath.Join(root, filepath.FromSlash(rel)))
		if urls == nil {
			t.Errorf("the index lists %s, which is not there", loc)
		}
		for u, lm := range urls {
			if _, dup := out[u]; dup {
				t.Errorf("%s is listed in two sitemaps", u)
			}
			out[u] = lm
		}
	}
	return out
}

func readIndex(t *testing.T, root string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "sitemap_index.xml"))
	if err != nil {
		t.Fatal(err)
	}
	return parseIndex(t, data)
}

func readIndexFrom(outs map[string]output) map[string]string {
	return parseIndex(nil, outs["sitemap_index.xml"].data)
}

func parseIndex(t *testing.T, data []byte) map[string]string {
	var idx sitemapIndex
	if err := xml.Unmarshal(data, &idx); err != nil {
		if t != nil {
			t.Fatalf("sitemap_index.xml: %v", err)
		}
		return nil
	}
	out := map[string]string{}
	for _, s := range idx.Sitemaps {
		out[s.Loc] = s.LastMod
	}
	return out
}

// diffLines shows the first few lines that differ between two files.
func diffLines(before, after []byte) string {
	b, a := strings.Split(string(before), "\n"), strings.Split(string(after), "\n")
	var out strings.Builder
	shown := 0
	for i := range max(len(a), len(b)) {
		var x, y string
		if i < len(b) {
			x = b[i]
		}
		if i < len(a) {
			y = a[i]
		}
		if x != y && shown < 3 {
			fmt.Fprintf(&out, "\tline %d: %s\n\t     now: %s\n", i+1, x, y)
			shown++
		}
	}
	return out.String()
}

func sortedSet(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

// diffMap lists the keys where got and want differ, with both values
// (absent: -).
func diffMap(got, want map[string]string) string {
	var b strings.Builder
	keys := slices.Sorted(maps.Keys(maps.Collect(func(yield func(string, bool) bool) {
		for k := range got {
			yield(k, true)
		}
		for k := range want {
			yield(k, true)
		}
	})))
	show := func(m map[string]string, k string) string {
		if v, ok := m[k]; ok {
			return fmt.Sprintf("%q", v)
		}
		return "-"
	}
	for _, k := range slices.Compact(keys) {
		if g, w := show(got, k), show(want, k); g != w {
			fmt.Fprintf(&b, "\t%s %s, want %s\n", k, g, w)
		}
	}
	return b.String()
}

func fmtMap(m map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(&b, "\t%s %q\n", k, m[k])
	}
	return b.String()
}
