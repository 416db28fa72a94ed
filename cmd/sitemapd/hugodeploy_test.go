package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestHugoDeploySendsOnlyContent: a site Hugo builds (with the <div>-only
// theme of internal/significant's generator tests: a menu, a sidebar of
// every page, breadcrumbs and prev/next links, a footer with the
// copyright and the build time, a fingerprinted stylesheet), rsync'ed
// over the live tree while the daemon runs, as the README's recipe does
// (--delete, protect filters). A rebuild whose theme changed (the
// stylesheet, so every page's fingerprint; the copyright year; the build
// time) sends nothing to IndexNow; one whose post gained a paragraph
// sends exactly that post.
func TestHugoDeploySendsOnlyContent(t *testing.T) {
	for _, tool := range []string{"hugo", "rsync"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed (Debian: %s); .ci/run installs it", tool, tool)
			}
			t.Skipf("%s is not installed (Debian: %s)", tool, tool)
		}
	}
	themes, err := filepath.Abs("../../internal/significant/testdata")
	if err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	files := map[string]string{
		"hugo.toml": fmt.Sprintf("baseURL = %q\ntitle = \"Widget Notes\"\nthemesDir = %q\ntheme = \"hugo-theme\"\n"+
			"copyright = \"© 2026 Widget Team\"\ndisableKinds = [\"taxonomy\", \"term\", \"RSS\", \"sitemap\", \"robotsTXT\", \"404\"]\n",
			base+"/", themes),
		"content/_index.md":       "---\ntitle: Widget Notes\n---\nNotes on machines, one post a part.\n",
		"content/posts/_index.md": "---\ntitle: Posts\n---\nEvery post, newest first.\n",
	}
	for i, name := range []string{"gears", "levers", "springs", "valves", "pulleys", "cams", "bolts", "chains"} {
		files["content/posts/"+name+".md"] = fmt.Sprintf("---\ntitle: All about %s\ndate: 2026-01-%02dT10:00:00Z\n---\n"+
			"The %s of a machine turn what the motor gives into what the work needs; this post says how.\n\n"+
			"## How %s wear\n\nA worn %s shows it first in its noise, then in its play, and last in what it breaks.\n",
			name, i+2, name, name, name)
	}
	build := func(edit func()) string {
		t.Helper()
		edit()
		for name, content := range files {
			p := filepath.Join(src, name)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		out := filepath.Join(t.TempDir(), "public")
		cmd := exec.Command("hugo", "--quiet", "-s", src, "-d", out)
		cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "http_proxy=http://127.0.0.1:9", "https_proxy=http://127.0.0.1:9"}
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("hugo: %v\n%s", err, b)
		}
		return out
	}
	rcv := newReceiver(t)
	// The theme states each post's dateModified (JSON-LD) from its front
	// matter, which a body edit leaves as it was; with pages.head_dates the
	// stated date is the lastmod, and the edit would move none. Off here:
	// what is tested is what the pages say.
	cfg, root := writeConfig(t, notifyConfig(rcv.URL)+"pages: {head_dates: false}\n")
	os.Remove(filepath.Join(root, "index.html"))
	os.RemoveAll(filepath.Join(root, "blog"))
	deploy := func(public string) {
		t.Helper()
		command(t, "rsync", "-r", "--delete", "--filter=P sitemap*.xml", "--filter=P /0123456789abcdef.txt",
			"--filter=P .sitemapd*", "--filter=P /zz-canary/", public+"/", root+"/")
	}
	first := build(func() {})
	deploy(first)
	os.MkdirAll(filepath.Join(root, "zz-canary"), 0o755)
	c := startChild(t, cfg)
	c.expect(t, "READY=1")
	canary(t, c, rcv, root, "canary-0")
	before := sitemapLastmods(t, root)
	if len(before) < 10 {
		t.Fatalf("the sitemaps list %d pages: %v", len(before), before)
	}

	mark := rcv.Mark()
	themed := build(func() {
		files["hugo.toml"] = strings.Replace(files["hugo.toml"], "© 2026", "© 2027", 1)
		files["assets/css/main.css"] = "body { color: #333 }\n" // the theme's, overridden: a new fingerprint
	})
	if a, b := stylesheet(t, first), stylesheet(t, themed); a == b || a == "" {
		t.Fatalf("the stylesheet's name did not change: %q, %q", a, b)
	}
	deploy(themed)
	url := base + "/zz-canary/canary-1.html"
	canary(t, c, rcv, root, "canary-1")
	if sent := sortedSet(rcv.URLs(mark)); !slices.Equal(sent, []string{url}) {
		t.Errorf("a theme-only rebuild sent %d URLs %q; want only the canary %s", len(sent), sent, url)
	}
	for loc, lm := range sitemapLastmods(t, root) {
		if before[loc] != "" && lm != before[loc] && !strings.Contains(loc, "zz-canary") {
			t.Errorf("%s: lastmod %s after a theme-only rebuild, was %s", loc, lm, before[loc])
		}
	}

	mark = rcv.Mark()
	deploy(build(func() {
		files["content/posts/springs.md"] += "\nA spring that has lost its temper never gets it back.\n"
	}))
	url = base + "/zz-canary/canary-2.html"
	canary(t, c, rcv, root, "canary-2")
	if sent, want := sortedSet(rcv.URLs(mark)), []string{base + "/posts/springs/", url}; !slices.Equal(sent, want) {
		t.Errorf("a rebuild with one post's paragraph added sent %d URLs %q; want %q", len(sent), sent, want)
	}
}

// stylesheet is the fingerprinted stylesheet's name a built post links.
func stylesheet(t *testing.T, public string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(public, "posts", "gears", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "/css/main.")
	if i < 0 {
		return ""
	}
	return s[i : i+strings.IndexByte(s[i:], '"')]
}
