package significant

import (
	"fmt"
	"strings"
	"testing"
)

// sphinxSite is a small documentation project: an index with a toctree,
// sections (guide/, api/) with their own, notes, code, cross-references.
func sphinxSite(theme string) files {
	f := files{
		"conf.py": fmt.Sprintf(`project = 'Widget'
copyright = '2026, Widget Team'
author = 'Widget Team'
html_theme = %q
html_last_updated_fmt = '%%Y-%%m-%%d %%H:%%M:%%S'
html_static_path = ['_static']
`, theme),
		"_static/diagram.png": "not really a PNG",
		"index.rst": `Widget
======

Widget makes machines out of parts. This is its manual.

.. toctree::
   :maxdepth: 2

   intro
   usage
   faq
   changelog
   guide/index
   api/index
`,
		"guide/index.rst": "Guide\n=====\n\n" + para("guide", 0) + "\n\n.. toctree::\n\n   install\n   config\n   deploy\n",
		"api/index.rst":   "API\n===\n\n" + para("api", 0) + "\n\n.. toctree::\n\n   core\n   utils\n",
	}
	for _, p := range []struct{ path, title string }{
		{"intro", "Introduction"}, {"usage", "Usage"}, {"faq", "FAQ"}, {"changelog", "Changelog"},
		{"guide/install", "Installation"}, {"guide/config", "Configuration"}, {"guide/deploy", "Deployment"},
		{"api/core", "Core API"}, {"api/utils", "Utilities"},
	} {
		name := p.path[strings.LastIndexByte(p.path, '/')+1:]
		var b strings.Builder
		fmt.Fprintf(&b, "%s\n%s\n\n%s\n\n", p.title, strings.Repeat("=", len(p.title)), para(name, 0))
		fmt.Fprintf(&b, "Overview of %s\n%s\n\n%s\n\n", name, strings.Repeat("-", 12+len(name)), para(name, 1))
		fmt.Fprintf(&b, ".. note::\n\n   Remember that %s needs care.\n\n", name)
		fmt.Fprintf(&b, "See `the %s site <https://example.com/%s>`_ and :doc:`/intro`.\n\n", name, name)
		fmt.Fprintf(&b, ".. code-block:: python\n\n   import widget\n   widget.%s()\n\n", name)
		fmt.Fprintf(&b, "Details of %s\n%s\n\n%s\n\n", name, strings.Repeat("-", 11+len(name)), para(name, 2))
		f[p.path+".rst"] = b.String()
	}
	return f
}

const (
	epoch2026 = "SOURCE_DATE_EPOCH=1772366400" // 2026-03-01
	epochLate = "SOURCE_DATE_EPOCH=1772459999" // 2026-03-02, another build time
	epoch2027 = "SOURCE_DATE_EPOCH=1803902400" // 2027-03-01: © 2027 too
)

var sphinx = generator{
	tools: []string{"sphinx-build"},
	build: func(t *testing.T, src, out string, env []string) {
		run(t, src, env, "sphinx-build", "-q", "-b", "html", ".", out)
	},
}

func TestSphinxAlabaster(t *testing.T) {
	checkSite(t, sphinx, sphinxSite("alabaster"), []string{epoch2026}, sphinxChanges(
		`html_theme_options = {'description': 'Machines out of parts', 'github_user': 'widget', 'github_repo': 'widget', 'fixed_sidebar': True, 'show_relbars': True}`))
}

func TestSphinxRTD(t *testing.T) {
	checkSite(t, sphinx, sphinxSite("sphinx_rtd_theme"), []string{epoch2026}, sphinxChanges(
		`html_theme_options = {'prev_next_buttons_location': 'both', 'style_external_links': True, 'titles_only': True}`))
}

func sphinxChanges(options string) []change {
	conf := func(line string) func(*testing.T, files) {
		return func(t *testing.T, f files) { f["conf.py"] += line + "\n" }
	}
	toc := map[string]string{"/index.html": "its toctree lists the pages"}
	return []change{
		{name: "copyright-year", edit: func(*testing.T, files) {}, env: []string{epoch2027}},
		{name: "build-time", edit: func(*testing.T, files) {}, env: []string{epochLate}},
		{name: "script-and-style", edit: func(t *testing.T, f files) {
			f["_static/extra.js"] = "console.log('hi')"
			f["_static/extra.css"] = "body{color:red}"
			conf("html_js_files = ['extra.js']\nhtml_css_files = ['extra.css']")(t, f)
		}},
		{name: "theme-options", edit: conf(options)},
		{name: "page-added", edit: func(t *testing.T, f files) {
			f["guide/upgrade.rst"] = "Upgrading\n=========\n\n" + para("upgrade", 0) + "\n"
			f.edit(t, "guide/index.rst", "   deploy\n", "   deploy\n   upgrade\n")
		}, may: map[string]string{"/guide/index.html": "its toctree lists the pages", "/index.html": "its toctree lists the pages two levels down"}},
		{name: "page-renamed", edit: func(t *testing.T, f files) {
			f.edit(t, "faq.rst", "FAQ\n===", "Questions and answers\n=====================")
		}, atLeast: map[string]Parts{"/faq.html": Title | Text}, may: toc},
		{name: "content", edit: func(t *testing.T, f files) {
			f.edit(t, "intro.rst", "in paragraph B", "in the second paragraph")
			f.edit(t, "usage.rst", "<https://example.com/usage>", "<https://example.org/usage>")
			f.edit(t, "guide/install.rst", "Details of install\n", ".. image:: ../_static/diagram.png\n   :alt: How it fits\n\nDetails of install\n")
			f.edit(t, "changelog.rst", "Details of changelog\n", "Version 2 is out.\n\nDetails of changelog\n")
			f.edit(t, "api/core.rst", "Core API\n========", "Core interface\n==============")
		},
			want: map[string]Parts{
				"/intro.html":         Text,
				"/usage.html":         Links,
				"/guide/install.html": Images,
				"/changelog.html":     Text,
			},
			atLeast: map[string]Parts{"/api/core.html": Title | Text},
			may:     map[string]string{"/api/index.html": "its toctree lists the pages", "/index.html": "its toctree lists the pages two levels down"},
		},
	}
}
