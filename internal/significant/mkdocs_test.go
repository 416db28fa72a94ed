package significant

import (
	"fmt"
	"strings"
	"testing"
)

// mkdocsSite is a small MkDocs project: pages at the top and in two
// sections, the navigation made by MkDocs from the files.
func mkdocsSite(theme string) files {
	f := files{
		"mkdocs.yml": fmt.Sprintf(`site_name: Widget Docs
site_url: https://docs.example.com/
copyright: "© 2026 Widget Team"
use_directory_urls: true
theme:
  name: %s
`, theme),
		"docs/img/diagram.png": "not really a PNG",
	}
	for _, p := range []struct{ path, title string }{
		{"index", "Widget"}, {"intro", "Introduction"}, {"usage", "Usage"}, {"faq", "FAQ"},
		{"changelog", "Changelog"}, {"guide/install", "Installation"}, {"guide/config", "Configuration"},
		{"guide/deploy", "Deployment"}, {"api/core", "Core API"}, {"api/utils", "Utilities"},
	} {
		name := p.path[strings.LastIndexByte(p.path, '/')+1:]
		var b strings.Builder
		fmt.Fprintf(&b, "# %s\n\n%s\n\n## Overview of %s\n\n%s\n\n", p.title, para(name, 0), name, para(name, 1))
		fmt.Fprintf(&b, "See [the %s site](https://example.com/%s) and the [introduction](%sintro.md).\n\n", name, name, strings.Repeat("../", strings.Count(p.path, "/")))
		fmt.Fprintf(&b, "```python\nimport widget\nwidget.%s()\n```\n\n## Details of %s\n\n%s\n", name, name, para(name, 2))
		f["docs/"+p.path+".md"] = b.String()
	}
	return f
}

var mkdocs = generator{
	tools: []string{"mkdocs"},
	build: func(t *testing.T, src, out string, env []string) {
		run(t, src, env, "mkdocs", "build", "-q", "-d", out)
	},
}

func TestMkDocsDefault(t *testing.T) {
	checkSite(t, mkdocs, mkdocsSite("mkdocs"), nil, mkdocsChanges("  nav_style: dark\n  navigation_depth: 3\n  highlightjs: false\n"))
}

// TestMkDocsReadTheDocs: MkDocs' other built-in theme.
func TestMkDocsReadTheDocs(t *testing.T) {
	checkSite(t, mkdocs, mkdocsSite("readthedocs"), nil, mkdocsChanges("  prev_next_buttons_location: both\n  navigation_depth: 2\n  collapse_navigation: false\n  titles_only: true\n"))
}

func TestMkDocsMaterial(t *testing.T) {
	checkSite(t, mkdocs, mkdocsSite("material"), nil, mkdocsChanges("  features:\n    - navigation.tabs\n    - navigation.top\n    - toc.integrate\n  palette:\n    primary: indigo\n"))
}

func mkdocsChanges(options string) []change {
	return []change{
		{name: "copyright-year", edit: func(t *testing.T, f files) {
			f.edit(t, "mkdocs.yml", "© 2026", "© 2027")
		}},
		{name: "script-and-style", edit: func(t *testing.T, f files) {
			f["docs/js/extra.js"] = "console.log('hi')"
			f["docs/css/extra.css"] = "body{color:red}"
			f["mkdocs.yml"] += "extra_javascript:\n  - js/extra.js\nextra_css:\n  - css/extra.css\n"
		}},
		{name: "theme-options", edit: func(t *testing.T, f files) {
			f["mkdocs.yml"] += options
		}},
		{name: "page-added", edit: func(t *testing.T, f files) {
			f["docs/guide/upgrade.md"] = "# Upgrading\n\n" + para("upgrade", 0) + "\n"
		}},
		{name: "page-renamed", edit: func(t *testing.T, f files) {
			f.edit(t, "docs/faq.md", "# FAQ", "# Questions and answers")
		}, atLeast: map[string]Parts{"/faq/index.html": Title | Text}},
		{name: "content", edit: func(t *testing.T, f files) {
			f.edit(t, "docs/intro.md", "in paragraph B", "in the second paragraph")
			f.edit(t, "docs/usage.md", "(https://example.com/usage)", "(https://example.org/usage)")
			f.edit(t, "docs/guide/install.md", "## Details", "![How it fits](../img/diagram.png)\n\n## Details")
			f.edit(t, "docs/changelog.md", "## Details", "Version 2 is out.\n\n## Details")
			f.edit(t, "docs/api/core.md", "# Core API", "# Core interface")
		},
			want: map[string]Parts{
				"/intro/index.html":         Text,
				"/usage/index.html":         Links,
				"/guide/install/index.html": Images,
				"/changelog/index.html":     Text,
			},
			atLeast: map[string]Parts{"/api/core/index.html": Title | Text},
		},
	}
}
