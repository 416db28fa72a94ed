package scan

import (
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/zap"
)

// TestLostLinksCount: the warnings about symlinks not followed count only
// the links that would have been pages (and, apart, directories outside
// the root): a documentation tree's broken links to stylesheets, scripts
// and fonts warn of nothing.
func TestLostLinksCount(t *testing.T) {
	top := t.TempDir()
	root, out := filepath.Join(top, "root"), filepath.Join(top, "outside")
	for _, d := range []string{root, filepath.Join(root, "drafts"), filepath.Join(root, "_static"), filepath.Join(out, "assets")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(out, "page.html"), filepath.Join(out, "jquery.js"), filepath.Join(root, "index.html")} {
		if err := os.WriteFile(f, []byte("<title>x</title>"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Each link, where it points, and what it would have been: with
	// pages.extensions [.html, .htm], /drafts/** excluded and 404.html an
	// error page.
	type lost int
	const (
		nothing lost = iota // not a page: no warning
		page
		dir // a directory outside the root
	)
	links := []struct {
		at, to string
		was    lost
	}{
		{"gone.html", "missing.html", page},
		{"OLD.HTM", "/nonexistent/old.htm", page},
		{"_static/ghost.html", "../nowhere.html", page},
		{"_static/jquery.js", "/usr/share/javascript/jquery/nonexistent.js", nothing},
		{"_static/basic.css", "../../nowhere/basic.css", nothing},
		{"_static/font.woff2", "nowhere.woff2", nothing},
		{"_static/searchindex", "nowhere", nothing},
		{"drafts/gone.html", "missing.html", nothing},
		{"404.html", "missing-404.html", nothing},
		{"escape.html", filepath.Join(out, "page.html"), page},
		{"_static/jq.js", filepath.Join(out, "jquery.js"), nothing},
		{"external", filepath.Join(out, "assets"), dir},
		{"section.html", filepath.Join(out, "assets"), dir},
	}
	want := map[string]int{}
	for _, l := range links {
		if err := os.Symlink(l.to, filepath.Join(root, l.at)); err != nil {
			t.Fatal(err)
		}
		_, err := os.Stat(filepath.Join(root, l.at))
		switch {
		case l.was == page && err != nil:
			want["not listed: broken symlink"]++
		case l.was == page:
			want["not listed: symlink leaves the document root"]++
		case l.was == dir:
			want["not followed: symlinked directory leaves the document root"]++
		}
	}
	yaml := "root: " + root + "\nbase_url: https://docs.sitemapd.test/\nstate_dir: \"\"\npages:\n  exclude: [\"/drafts/**\"]\n"
	w, logs := walkTree(t, yaml, filepath.Join(top, "sitemapd.yaml"), zap.WarnLevel)
	w.Summary()
	got := map[string]int{}
	for _, e := range logs.All() {
		ctx := e.ContextMap()
		n, unit := 1, "pages"
		if e.Message == "not followed: symlinked directory leaves the document root" {
			unit = "links"
		}
		if c, ok := ctx[unit].(int64); ok {
			n = int(c)
		}
		if _, other := ctx[map[string]string{"pages": "links", "links": "pages"}[unit]]; other {
			t.Errorf("%q counts %v", e.Message, ctx)
		}
		got[e.Message] += n
	}
	for msg, n := range want {
		if got[msg] != n {
			t.Errorf("%q: counted %d, want %d", msg, got[msg], n)
		}
	}
	for msg, n := range got {
		if want[msg] == 0 {
			t.Errorf("unexpected warning %q (%d)", msg, n)
		}
	}
}
