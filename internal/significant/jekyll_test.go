package significant

import (
	"fmt"
	"strings"
	"testing"
)

// jekyllSite is a small blog with the minima theme: posts, pages in the
// header's navigation, a home page listing the posts, and a footer of its
// own, as sites that use minima write one (minima's, with a copyright
// line and the build time).
func jekyllSite() files {
	f := files{
		"_config.yml": `title: Widget Blog
description: News about widgets.
url: https://blog.example.com
theme: minima
plugins:
  - jekyll-feed
  - jekyll-seo-tag
`,
		"index.md":              "---\nlayout: home\n---\n",
		"assets/diagram.png":    "not really a PNG",
		"_includes/footer.html": footerHTML("© 2026 Widget Team", ""),
	}
	for i, name := range []string{"about", "contact", "faq"} {
		f[name+".md"] = fmt.Sprintf("---\nlayout: page\ntitle: %s\npermalink: /%s/\n---\n%s\n\n%s\n", strings.ToUpper(name[:1])+name[1:], name, para(name, i), para(name, i+1))
	}
	for i, name := range []string{"launch", "gears", "levers", "springs", "valves", "pulleys", "release"} {
		var b strings.Builder
		fmt.Fprintf(&b, "---\nlayout: post\ntitle: \"All about %s\"\ndate: 2026-01-%02d 10:00:00 +0000\n---\n", name, i+2)
		fmt.Fprintf(&b, "%s\n\nSee [the %s site](https://example.com/%s) and [about us](/about/).\n\n", para(name, 0), name, name)
		fmt.Fprintf(&b, "## More on %s\n\n%s\n\n```ruby\nWidget.%s\n```\n\n%s\n", name, para(name, 1), name, para(name, 2))
		f[fmt.Sprintf("_posts/2026-01-%02d-%s.md", i+2, name)] = b.String()
	}
	return f
}

// footerHTML is minima 2.5's footer with a copyright line, the build time
// (site.time) and whatever extra is.
func footerHTML(copyright, extra string) string {
	return `<footer class="site-footer h-card">
  <data class="u-url" href="{{ "/" | relative_url }}"></data>
  <div class="wrapper">
    <h2 class="footer-heading">{{ site.title | escape }}</h2>
    <div class="footer-col-wrapper">
      <div class="footer-col footer-col-1">
        <ul class="contact-list">
          <li class="p-name">{%- if site.author -%}{{ site.author | escape }}{%- else -%}{{ site.title | escape }}{%- endif -%}</li>
          {%- if site.email -%}<li><a class="u-email" href="mailto:{{ site.email }}">{{ site.email }}</a></li>{%- endif -%}
        </ul>
      </div>
      <div class="footer-col footer-col-2">{%- include social.html -%}</div>
      <div class="footer-col footer-col-3">
        <p>{{- site.description | escape -}}</p>
        <p class="copyright">` + copyright + ` · built {{ site.time | date: "%Y-%m-%d %H:%M:%S.%N" }}</p>
      </div>
    </div>
  </div>
  ` + extra + `
</footer>
`
}

var jekyll = generator{
	tools: []string{"jekyll"},
	build: func(t *testing.T, src, out string, env []string) {
		run(t, src, append([]string{"JEKYLL_ENV=production"}, env...), "jekyll", "build", "-q", "-s", ".", "-d", out)
	},
}

func TestJekyllMinima(t *testing.T) {
	checkSite(t, jekyll, jekyllSite(), nil, []change{
		{name: "copyright-year", edit: func(t *testing.T, f files) {
			f["_includes/footer.html"] = footerHTML("© 2027 Widget Team", "")
		}},
		// Every build has another site.time: this one too.
		{name: "build-time", edit: func(*testing.T, files) {}},
		{name: "script-and-style", edit: func(t *testing.T, f files) {
			f["_includes/footer.html"] = footerHTML("© 2026 Widget Team", `<script src="{{ "/assets/extra.js" | relative_url }}" integrity="sha384-abc" nonce="n0nce"></script><link rel="stylesheet" href="/assets/extra.css">`)
		}},
		{name: "theme-options", edit: func(t *testing.T, f files) {
			// Not author: jekyll-seo-tag writes it in every page's JSON-LD,
			// a change of structured data.
			f["_config.yml"] += "email: team@example.com\ngithub_username: widget\ntwitter_username: widget\nheader_pages:\n  - faq.md\n  - about.md\n  - contact.md\n"
		}},
		{name: "page-added", edit: func(t *testing.T, f files) {
			f["press.md"] = "---\nlayout: page\ntitle: Press\npermalink: /press/\n---\n" + para("press", 0) + "\n"
		}},
		{name: "page-renamed", edit: func(t *testing.T, f files) {
			f.edit(t, "faq.md", "title: Faq", "title: Questions")
		}, atLeast: map[string]Parts{"/faq/index.html": Title | Data}}, // its JSON-LD's headline
		{name: "content", edit: func(t *testing.T, f files) {
			f.edit(t, "_posts/2026-01-03-gears.md", "in paragraph B", "in the second paragraph")
			f.edit(t, "_posts/2026-01-04-levers.md", "(https://example.com/levers)", "(https://example.org/levers)")
			f.edit(t, "_posts/2026-01-05-springs.md", "## More", "![How it fits](/assets/diagram.png)\n\n## More")
			f.edit(t, "_posts/2026-01-06-valves.md", "date: 2026-01-06 10:00:00 +0000\n", "date: 2026-01-06 10:00:00 +0000\nlast_modified_at: 2026-02-01 09:00:00 +0000\n")
			f.edit(t, "_posts/2026-01-07-pulleys.md", `title: "All about pulleys"`, `title: "Pulleys explained"`)
			f.edit(t, "contact.md", "in paragraph B", "in the first paragraph")
		},
			want: map[string]Parts{
				"/2026/01/03/gears.html":   Text,
				"/2026/01/04/levers.html":  Links,
				"/2026/01/05/springs.html": Images,
				"/2026/01/06/valves.html":  Data,
				"/contact/index.html":      Text,
			},
			atLeast: map[string]Parts{"/2026/01/07/pulleys.html": Title | Data},
			may:     map[string]string{"/index.html": "the home page lists the posts by title"},
		},
	})
}
