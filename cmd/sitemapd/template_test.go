package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// TestTemplateDeploySendsNothing: a site generator's fresh output that
// differs from what is live only in its template (the footer's year, a
// script added to every page, a fingerprinted stylesheet), rsync'ed over
// the live tree while the daemon runs, moves no lastmod and sends nothing
// to IndexNow (pages.lastmod: significant, the default); then one page
// whose content changed, deployed the same way, sends exactly its URL.
func TestTemplateDeploySendsNothing(t *testing.T) {
	if _, err := exec.LookPath("rsync"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("rsync is not installed (Debian: rsync); .ci/run installs it")
		}
		t.Skip("rsync is not installed (Debian: rsync)")
	}
	rcv := newReceiver(t)
	cfg, root := writeConfig(t, notifyConfig(rcv.URL))
	os.Remove(filepath.Join(root, "index.html"))
	os.RemoveAll(filepath.Join(root, "blog"))
	site := realisticSite()
	writeSite(t, root, site)
	writeFileAt(t, filepath.Join(root, "zz-canary", "start.html"), []byte("<title>canary</title>"), site[0].mtime)

	c := startChild(t, cfg)
	c.expect(t, "READY=1")
	canary(t, c, rcv, root, "canary-0") // whatever is owed at start is sent
	before := sitemapLastmods(t, root)

	deploy := func(name string, edit func(rel string, b []byte) []byte) []string {
		t.Helper()
		src := filepath.Join(t.TempDir(), "public")
		for _, f := range site {
			writeFileAt(t, filepath.Join(src, f.rel), edit(f.rel, f.data), f.mtime)
		}
		mark := rcv.Mark()
		command(t, "rsync", "-r", src+"/", root+"/") // new mtimes: every page rewritten
		canary(t, c, rcv, root, name)
		return sortedSet(rcv.URLs(mark))
	}

	template := func(_ string, b []byte) []byte {
		b = bytes.ReplaceAll(b, []byte("© 2025 Example Corp"), []byte("© 2026 Example Corp"))
		b = bytes.ReplaceAll(b, []byte("/assets/site.css"), []byte("/assets/site.5d41402a.css"))
		return bytes.ReplaceAll(b, []byte("</head>"), []byte("<script src=\"/assets/analytics.js\" async></script>\n</head>"))
	}
	url := base + "/zz-canary/canary-1.html"
	if sent := deploy("canary-1", template); !slices.Equal(sent, []string{url}) {
		t.Errorf("a template-only deploy sent %d URLs %.300q; want only the canary %s", len(sent), sent, url)
	}
	after := sitemapLastmods(t, root)
	for loc, lm := range before {
		if after[loc] != lm {
			t.Errorf("%s: lastmod %s after a template-only deploy, was %s", loc, after[loc], lm)
		}
	}

	const edited = "docs/guide/install.html"
	content := func(rel string, b []byte) []byte {
		b = template(rel, b)
		if rel == edited {
			b = bytes.Replace(b, []byte("<p>Paragraph 1 of"), []byte("<p>A new first paragraph.</p>\n<p>Paragraph 1 of"), 1)
		}
		return b
	}
	url = base + "/zz-canary/canary-2.html"
	want := []string{base + "/" + edited, url}
	if sent := deploy("canary-2", content); !slices.Equal(sent, want) {
		t.Errorf("a deploy with one page's content changed sent %d URLs %.300q; want %q", len(sent), sent, want)
	}
	if lm := sitemapLastmods(t, root)[base+"/"+edited]; lm == before[base+"/"+edited] {
		t.Errorf("the edited page's lastmod stayed %s", lm)
	}
}
