package scan

import (
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/outname"
)

// nameMatcher matches base names against a glob. The walk tests every
// name in the tree against every ignore glob, so the common shapes ("*.bak",
// "~$*", "#*#", "4913") are compiled to plain string tests and only the
// rest go through doublestar.
type nameMatcher struct {
	prefix, suffix string
	exact          bool      // prefix is the whole name
	glob           string    // non-empty: fall back to doublestar
	classes        []byteSet // non-nil: the name's bytes, one each
}

func compileName(g string) nameMatcher {
	i := strings.IndexAny(g, `*?[{\`)
	switch {
	case i < 0:
		return nameMatcher{prefix: g, exact: true}
	case g[i] == '*' && !strings.ContainsAny(g[i+1:], `*?[{\`):
		return nameMatcher{prefix: g[:i], suffix: g[i+1:]}
	}
	// "[45][0-9][0-9].html", in the default error_pages: literal bytes and
	// ASCII classes, one byte each, tested without doublestar.
	if set, ok := compileClasses(g); ok {
		return nameMatcher{classes: set}
	}
	return nameMatcher{glob: g}
}

// byteSet is a set of bytes.
type byteSet [4]uint64

func (b *byteSet) add(c byte)      { b[c>>6] |= 1 << (c & 63) }
func (b *byteSet) has(c byte) bool { return b[c>>6]&(1<<(c&63)) != 0 }
func (b *byteSet) addRange(lo, hi byte) {
	for c := lo; c <= hi && c < 0x80; c++ {
		b.add(c)
	}
}

// compileClasses compiles an ASCII glob of literal bytes and classes
// ("[45]", "[0-9]") into one set per byte of the names it
// matches; ok is false for any other glob.
func compileClasses(g string) (set []byteSet, ok bool) {
	for i := 0; i < len(g); i++ {
		var b byteSet
		switch c := g[i]; {
		case c >= 0x80 || strings.IndexByte("*?{}]\\", c) >= 0:
			return nil, false
		case c != '[':
			b.add(c)
		default:
			end := strings.IndexByte(g[i+1:], ']')
			if end <= 0 {
				return nil, false
			}
			// A negated class matches any rune, of any length, but
			// those: doublestar's to test.
			class := g[i+1 : i+1+end]
			if strings.ContainsAny(class, "[\\!^") {
				return nil, false
			}
			for j := 0; j < len(class); j++ {
				switch {
				case class[j] >= 0x80:
					return nil, false
				case j+2 < len(class) && class[j+1] == '-':
					if class[j+2] >= 0x80 {
						return nil, false
					}
					b.addRange(class[j], class[j+2])
					j += 2
				default:
					b.add(class[j])
				}
			}
			i += end + 1
		}
		set = append(set, b)
	}
	return set, true
}

func (m *nameMatcher) match(name string) bool {
	switch {
	case m.classes != nil:
		if len(name) != len(m.classes) {
			return false
		}
		for i := range len(name) {
			if !m.classes[i].has(name[i]) {
				return false
			}
		}
		return true
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
	exts    []string // lower case, with the dot
	ignore  []nameMatcher
	exclude globSet       // over "/rel/path"
	errors  globSet       // the same, of error pages
	names   *outname.Site // sitemapd's own outputs, never listed
}

// NewFilter returns the filter of a validated configuration.
func NewFilter(cfg *config.Config) *Filter {
	f := &Filter{names: cfg.OutputNames()}
	for _, e := range cfg.Pages.Extensions {
		f.exts = append(f.exts, strings.ToLower(e))
	}
	for _, g := range cfg.Pages.IgnoreNames {
		f.ignore = append(f.ignore, compileName(g))
	}
	f.exclude = compilePaths(cfg.Pages.Exclude)
	f.errors = compilePaths(cfg.Pages.ErrorPages)
	return f
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
	return f.names.Kind(name) != outname.Foreign
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
func (f *Filter) Excluded(p string) bool { return f.exclude.match(p) }

// ErrorPage reports whether a page's site path matches an error_pages
// glob.
func (f *Filter) ErrorPage(p string) bool { return f.errors.match(p) }

// globSet matches site paths against user globs (config.NormalizeGlob).
// Every page is tested against every glob of error_pages, on by default,
// so a glob whose last segment is a plain name pattern ("404.html",
// "*.pdf") first tests the path's last segment with a nameMatcher, and
// only a path that passes goes through doublestar (which cost a full
// build a fifth of its time, matching six globs against every page).
type globSet []pathGlob

type pathGlob struct {
	glob string
	last *nameMatcher // nil: no test of the last segment alone
}

func compilePaths(globs []string) globSet {
	var set globSet
	for _, g := range globs {
		pg := pathGlob{glob: config.NormalizeGlob(g)}
		// Braces may hide a "/", and "**" spans segments: such a last
		// segment cannot be tested alone.
		last := pg.glob[strings.LastIndexByte(pg.glob, '/')+1:]
		if !strings.ContainsAny(pg.glob, "{}") && !strings.Contains(last, "**") {
			m := compileName(last)
			pg.last = &m
		}
		set = append(set, pg)
	}
	return set
}

func (s globSet) match(p string) bool {
	base := p[strings.LastIndexByte(p, '/')+1:]
	for i := range s {
		if g := &s[i]; g.last == nil || g.last.match(base) {
			if ok, _ := doublestar.Match(g.glob, p); ok {
				return true
			}
		}
	}
	return false
}
