package main

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// These tests run `sitemapd run` as a child process on real inotify with
// pages.lastmod at its default (content) and pages.head_dates on, and judge
// it from outside: the sitemap files as encoding/xml reads them and as the
// filesystem describes them (bytes, inode, mtime), the times the tests set
// with os.Chtimes or wrote into heads, and the URLs an IndexNow receiver on
// 127.0.0.1 is sent.

const base = "https://static.test"

// TestIdenticalRedeploySendsNothing deploys a realistic site again, byte
// for byte, in the ways real deploys do (cp -r over the tree, rsync -r
// without -t, a temp file renamed over each file), while the daemon runs:
// no sitemap file may be rewritten and no URL may reach IndexNow. Then one
// page's content changes: exactly its URL is sent, and only its sitemap
// (and the index, which dates each sitemap) changes, by that page's lastmod.
func TestIdenticalRedeploySendsNothing(t *testing.T) {
	rcv := newReceiver(t)
	cfg, root := writeConfig(t, notifyConfig(rcv.URL))
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
			n, mark := c.count("published"), rcv.Mark()
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
			if sent := rcv.URLs(mark); !slices.Equal(sortedSet(sent), []string{url}) {
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
	n, mark := c.count("published"), rcv.Mark()
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
	if sent := rcv.URLs(mark); !slices.Equal(sortedSet(sent), []string{editedURL}) {
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
	if sent := rcv.URLs(mark); !slices.Equal(sortedSet(sent), []string{editedURL}) {
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
	cfg, root := writeConfig(t, notifyConfig(rcv.URL))
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
	// A full walk that reads the two names on either side of the edit
	// takes the one read first as unchanged, and no event names it (a
	// known limit of full walks); the page prints build that follows a
	// first start is one.
	c.printed(t)
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
		n, mark := c.count("published"), rcv.Mark()
		lastmod := editInPlace(t, first, "<!DOCTYPE html><title>How to</title><h1>How to, revised</h1>")
		names := []string{base + "/en/howto.html", base + "/archive/howto-2024.html"}
		expectAll(t, "edited through en/howto.html", mark, lastmod, names...)
		c.waitQuiet(t, n)
		if sent := sortedSet(rcv.URLs(mark)); !slices.Equal(sent, sortedSet(names)) {
			t.Errorf("IndexNow was sent %q; want %q", sent, sortedSet(names))
		}
	})

	t.Run("links made by cp -al while running", func(t *testing.T) {
		mark := rcv.Mark()
		command(t, "cp", "-al", filepath.Join(root, "en"), filepath.Join(root, "en-mirror"))
		mirrored := base + "/en-mirror/howto.html"
		st, err := os.Stat(first)
		if err != nil {
			t.Fatal(err)
		}
		// The new name is listed (and sent, as an added page) with the
		// file's time, as the engine now knows it.
		expectAll(t, "after cp -al", mark, w3c(st.ModTime()), mirrored)
		n, mark := c.count("published"), rcv.Mark()
		// A new lastmod must differ from the current one at second
		// precision: wait for the clock's next second if need be.
		for time.Now().Truncate(time.Second).Equal(st.ModTime().Truncate(time.Second)) {
			time.Sleep(20 * time.Millisecond)
		}
		lastmod := editInPlace(t, first, "<!DOCTYPE html><title>How to</title><h1>How to, revised again</h1>")
		names := []string{base + "/en/howto.html", base + "/archive/howto-2024.html", mirrored}
		expectAll(t, "edited through the old name en/howto.html", mark, lastmod, names...)
		c.waitQuiet(t, n)
		if sent := sortedSet(rcv.URLs(mark)); !slices.Equal(sent, sortedSet(names)) {
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
