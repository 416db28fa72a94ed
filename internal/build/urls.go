package build

import (
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/sitemapd/sitemapd/internal/config"
)

// keep marks the bytes left as they are in a path segment: RFC 3986
// unreserved characters and the sub-delims, ':' and '@' that a segment may
// hold. '+' is escaped too, because some decoders still read it as a space.
// Everything else, including every byte >= 0x80 and every control
// character, is percent-encoded byte by byte, so a name that is not valid
// UTF-8 still maps to an ASCII URL that the web server decodes back to the
// same bytes (RELIABILITY.md §6).
var keep = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for _, c := range "-._~!$&'()*,;=:@" {
		t[c] = true
	}
	return t
}()

// appendSegment percent-encodes one path segment.
func appendSegment(dst []byte, seg string) []byte {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		if keep[c] {
			dst = append(dst, c)
		} else {
			dst = append(dst, '%', hex[c>>4], hex[c&15])
		}
	}
	return dst
}

// appendPath percent-encodes a slash-separated relative path.
func appendPath(dst []byte, rel string) []byte {
	for {
		seg, rest, more := strings.Cut(rel, "/")
		dst = appendSegment(dst, seg)
		if !more {
			return dst
		}
		dst = append(dst, '/')
		rel = rest
	}
}

// mapper turns page files into URLs.
type mapper struct {
	base       string         // normalised base URL, ends in "/"
	indexFiles map[string]int // name -> rank (lower wins)
	pretty     bool
}

func newMapper(cfg *config.Config) mapper {
	m := mapper{base: cfg.BaseURL, pretty: cfg.Pages.PrettyURLs, indexFiles: map[string]int{}}
	for i, n := range cfg.Pages.IndexFiles {
		if _, dup := m.indexFiles[n]; !dup {
			m.indexFiles[n] = i
		}
	}
	return m
}

// urlPath is the site-relative URL path of a page, unescaped, with a
// leading slash: "/blog/" for blog/index.html, "/a" for a.html with pretty
// URLs. relDir is the page's directory relative to the root ("" at the root).
func (m *mapper) urlPath(relDir, name string) string {
	var b strings.Builder
	b.Grow(len(relDir) + len(name) + 2)
	b.WriteByte('/')
	if relDir != "" {
		b.WriteString(relDir)
		b.WriteByte('/')
	}
	if _, ok := m.indexFiles[name]; ok {
		return b.String()
	}
	if m.pretty && strings.HasSuffix(name, ".html") && len(name) > len(".html") {
		name = name[:len(name)-len(".html")]
	}
	b.WriteString(name)
	return b.String()
}

// loc is the absolute, percent-encoded URL of a site-relative path as
// returned by urlPath (or of an output file, "/dir/sitemap.xml").
func (m *mapper) loc(urlPath string) string {
	buf := make([]byte, 0, len(m.base)+len(urlPath)+16)
	buf = append(buf, m.base...)
	buf = appendPath(buf, strings.TrimPrefix(urlPath, "/"))
	return string(buf)
}

// rule is a compiled config.Rule.
type rule struct {
	glob       string
	changefreq string
	priority   string
}

func compileRules(rs []config.Rule) []rule {
	out := make([]rule, len(rs))
	for i, r := range rs {
		out[i] = rule{glob: config.NormalizeGlob(r.Match), changefreq: r.ChangeFreq}
		if r.Priority != nil {
			out[i].priority = formatPriority(*r.Priority)
		}
	}
	return out
}

// formatPriority writes 1 as "1.0" and 0.85 as "0.85".
func formatPriority(p float64) string {
	s := strconv.FormatFloat(p, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// match returns the first rule matching urlPath, or nil.
func matchRule(rules []rule, urlPath string) *rule {
	for i := range rules {
		if ok, _ := doublestar.Match(rules[i].glob, urlPath); ok {
			return &rules[i]
		}
	}
	return nil
}
