package scan

import (
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/sitemapd/sitemapd/internal/config"
)

// nameMatcher matches base names against a glob. The walk tests every
// name in the tree against every ignore glob, so the common shapes ("*.bak",
// "~$*", "#*#", "4913") are compiled to plain string tests and only the
// rest go through doublestar.
type nameMatcher struct {
	prefix, suffix string
	exact          bool   // prefix is the whole name
	glob           string // non-empty: fall back to doublestar
}

func compileName(g string) nameMatcher {
	i := strings.IndexAny(g, `*?[{\`)
	switch {
	case i < 0:
		return nameMatcher{prefix: g, exact: true}
	case g[i] == '*' && !strings.ContainsAny(g[i+1:], `*?[{\`):
		return nameMatcher{prefix: g[:i], suffix: g[i+1:]}
	}
	return nameMatcher{glob: g}
}

func (m *nameMatcher) match(name string) bool {
	switch {
	case m.glob != "":
		ok, _ := doublestar.Match(m.glob, name)
		return ok
	case m.exact:
		return name == m.prefix
	}
	return len(name) >= len(m.prefix)+len(m.suffix) &&
		strings.HasPrefix(name, m.prefix) && strings.HasSuffix(name, m.suffix)
}

// Filter decides, by name and path, what the walk lists.
type Filter struct {
	exts     []string // lower case, with the dot
	ignore   []nameMatcher
	exclude  []string          // normalised globs over "/rel/path"
	errors   []string          // the same, of error pages
	outputs  []string          // output names whose parts are ours (sitemap, index, text)
	keyFiles map[string]string // IndexNow key file names -> their keys
	extra    string            // the built-in stylesheet's name, if written
}

// NewFilter returns the filter of a validated configuration.
func NewFilter(cfg *config.Config) *Filter {
	// Text sitemaps count as outputs even when they are off, so that the
	// ones written before are found and removed (if the record says they
	// are ours).
	f := &Filter{outputs: []string{cfg.SitemapName, cfg.IndexName, cfg.TextName()}, keyFiles: cfg.KeyFiles()}
	for _, e := range cfg.Pages.Extensions {
		f.exts = append(f.exts, strings.ToLower(e))
	}
	for _, g := range cfg.Pages.IgnoreNames {
		f.ignore = append(f.ignore, compileName(g))
	}
	for _, g := range cfg.Pages.Exclude {
		f.exclude = append(f.exclude, config.NormalizeGlob(g))
	}
	for _, g := range cfg.Pages.ErrorPages {
		f.errors = append(f.errors, config.NormalizeGlob(g))
	}
	if cfg.Stylesheet == "builtin" {
		f.extra = config.StylesheetFile
	}
	return f
}

// IsOutput reports whether a base name is one of sitemapd's sitemaps,
// indexes or text sitemaps (some part of one, gzipped or not).
func (f *Filter) IsOutput(name string) bool {
	for _, o := range f.outputs {
		if config.IsPartName(name, o) {
			return true
		}
	}
	return false
}

// Ignored reports whether a base name is never listed nor descended into:
// dotfiles and dot-directories, editor/backup/partial files and sitemapd's
// own outputs and temp files.
func (f *Filter) Ignored(name string) bool {
	if name == "" || name[0] == '.' {
		return true
	}
	for i := range f.ignore {
		if f.ignore[i].match(name) {
			return true
		}
	}
	_, isKey := f.keyFiles[name]
	return f.IsOutput(name) || isKey || name == config.RobotsFile || (f.extra != "" && name == f.extra)
}

// IsPage reports whether a file name has a page extension (any case).
func (f *Filter) IsPage(name string) bool {
	for _, e := range f.exts {
		if len(name) > len(e) && strings.EqualFold(name[len(name)-len(e):], e) {
			return true
		}
	}
	return false
}

// Excluded reports whether a site path ("/drafts/a.html", or "/drafts" for
// a directory) matches an exclude glob.
func (f *Filter) Excluded(p string) bool { return matchAny(f.exclude, p) }

// ErrorPage reports whether a page's site path matches an error_pages
// glob.
func (f *Filter) ErrorPage(p string) bool { return matchAny(f.errors, p) }

func matchAny(globs []string, p string) bool {
	for _, g := range globs {
		if ok, _ := doublestar.Match(g, p); ok {
			return true
		}
	}
	return false
}
