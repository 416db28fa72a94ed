package significant

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestSphinxBuiltinThemes runs the Sphinx site through the themes that
// come with Sphinx itself (no package of their own), one of each layout:
// each lays out the relation bar (previous, next, index), the sidebar
// and the footer its own way, most with <div class=…> only (nature,
// traditional and default are basic's layout with other styles:
// sphinxdoc stands for them). Each theme's change of options is one that
// changes the HTML of every page: a sidebar moved, made collapsible or
// dropped (with the wrapper around the content: the content root is then
// where the model never saw it), the logo, the relation bar and footer
// dropped, the sidebar's templates.
func TestSphinxBuiltinThemes(t *testing.T) {
	// sidebars changes the templates in every page's sidebar, for themes
	// whose options only change colours.
	const sidebars = "html_sidebars = {'**': ['globaltoc.html', 'relations.html', 'searchbox.html']}"
	for _, tc := range []struct{ theme, options string }{
		{"classic", `html_theme_options = {'rightsidebar': True, 'collapsiblesidebar': True, 'externalrefs': True}`},
		{"agogo", `html_theme_options = {'rightsidebar': False}`},
		{"haiku", "html_theme_options = {'full_logo': True}\nhtml_logo = '_static/diagram.png'"},
		{"scrolls", sidebars + "\nhtml_theme_options = {'navigation_with_keys': True}"},
		{"bizstyle", sidebars + "\nhtml_theme_options = {'rightsidebar': True}"},
		{"pyramid", sidebars},
		{"sphinxdoc", `html_theme_options = {'nosidebar': True}`},
		{"epub", `html_theme_options = {'relbar1': False, 'footer': False}`},
	} {
		t.Run(tc.theme, func(t *testing.T) {
			t.Parallel() // a build is one Python process: two at a time halve the wait
			checkSite(t, sphinx, sphinxSite(tc.theme), []string{epoch2026}, sphinxChanges(tc.options))
		})
	}
}

// TestSphinxPress: the Press theme (python3-sphinx-press-theme) puts the
// navigation bar, the sidebar and the breadcrumbs side by side in one
// wrapper with the page; the index and search pages, with little of
// their own, have that wrapper for their content root. Its external
// links option adds an entry to the navigation bar (in a region empty on
// every page until then) and to the sidebar (a region new in the
// wrapper): it must move neither.
func TestSphinxPress(t *testing.T) {
	needTools(t, sphinx.tools...)
	needPython(t, "sphinx-build", "import sphinx_press_theme", "python3-sphinx-press-theme")
	checkSite(t, sphinx, sphinxSite("press"), []string{epoch2026}, sphinxChanges(
		`html_theme_options = {'external_links': [('Github', 'https://github.com/widget/widget')]}`))
}

// needPython fails or skips the test, as needTools does, when the Python
// that runs tool (its #! line's) cannot run code (a theme's import), the
// Debian package pkg missing.
func needPython(t *testing.T, tool, code, pkg string) {
	t.Helper()
	path, err := exec.LookPath(tool)
	if err != nil {
		t.Fatal(err) // needTools looked first
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(f).ReadString('\n')
	f.Close()
	python := "python3"
	if fields := strings.Fields(strings.TrimPrefix(line, "#!")); strings.HasPrefix(line, "#!") && len(fields) > 0 {
		python = fields[0]
		if python == "/usr/bin/env" && len(fields) > 1 {
			python = fields[1]
		}
	}
	if out, err := exec.Command(python, "-c", code).CombinedOutput(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed (CI=true: a missing generator fails the test): %s", pkg, out)
		}
		t.Skipf("%s is not installed: skipped outside CI", pkg)
	}
}
