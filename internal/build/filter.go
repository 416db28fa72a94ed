package build

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

// filter decides what the walk lists.
type filter struct {
	exts     []string // lower case, with the dot
	ignore   []nameMatcher
	exclude  []string          // normalised globs over "/rel/path"
	outputs  []string          // output names whose parts are ours (sitemap, index, text)
	keyFiles map[string]string // IndexNow key file names -> their keys
	extra    string            // the built-in stylesheet's name, if written
}

func newFilter(cfg *config.Config) *filter {
	// Text sitemaps count as outputs even when they are off, so that the
	// ones written before are found and removed (if the record says they
	// are ours).
	f := &filter{outputs: []string{cfg.SitemapName, cfg.IndexName, cfg.TextName()}, keyFiles: map[string]string{}}
	for _, e := range cfg.Pages.Extensions {
		f.exts = append(f.exts, strings.ToLower(e))
	}
	for _, g := range cfg.Pages.IgnoreNames {
		f.ignore = append(f.ignore, compileName(g))
	}
	for _, g := range cfg.Pages.Exclude {
		f.exclude = append(f.exclude, config.NormalizeGlob(g))
	}
	if cfg.Stylesheet == "builtin" {
		f.extra = StylesheetName
	}
	for _, ep := range cfg.Notify.Endpoints {
		if ep.Kind == "indexnow" {
			f.keyFiles[ep.Key+".txt"] = ep.Key
		}
	}
	return f
}

// isOutput reports whether a base name is one of sitemapd's own outputs.
func (f *filter) isOutput(name string) bool {
	for _, o := range f.outputs {
		if config.IsPartName(name, o) {
			return true
		}
	}
	return false
}

// ignored reports whether a base name is never listed nor descended into:
// dotfiles and dot-directories, editor/backup/partial files and sitemapd's
// own outputs and temp files.
func (f *filter) ignored(name string) bool {
	if name == "" || name[0] == '.' {
		return true
	}
	for i := range f.ignore {
		if f.ignore[i].match(name) {
			return true
		}
	}
	_, isKey := f.keyFiles[name]
	return f.isOutput(name) || isKey || name == "robots.txt" || (f.extra != "" && name == f.extra)
}

// isPage reports whether a file name has a page extension (any case).
func (f *filter) isPage(name string) bool {
	for _, e := range f.exts {
		if len(name) > len(e) && strings.EqualFold(name[len(name)-len(e):], e) {
			return true
		}
	}
	return false
}

// excluded reports whether a site path ("/drafts/a.html", or "/drafts" for
// a directory) matches an exclude glob.
func (f *filter) excluded(p string) bool {
	for _, g := range f.exclude {
		if ok, _ := doublestar.Match(g, p); ok {
			return true
		}
	}
	return false
}
