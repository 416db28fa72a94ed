package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// themedPage is a page of a <div>-only theme: a menu of every page, a
// sidebar, a footer with the year and the build time around its body.
func themedPage(i int, year, built, body string) string {
	var menu strings.Builder
	for j := range 8 {
		fmt.Fprintf(&menu, `<a class="item" href="/docs/p%d.html">Page %d</a> `, j, j)
	}
	return fmt.Sprintf(`<!doctype html><html><head><title>Page %d</title><link rel="stylesheet" href="/css/site.%s.css"></head>
<body><div class="top"><a href="/">Site</a><div class="menu">%s</div></div>
<div class="wrap"><div class="side"><p>About this site, which says the same on every page.</p></div>
<div class="main"><h1>Page %d</h1><p>What page %d says, in words of its own about the %dth machine and its parts.</p>%s</div></div>
<div class="bottom">© %s Site · built %s</div></body></html>`, i, built, menu.String(), i, i, i, body, year, built)
}

// TestBuildDryRunSaysWhy: after a deploy that changed every page's
// template and one page's body and another's link, `build -dry-run` names
// each page whose bytes changed with what became of its lastmod: kept for
// the template-only ones, moved for the two, with the part that changed.
func TestBuildDryRunSaysWhy(t *testing.T) {
	cfg, root := writeConfig(t, "")
	os.Remove(filepath.Join(root, "index.html"))
	os.RemoveAll(filepath.Join(root, "blog"))
	write := func(year, built string, body map[int]string, mt time.Time) {
		for i := range 8 {
			writeFileAt(t, filepath.Join(root, "docs", fmt.Sprintf("p%d.html", i)), []byte(themedPage(i, year, built, body[i])), mt)
		}
	}
	mt := time.Date(2025, 3, 1, 8, 0, 0, 0, time.UTC)
	write("2025", "10:00", nil, mt)
	if code, _, stderr := runCLI("build", "-config", cfg); code != ExitOK {
		t.Fatalf("build: exit %d: %s", code, stderr)
	}
	write("2026", "11:42", map[int]string{
		3: "<p>A paragraph this release adds.</p>",
		5: `<p>See <a href="https://example.org/spec">the spec</a>.</p>`,
	}, mt.Add(time.Hour))
	code, out, stderr := runCLI("build", "-config", cfg, "-dry-run")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := []string{"Pages whose bytes changed: 8 pages; lastmod kept for 6 (what they say is the same), moved for 2 (what they say changed).\n"}
	for i := range 8 {
		why := "kept: other bytes, the same content"
		switch i {
		case 3:
			why = "moved: what the page says changed (text)"
		case 5:
			why = "moved: what the page says changed (text, links)"
		}
		want = append(want, fmt.Sprintf("  /docs/p%d.html  %s\n", i, why))
	}
	if !strings.Contains(out, strings.Join(want, "")) {
		t.Errorf("the dry run does not say why each lastmod moved or not; want\n%s\nin\n%s", strings.Join(want, ""), out)
	}
}
