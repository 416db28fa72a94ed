package significant

import (
	"fmt"
	"os"
	"testing"
)

// The themes tried that show nothing the tests CI runs do not (they
// passed as they are): Debian's other Sphinx and MkDocs theme packages.
// CI does not install them; SIG_MORE_THEMES=1 runs them (a missing
// package then fails), and they are skipped otherwise. Install with
//
//	apt-get install python3-pydata-sphinx-theme python3-sphinx-book-theme \
//	  python3-sphinx-bootstrap-theme furo python3-guzzle-sphinx-theme \
//	  mkdocs-bootstrap mkdocs-nature

func moreThemes(t *testing.T) {
	t.Helper()
	if os.Getenv("SIG_MORE_THEMES") != "1" {
		t.Skip("SIG_MORE_THEMES=1 not set: the themes CI does not install are skipped")
	}
	t.Setenv("CI", "true") // asked for: a missing theme fails
}

func TestMoreSphinxThemes(t *testing.T) {
	moreThemes(t)
	for _, tc := range []struct{ theme, module, pkg, pre, options string }{
		{"pydata_sphinx_theme", "pydata_sphinx_theme", "python3-pydata-sphinx-theme", "",
			`html_theme_options = {'show_prev_next': False, 'navbar_align': 'left', 'footer_items': ['copyright']}`},
		{"sphinx_book_theme", "sphinx_book_theme", "python3-sphinx-book-theme", "",
			`html_theme_options = {'show_navbar_depth': 2, 'home_page_in_toc': True, 'extra_navbar': 'Made by us'}`},
		{"bootstrap", "sphinx_bootstrap_theme", "python3-sphinx-bootstrap-theme",
			"import sphinx_bootstrap_theme\nhtml_theme_path = sphinx_bootstrap_theme.get_html_theme_path()\n",
			`html_theme_options = {'navbar_title': 'Widgets', 'navbar_sidebarrel': False, 'source_link_position': 'footer', 'bootswatch_theme': 'united'}`},
		{"furo", "furo", "furo", "",
			`html_theme_options = {'sidebar_hide_name': True, 'navigation_with_keys': True, 'announcement': 'Version 2 is coming'}`},
		{"guzzle_sphinx_theme", "guzzle_sphinx_theme", "python3-guzzle-sphinx-theme",
			"import guzzle_sphinx_theme\nhtml_theme_path = guzzle_sphinx_theme.html_theme_path()\nextensions = ['guzzle_sphinx_theme']\n",
			`html_theme_options = {'project_nav_name': 'Widget Docs', 'globaltoc_depth': 2}`},
	} {
		t.Run(tc.theme, func(t *testing.T) {
			needTools(t, sphinx.tools...)
			needPython(t, "sphinx-build", "import "+tc.module, tc.pkg)
			f := sphinxSite(tc.theme)
			f["conf.py"] = tc.pre + f["conf.py"]
			checkSite(t, sphinx, f, []string{epoch2026}, sphinxChanges(tc.options))
		})
	}
}

func TestMoreMkDocsThemes(t *testing.T) {
	moreThemes(t)
	for _, tc := range []struct{ theme, pkg, options string }{
		{"bootstrap", "mkdocs-bootstrap", "  include_sidebar: false\n"},
		// nature's sitemap.html lists every page: a list page, whose list
		// is its content.
		{"nature", "mkdocs-nature", "  sticky_navigation: false\n"},
	} {
		t.Run(tc.theme, func(t *testing.T) {
			needTools(t, mkdocs.tools...)
			needPython(t, "mkdocs", fmt.Sprintf("from mkdocs.utils import get_theme_names; import sys; sys.exit(%q not in get_theme_names())", tc.theme), tc.pkg)
			changes := mkdocsChanges(tc.options)
			for i := range changes {
				changes[i].may = map[string]string{"/sitemap.html": "it lists every page"}
			}
			checkSite(t, mkdocs, mkdocsSite(tc.theme), nil, changes)
		})
	}
}
