package significant

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hugoSite is a small Hugo site with the theme in testdata/hugo-theme
// (Debian's hugo has none): a header menu, a sidebar listing every page
// with the current one marked, breadcrumbs and previous/next links inside
// the article, a footer with the copyright and the build time, a
// fingerprinted stylesheet with its integrity, JSON-LD with dateModified;
// all of it marked up with <div class=…> only, as many themes are, so that
// nothing but learning tells the template from the content.
func hugoSite(t *testing.T) files {
	f := files{
		"config.toml": `baseURL = "https://notes.example.com/"
title = "Widget Notes"
languageCode = "en"
theme = "plain"
copyright = "© 2026 Widget Team"
disableKinds = ["taxonomy", "term", "RSS", "sitemap", "robotsTXT", "404"]
[params]
about = "Notes on widgets, gears and levers."
`,
		"content/_index.md":       "---\ntitle: Widget Notes\n---\nNotes on machines.\n",
		"content/posts/_index.md": "---\ntitle: Posts\n---\n" + para("posts", 0) + "\n",
		"content/docs/_index.md":  "---\ntitle: Docs\n---\n" + para("docs", 0) + "\n",
		"static/diagram.png":      "not really a PNG",
	}
	err := filepath.WalkDir("testdata/hugo-theme", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel("testdata/hugo-theme", path)
		f["themes/plain/"+filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	pages := []struct{ path, title string }{
		{"posts/launch", "Launch"}, {"posts/gears", "Gears"}, {"posts/levers", "Levers"},
		{"posts/springs", "Springs"}, {"posts/valves", "Valves"}, {"posts/pulleys", "Pulleys"},
		{"docs/install", "Install"}, {"docs/config", "Configure"}, {"docs/deploy", "Deploy"},
	}
	for i, p := range pages {
		name := p.path[strings.LastIndexByte(p.path, '/')+1:]
		var b strings.Builder
		fmt.Fprintf(&b, "---\ntitle: %s\ndate: 2026-01-%02dT10:00:00Z\nlastmod: 2026-01-%02dT10:00:00Z\n---\n", p.title, i+2, i+2)
		fmt.Fprintf(&b, "%s\n\nSee [the %s site](https://example.com/%s) and [the install notes](/docs/install/).\n\n", para(name, 0), name, name)
		fmt.Fprintf(&b, "## More on %s\n\n%s\n\n```go\nwidget.%s()\n```\n\n%s\n", name, para(name, 1), name, para(name, 2))
		f["content/"+p.path+".md"] = b.String()
	}
	return f
}

var hugo = generator{
	tools: []string{"hugo"},
	build: func(t *testing.T, src, out string, env []string) {
		run(t, src, env, "hugo", "--quiet", "-s", ".", "-d", out)
	},
}

func TestHugo(t *testing.T) {
	lists := map[string]string{"/posts/index.html": "the section's list of its pages", "/docs/index.html": "the section's list of its pages"}
	checkSite(t, hugo, hugoSite(t), nil, []change{
		{name: "copyright-year", edit: func(t *testing.T, f files) {
			f.edit(t, "config.toml", "© 2026", "© 2027")
		}},
		// Every build has another time in the footer: this one too.
		{name: "build-time", edit: func(*testing.T, files) {}},
		{name: "script", edit: func(t *testing.T, f files) {
			f.edit(t, "config.toml", "[params]\n", "[params]\nscripts = [\"/js/extra.js\"]\n")
		}},
		{name: "fingerprinted-css", edit: func(t *testing.T, f files) {
			f.edit(t, "themes/plain/assets/css/main.css", "#222", "#333")
		}},
		{name: "theme-options", edit: func(t *testing.T, f files) {
			f.edit(t, "config.toml", "[params]\n", "[params]\nshowAbout = true\n")
		}},
		{name: "page-added", edit: func(t *testing.T, f files) {
			f["content/posts/cams.md"] = "---\ntitle: Cams\ndate: 2026-02-01T10:00:00Z\n---\n" + para("cams", 0) + "\n"
		}, may: map[string]string{
			"/posts/index.html": "the section's list of its pages",
			"/index.html":       "the home page lists the sections by the date of their latest page",
		}},
		{name: "page-renamed", edit: func(t *testing.T, f files) {
			f.edit(t, "content/posts/levers.md", "title: Levers", "title: Levers and cranks")
		}, atLeast: map[string]Parts{"/posts/levers/index.html": Title | Data}, may: lists},
		{name: "content", edit: func(t *testing.T, f files) {
			f.edit(t, "content/posts/gears.md", "in paragraph B", "in the second paragraph")
			f.edit(t, "content/posts/springs.md", "(https://example.com/springs)", "(https://example.org/springs)")
			f.edit(t, "content/posts/valves.md", "## More", "![How it fits](/diagram.png)\n\n## More")
			f.edit(t, "content/posts/pulleys.md", "lastmod: 2026-01-07T10:00:00Z", "lastmod: 2026-02-07T10:00:00Z")
			f.edit(t, "content/docs/deploy.md", "title: Deploy", "title: Deploying")
			f.edit(t, "content/docs/config.md", "```go", "Version 2 is out.\n\n```go")
		},
			want: map[string]Parts{
				"/posts/gears/index.html":   Text,
				"/posts/springs/index.html": Links,
				"/posts/valves/index.html":  Images,
				"/posts/pulleys/index.html": Data,
				"/docs/config/index.html":   Text,
			},
			atLeast: map[string]Parts{"/docs/deploy/index.html": Title | Data},
			may:     lists,
		},
	})
}
