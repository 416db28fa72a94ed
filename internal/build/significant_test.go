package build

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/scan"
	"github.com/sitemapd/sitemapd/internal/significant"
)

// theme renders the pages of a small site as many themes do: header,
// navigation listing every page, breadcrumbs, prev/next links and a
// footer around the content, all <div>s, with a fingerprinted stylesheet
// and a build time: everything but the content moves with the template.
type theme struct {
	year, css, built string
	extraNav         string // a page added to the navigation
}

var sitePages = []string{"index.html", "about.html", "docs/intro.html", "docs/install.html", "docs/usage.html",
	"docs/faq.html", "blog/one.html", "blog/two.html", "blog/three.html", "blog/four.html"}

func (th theme) page(i int, body string) string {
	var nav strings.Builder
	for _, p := range sitePages {
		fmt.Fprintf(&nav, `<li><a href="/%s">%s</a></li>`, p, strings.TrimSuffix(filepath.Base(p), ".html"))
	}
	nav.WriteString(th.extraNav)
	prev, next := sitePages[(i+len(sitePages)-1)%len(sitePages)], sitePages[(i+1)%len(sitePages)]
	return `<!doctype html><html><head><title>Page ` + sitePages[i] + `</title>
<link rel="stylesheet" href="/css/main.` + th.css + `.css" integrity="sha256-` + th.css + `">
<script src="/js/app.` + th.css + `.js"></script></head><body>
<div class="header"><div class="logo"><a href="/">Site</a></div><ul class="menu">` + nav.String() + `</ul></div>
<div class="crumbs"><a href="/">Home</a> / <a href="/` + filepath.Dir(sitePages[i]) + `/">` + filepath.Dir(sitePages[i]) + `</a></div>
<div class="content"><h1>` + sitePages[i] + `</h1>` + body + `</div>
<div class="pager"><a href="/` + prev + `">Previous</a> <a href="/` + next + `">Next</a></div>
<div class="footer"><p>© ` + th.year + ` Site. Built ` + th.built + `.</p></div></body></html>`
}

func pageBody(i int, extra string) string {
	return fmt.Sprintf(`<p>What page %d says, in a paragraph of its own about %s.</p><p>More of it, with <a href="/docs/intro.html">a link</a> and <img src="/img/%d.png" alt="figure %d">.</p>%s`,
		i, sitePages[i], i, i, extra)
}

// writeThemed writes every page under th, with bodies (extra per page),
// at mtime mt.
func writeThemed(t *testing.T, root string, th theme, extra map[int]string, mt time.Time) {
	for i, p := range sitePages {
		writeFile(t, filepath.Join(root, p), th.page(i, pageBody(i, extra[i])), mt)
	}
}

// TestSignificantLastmods: under pages.lastmod: significant, template
// changes (footer year, build time, a fingerprinted asset, a page added to
// the navigation) move no lastmod; a content change moves exactly its
// page's, and the report says which part of what it says changed.
func TestSignificantLastmods(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	state := t.TempDir()
	base := theme{year: "2026", css: "3f9a", built: "2026-11-01 10:00"}
	writeThemed(t, root, base, nil, defaultMTime)
	cfg := loadConfig(t, baseConfig, root, "state_dir: "+state+"\n")
	build := func() *Report {
		t.Helper()
		e, _ := newEngine(t, cfg)
		return mustBuild(t, e)
	}
	build()
	before := lastmods(t, filepath.Join(root, "docs", "sitemap.xml"))

	later := defaultMTime.Add(24 * time.Hour)
	for _, c := range []struct {
		name  string
		th    theme
		extra map[int]string
	}{
		{"footer year and build time", theme{year: "2027", css: "3f9a", built: "2026-11-02 10:00"}, nil},
		{"fingerprinted assets", theme{year: "2027", css: "b7c1", built: "2026-11-02 10:00"}, nil},
		{"a page added to the navigation", theme{year: "2027", css: "b7c1", built: "2026-11-02 10:00",
			extraNav: `<li><a href="/docs/new.html">new</a></li>`}, nil},
	} {
		later = later.Add(time.Hour)
		writeThemed(t, root, c.th, c.extra, later)
		rep := build()
		if got := lastmods(t, filepath.Join(root, "docs", "sitemap.xml")); !maps.Equal(got, before) {
			t.Errorf("%s: lastmods moved:\n%v\nwere\n%v", c.name, got, before)
		}
		if rep.Lastmods.Moved+rep.Lastmods.MovedBytes != 0 || rep.Lastmods.Kept != len(sitePages) {
			t.Errorf("%s: report %d kept, %d moved, %d by bytes; want %d kept", c.name,
				rep.Lastmods.Kept, rep.Lastmods.Moved, rep.Lastmods.MovedBytes, len(sitePages))
		}
	}

	// Content: a paragraph on one page, a link on another.
	later = later.Add(time.Hour)
	th := theme{year: "2027", css: "b7c1", built: "2026-11-03 10:00"}
	writeThemed(t, root, th, map[int]string{3: "<p>A new paragraph.</p>", 4: `<p><a href="/blog/one.html">see</a></p>`}, later)
	rep := build()
	got := lastmods(t, filepath.Join(root, "docs", "sitemap.xml"))
	for loc, lm := range got {
		moved := lm != before[loc]
		want := strings.HasSuffix(loc, "install.html") || strings.HasSuffix(loc, "usage.html")
		if moved != want {
			t.Errorf("%s: lastmod %s (was %s): moved %v, want %v", loc, lm, before[loc], moved, want)
		}
	}
	parts := map[string]significant.Parts{}
	for _, j := range rep.Lastmods.Pages {
		if j.Verdict == scan.Moved {
			parts[j.Path] = j.Parts
		}
	}
	if parts["docs/install.html"] != significant.Text || parts["docs/usage.html"]&significant.Links == 0 || len(parts) != 2 {
		t.Errorf("moved parts %v; want docs/install.html text, docs/usage.html links", parts)
	}
}

// TestSignificantAfterUpgrade: a page store kept under pages.lastmod:
// content (as every store before significant was) keeps every lastmod
// when the rule becomes significant, and gives each page a print on the
// way: the next template deploy moves nothing.
func TestSignificantAfterUpgrade(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	state := t.TempDir()
	writeThemed(t, root, theme{year: "2026", css: "a1", built: "1"}, nil, defaultMTime)
	old := loadConfig(t, baseConfig, root, "state_dir: "+state+"\npages: {lastmod: content}\n")
	e, _ := newEngine(t, old)
	mustBuild(t, e)
	before := lastmods(t, filepath.Join(root, "blog", "sitemap.xml"))

	// Upgraded, over the same tree rewritten with the same bytes (a
	// redeploy): nothing moves, every page is read for its print.
	rewrite(t, filepath.Join(root, "blog", "one.html"), defaultMTime.Add(time.Hour), true)
	cfg := loadConfig(t, baseConfig, root, "state_dir: "+state+"\n")
	e, _ = newEngine(t, cfg)
	if rep := mustBuild(t, e); rep.Lastmods.Moved+rep.Lastmods.MovedBytes != 0 {
		t.Errorf("first build after the upgrade moved %d lastmods", rep.Lastmods.Moved+rep.Lastmods.MovedBytes)
	}
	writeThemed(t, root, theme{year: "2027", css: "b2", built: "2"}, nil, defaultMTime.Add(2*time.Hour))
	e, _ = newEngine(t, cfg)
	rep := mustBuild(t, e)
	if got := lastmods(t, filepath.Join(root, "blog", "sitemap.xml")); !maps.Equal(got, before) {
		t.Errorf("a template deploy after the upgrade moved lastmods:\n%v\nwere\n%v", got, before)
	}
	if rep.Lastmods.Kept != len(sitePages) {
		t.Errorf("kept %d lastmods by what pages say, want %d", rep.Lastmods.Kept, len(sitePages))
	}
}

// TestSignificantUpdate: the daemon's change of one page (Update) reports
// what became of its lastmod, as a full build does.
func TestSignificantUpdate(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	th := theme{year: "2026", css: "a1", built: "1"}
	writeThemed(t, root, th, nil, defaultMTime)
	cfg := loadConfig(t, baseConfig, root, "")
	e, _ := newEngine(t, cfg, WithChanges())
	mustBuild(t, e)
	th.year = "2027"
	p := filepath.Join(root, sitePages[2])
	writeFile(t, p, th.page(2, pageBody(2, "")), defaultMTime.Add(time.Hour))
	rep, err := e.Update(context.Background(), []string{"docs"}, map[string][]string{"docs": {"intro.html"}})
	if err != nil {
		t.Fatal(err)
	}
	if l := rep.Lastmods; l.Kept != 1 || l.Moved+l.MovedBytes != 0 || len(l.Pages) != 1 || l.Pages[0].Path != "docs/intro.html" {
		t.Errorf("a footer change of one page: %+v; want it kept", l)
	}
}
