package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestReleaseSwapAcrossRestart stops `sitemapd run`, swaps the symlinked
// root to a new release (ln -s + mv -T) that holds the realistic site
// anew (fresh mtimes, new inodes, none of sitemapd's files) with one page
// edited and one removed, and starts it again. IndexNow is sent exactly
// those two URLs (and the canary's); the index lists every other sitemap
// with the lastmod it had before the swap.
func TestReleaseSwapAcrossRestart(t *testing.T) {
	rcv := newReceiver(t)
	dir := t.TempDir()
	rel1, rel2 := filepath.Join(dir, "releases", "1"), filepath.Join(dir, "releases", "2")
	site := realisticSite()
	writeSite(t, rel1, site)
	canaryStart := time.Date(2025, 2, 1, 12, 0, 0, 0, time.UTC)
	writeFileAt(t, filepath.Join(rel1, "zz-canary", "start.html"), []byte("<title>canary</title>"), canaryStart)
	root := filepath.Join(dir, "current")
	if err := os.Symlink("releases/1", root); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "sitemapd.yaml")
	os.WriteFile(cfg, []byte("root: current\nbase_url: https://static.test/\nlog: {format: json}\nstate_dir: state\n"+notifyConfig(rcv.URL)), 0o644)

	c := startChild(t, cfg)
	c.expect(t, "READY=1")
	canary(t, c, rcv, root, "canary-0")
	before := outputs(t, rel1)
	c.stop(t)

	const edited, removed = "docs/guide/install.html", "blog/2024/05-notes-on-topic-4.html"
	found := 0
	now := time.Now().Add(-time.Minute) // fresh, but past
	for _, f := range site {
		data := f.data
		switch f.rel {
		case edited:
			data = bytes.Replace(f.data, []byte("<h1>"), []byte("<h1>Updated: "), 1)
			found++
		case removed:
			found++
			continue
		}
		writeFileAt(t, filepath.Join(rel2, f.rel), data, now)
	}
	if found != 2 {
		t.Fatalf("the site has not both %s and %s", edited, removed)
	}
	writeFileAt(t, filepath.Join(rel2, "zz-canary", "start.html"), []byte("<title>canary</title>"), now)
	writeFileAt(t, filepath.Join(rel2, "zz-canary", "canary-0.html"), []byte("<title>canary-0</title>"), now)
	os.Symlink("releases/2", root+".tmp")
	command(t, "mv", "-T", root+".tmp", root)

	mark := rcv.Mark()
	c = startChild(t, cfg)
	c.expect(t, "READY=1")
	sent := canary(t, c, rcv, root, "canary-1")
	want := []string{pageURL(removed), pageURL(edited), pageURL("zz-canary/canary-1.html")}
	if got := sortedSet(rcv.URLs(mark)); !slices.Equal(got, sortedSet(want)) {
		t.Errorf("after the swap IndexNow was sent %q (canary run: %q); want %q", got, sent, sortedSet(want))
	}
	after := readIndexFrom(outputs(t, rel2))
	for loc, lm := range readIndexFrom(before) {
		if strings.Contains(loc, "/docs/") || strings.Contains(loc, "/blog/") || strings.Contains(loc, "/zz-canary/") {
			continue
		}
		if after[loc] != lm {
			t.Errorf("index lastmod of %s: %s, before the swap %s", loc, after[loc], lm)
		}
	}
}
