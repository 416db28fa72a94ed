package siteurl

import (
	"net/url"
	"slices"
	"strings"

	"github.com/sitemapd/sitemapd/internal/config"
)

// keep marks the bytes left as they are in a path segment (see the package
// doc).
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
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		if keep[c] {
			dst = append(dst, c)
		} else {
			dst = append(dst, '%', hexDigits[c>>4], hexDigits[c&15])
		}
	}
	return dst
}

const hexDigits = "0123456789ABCDEF"

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

// Locator maps paths below the document root (or the output root, which
// mirrors it) to URLs. It is immutable and safe for concurrent use.
type Locator struct {
	base string // normalised base URL, ends in "/"
	// indexFiles are pages.index_files, each once, in order (the rank:
	// lower wins). A few names: comparing with each, most of which differ
	// in length, costs a page less than hashing its name for a map, and
	// every page's URL and every file of a walk asks.
	indexFiles []string
	pretty     bool
}

// New returns the Locator of a validated configuration.
func New(cfg *config.Config) *Locator {
	l := &Locator{base: cfg.BaseURL, pretty: cfg.Pages.PrettyURLs}
	for _, n := range cfg.Pages.IndexFiles {
		if !slices.Contains(l.indexFiles, n) {
			l.indexFiles = append(l.indexFiles, n)
		}
	}
	return l
}

// IndexRank reports whether a base name is one of pages.index_files, and
// its rank there: when a directory holds two, the lower rank is served.
func (l *Locator) IndexRank(name string) (rank int, ok bool) {
	for i, n := range l.indexFiles {
		if n == name {
			return i, true
		}
	}
	return 0, false
}

// PagePath is the site path of a page, unescaped, with a leading slash:
// "/blog/" for blog/index.html, "/a" for a.html with pretty URLs. relDir is
// the page's directory relative to the root ("" at the root). Excludes and
// rules match against it.
func (l *Locator) PagePath(relDir, name string) string {
	var b strings.Builder
	b.Grow(len(relDir) + len(name) + 2)
	b.WriteByte('/')
	if relDir != "" {
		b.WriteString(relDir)
		b.WriteByte('/')
	}
	b.WriteString(l.pageName(name))
	return b.String()
}

// pageName is what a page's base name becomes at the end of its site
// path: nothing for an index file, the name less ".html" with pretty URLs,
// else the name.
func (l *Locator) pageName(name string) string {
	if _, ok := l.IndexRank(name); ok {
		return ""
	}
	if l.pretty && strings.HasSuffix(name, ".html") && len(name) > len(".html") {
		return name[:len(name)-len(".html")]
	}
	return name
}

// AppendName appends what follows the URL of a page's directory (the Loc
// of its site path PagePath(dir, "")) in the page's URL: its escaped
// pageName. It lets a caller that holds the directory's URL tell where a
// page's URL sorts without making it.
func (l *Locator) AppendName(dst []byte, name string) []byte {
	return appendSegment(dst, l.pageName(name))
}

// CompareName compares what AppendName appends for name with s, as
// strings compare (-1, 0 or +1), without making it: where a page's URL
// sorts against another is mostly told by their first bytes, and a change
// in a directory of 30,000 pages asks it of each.
func (l *Locator) CompareName(name, s string) int {
	seg := l.pageName(name)
	j := 0
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		esc := [3]byte{c}
		n := 1
		if !keep[c] {
			esc, n = [3]byte{'%', hexDigits[c>>4], hexDigits[c&15]}, 3
		}
		for _, b := range esc[:n] {
			switch {
			case j == len(s):
				return 1
			case b != s[j]:
				if b < s[j] {
					return -1
				}
				return 1
			}
			j++
		}
	}
	if j < len(s) {
		return -1
	}
	return 0
}

// Loc is the absolute, percent-encoded URL of a site path as PagePath
// returns it.
func (l *Locator) Loc(sitePath string) string {
	return string(l.AppendLoc(make([]byte, 0, len(l.base)+len(sitePath)+16), sitePath))
}

// AppendLoc appends Loc(sitePath) to dst: a caller that needs a URL's
// bytes only (its length, how it sorts) makes no string of it.
func (l *Locator) AppendLoc(dst []byte, sitePath string) []byte {
	dst = append(dst, l.base...)
	return appendPath(dst, strings.TrimPrefix(sitePath, "/"))
}

// File is the URL a file is served at, given its slash-separated path
// relative to the root: no index-file or pretty-URL folding, as for
// sitemapd's own outputs ("blog/sitemap.xml"), or a page's URL as a file.
func (l *Locator) File(rel string) string { return l.Loc("/" + rel) }

// SitePath is the inverse of Loc for URLs below the base: the site path,
// still percent-encoded, with a leading slash. ok is false for a URL that
// is not below the base.
func (l *Locator) SitePath(loc string) (path string, ok bool) {
	rest, ok := strings.CutPrefix(loc, l.base)
	if !ok {
		return "", false
	}
	return "/" + rest, true
}

// Absolute is an absolute URL found in a page (an image's), as a sitemap
// lists it: scheme and host in lower case, without the scheme's default
// port, userinfo or fragment,
// its path and query percent-encoded by the rule of the package's own
// URLs. In the path, a byte that rule leaves as it is stays, and so does
// '/'; an escape of such a byte becomes the byte (the site's URL for a
// file writes it so, and web servers decode it the same). In the query,
// '/', '?' and '+' stay too ('+' means a space to most decoders there, so
// it is not %2B), and only escapes of RFC 3986's unreserved characters
// become the characters (the same URL, by its normalisation): '&' and '='
// mean something there that %26 and %3D do not. Any other escape stays,
// in upper case; any other byte, a '%' that starts no escape included,
// becomes %XX. So a URL written with spaces, non-ASCII characters or
// stray '%'s maps to the ASCII URL a browser requests, and a file of the
// site named in it as its name is written maps to the URL the site gives
// it (File).
func Absolute(u *url.URL) string {
	b := make([]byte, 0, len(u.Scheme)+len(u.Host)+len(u.Path)+len(u.RawQuery)+16)
	scheme, host := strings.ToLower(u.Scheme), HostKey(u.Scheme, u.Host)
	b = append(b, scheme...)
	b = append(b, "://"...)
	b = appendEncoded(b, host, &hostKeep, &unreservedOnly)
	b = appendEncoded(b, u.EscapedPath(), &pathKeep, &keep)
	if u.ForceQuery || u.RawQuery != "" {
		b = append(b, '?')
		b = appendEncoded(b, u.RawQuery, &queryKeep, &unreservedOnly)
	}
	return string(b)
}

// HostKey is a URL's host (host[:port]) as a browser's parser leaves it:
// in lower case, without its scheme's default port (80 for http, 443 for
// https), so that two spellings of one host compare equal.
func HostKey(scheme, host string) string {
	host = strings.ToLower(host)
	switch strings.ToLower(scheme) {
	case "http":
		return strings.TrimSuffix(host, ":80")
	case "https":
		return strings.TrimSuffix(host, ":443")
	}
	return host
}

// The bytes Absolute leaves as they are in each part, and those that
// RFC 3986 calls unreserved.
var hostKeep, pathKeep, queryKeep, unreservedOnly = func() (h, p, q, u [256]bool) {
	for _, c := range []byte("-._~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		u[c] = true
	}
	h, p, q = keep, keep, keep
	h['['], h[']'] = true, true // an IPv6 literal
	p['/'] = true
	q['/'], q['?'], q['+'] = true, true, true
	return
}()

// appendEncoded percent-encodes s, leaving the bytes ok says as they are,
// and escapes in place, in upper case, or decoded where decode says.
func appendEncoded(dst []byte, s string, ok, decode *[256]bool) []byte {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			if decode[v] {
				dst = append(dst, v)
			} else {
				dst = append(dst, '%', hex[v>>4], hex[v&15])
			}
			i += 2
		case ok[c] && c != '%':
			dst = append(dst, c)
		default:
			dst = append(dst, '%', hex[c>>4], hex[c&15])
		}
	}
	return dst
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
