package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// realDocsOrSkip skips the test without realDocs, outside CI.
func realDocsOrSkip(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(realDocs); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI lacks the real documentation tree %s (postgresql-doc-15): %v", realDocs, err)
		}
		t.Skipf("no %s: apt-get install postgresql-doc-15 to run this test", realDocs)
	}
}

// realDeploy is the daemon serving PostgreSQL's documentation (1,169
// pages in one directory) through a release symlink, current ->
// releases/N, its sitemaps in output_dir, telling a receiver.
type realDeploy struct {
	dir, cfg string
	rcv      *receiver
	c        *child
	n        int // the release current names
}

func (d *realDeploy) release(n int) string { return filepath.Join(d.dir, "releases", fmt.Sprint(n)) }
func (d *realDeploy) root() string         { return filepath.Join(d.dir, "current") }

// swap points current at release n as deploy tools do: a new symlink
// renamed over the old one.
func (d *realDeploy) swap(t *testing.T, n int) {
	t.Helper()
	tmp := d.root() + ".tmp"
	if err := os.Symlink(filepath.Join("releases", fmt.Sprint(n)), tmp); err != nil {
		t.Fatal(err)
	}
	command(t, "mv", "-T", tmp, d.root())
	d.n = n
}

// newRelease makes release n a copy of release from (cp -r: new inodes,
// new mtimes), with edit applied to each page's bytes (nil: removed).
func (d *realDeploy) newRelease(t *testing.T, from, n int, edit func(name string, b []byte) []byte) {
	t.Helper()
	command(t, "cp", "-r", d.release(from), d.release(n))
	if edit == nil {
		return
	}
	pages, _ := filepath.Glob(filepath.Join(d.release(n), "*.html"))
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		switch nb := edit(filepath.Base(p), b); {
		case nb == nil:
			os.Remove(p)
		case !bytes.Equal(nb, b):
			os.WriteFile(p, nb, 0o644)
		}
	}
}

// sync writes a canary page and waits until IndexNow has its URL and the
// daemon rests: what came before is published and sent. It returns the
// URLs sent since mark, the canary's left out.
func (d *realDeploy) sync(t *testing.T, name string, mark int) []string {
	t.Helper()
	n := d.c.count("published")
	url := base + "/zz-canary/" + name + ".html"
	if err := os.WriteFile(filepath.Join(d.root(), "zz-canary", name+".html"), []byte("<title>"+name+"</title>"), 0o644); err != nil {
		t.Fatal(err)
	}
	d.rcv.waitFor(t, mark, url)
	d.c.waitQuiet(t, n)
	var sent []string
	for _, u := range sortedSet(d.rcv.URLs(mark)) {
		if !strings.Contains(u, "/zz-canary/") {
			sent = append(sent, u)
		}
	}
	return sent
}

// Edits of PostgreSQL's pages. pgTemplate changes what every page's
// DocBook navigation and head carry (the Home link's text, a fingerprinted
// stylesheet, a script): what a theme or generator upgrade does. pgContent
// adds a sentence to one page's body.
func pgTemplate(_ string, b []byte) []byte {
	b = bytes.ReplaceAll(b, []byte(`">Home</a>`), []byte(`">Start</a>`))
	b = bytes.ReplaceAll(b, []byte(`href="stylesheet.css"`), []byte(`href="stylesheet.4f2a9c.css"`))
	return bytes.Replace(b, []byte("</head>"), []byte(`<script src="/js/search.js" defer="defer"></script></head>`), 1)
}

func pgContent(page string) func(string, []byte) []byte {
	return func(name string, b []byte) []byte {
		if name == page {
			return bytes.Replace(b, []byte("<p>"), []byte("<p>A sentence this release adds. "), 1)
		}
		return b
	}
}

// TestDeployPatternsOnRealDocs runs the deploy patterns sites use on
// PostgreSQL's documentation, with the daemon running (pages.lastmod:
// significant, the default): after each, IndexNow has been sent exactly
// the pages that changed in what they say, removals included.
//
//   - cp -r of the same release over the live tree, file group by file
//     group (new mtimes; the daemon publishes mid-copy, watch.max_delay
//     being shorter than the copy): nothing;
//   - rsync (temporary file and rename) of the same bytes: nothing;
//   - rsync --inplace of a release whose template changed on every page
//     and whose one page gained a sentence: that page;
//   - current -> releases/N swaps: the same bytes (new inodes and
//     mtimes): nothing; one page changed: it; one page removed: it;
//   - a swap while the daemon is stopped, one page changed: it, once
//     started again.
func TestDeployPatternsOnRealDocs(t *testing.T) {
	realDocsOrSkip(t)
	if _, err := exec.LookPath("rsync"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("rsync is not installed (Debian: rsync); .ci/run installs it")
		}
		t.Skip("rsync is not installed (Debian: rsync)")
	}
	d := &realDeploy{dir: t.TempDir(), rcv: newReceiver(t)}
	os.MkdirAll(filepath.Join(d.dir, "releases"), 0o755)
	command(t, "cp", "-a", realDocs, d.release(1))
	writeFileAt(t, filepath.Join(d.release(1), "zz-canary", "start.html"), []byte("<title>canary</title>"), time.Now().Add(-time.Hour))
	d.swap(t, 1)
	d.cfg = filepath.Join(d.dir, "sitemapd.yaml")
	body := "root: current\noutput_dir: sitemaps\nbase_url: https://static.test/\nstate_dir: state\nlog: {format: json}\n" +
		strings.Replace(notifyConfig(d.rcv.URL), "watch: {settle: 200ms, max_delay: 30s, rescan: 0s}", "watch: {settle: 20ms, max_delay: 50ms, rescan: 0s}", 1)
	os.Mkdir(filepath.Join(d.dir, "sitemaps"), 0o755)
	os.WriteFile(d.cfg, []byte(body), 0o644)
	d.c = startChild(t, d.cfg)
	d.c.expect(t, "READY=1")
	d.sync(t, "canary-0", 0)

	check := func(what string, sent []string, pages ...string) {
		t.Helper()
		var want []string
		for _, p := range pages {
			want = append(want, base+"/"+p)
		}
		if !slices.Equal(sent, sortedSet(want)) {
			t.Errorf("%s: IndexNow was sent %d URLs %.400q; want %q", what, len(sent), sent, want)
		}
	}

	// cp -r over the live tree, a group of files at a time.
	mark, before := d.rcv.Mark(), d.c.count("published")
	pages, _ := filepath.Glob(filepath.Join(realDocs, "*"))
	for i := 0; i < len(pages); i += 100 {
		command(t, "cp", append(append([]string{"-r"}, pages[i:min(i+100, len(pages))]...), d.root()+"/")...)
	}
	t.Logf("cp -r: %d publishes while it copied", d.c.count("published")-before)
	check("cp -r of the same bytes", d.sync(t, "canary-1", mark))

	mark = d.rcv.Mark()
	command(t, "rsync", "-r", realDocs+"/", d.root()+"/")
	check("rsync of the same bytes", d.sync(t, "canary-2", mark))

	const edited = "sql-select.html"
	d.newRelease(t, 1, 2, func(name string, b []byte) []byte { return pgContent(edited)(name, pgTemplate(name, b)) })
	mark = d.rcv.Mark()
	command(t, "rsync", "-r", "--inplace", d.release(2)+"/", d.root()+"/")
	check("rsync --inplace of a new template and one page's sentence", d.sync(t, "canary-3", mark), edited)

	// Swaps, from a copy of what is live now (release 1, rsync'ed).
	d.newRelease(t, 1, 3, nil)
	mark = d.rcv.Mark()
	d.swap(t, 3)
	check("a swap to the same bytes", d.sync(t, "canary-4", mark))

	const changed, removed = "sql-update.html", "sql-delete.html"
	d.newRelease(t, 3, 4, pgContent(changed))
	mark = d.rcv.Mark()
	d.swap(t, 4)
	check("a swap with one page changed", d.sync(t, "canary-5", mark), changed)

	d.newRelease(t, 4, 5, func(name string, b []byte) []byte {
		if name == removed {
			return nil
		}
		return b
	})
	mark = d.rcv.Mark()
	d.swap(t, 5)
	check("a swap with one page removed", d.sync(t, "canary-6", mark), removed)

	// A swap while stopped.
	d.c.stop(t)
	const later = "sql-insert.html"
	d.newRelease(t, 5, 6, pgContent(later))
	d.swap(t, 6)
	mark = d.rcv.Mark()
	d.c = startChild(t, d.cfg)
	d.c.expect(t, "READY=1")
	check("a swap while stopped, one page changed", d.sync(t, "canary-7", mark), later)
}
