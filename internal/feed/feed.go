// Package feed encodes sitemapd's feed of changes: an Atom 1.0 document
// (RFC 4287) listing a site's most recently changed pages, newest first.
//
// A feed is a pure function of its entries and its site: the same pages
// with the same times give the same bytes, whatever order they came in, so
// a file rewritten only when its bytes change keeps its mtime while no page
// changes. Entries are ordered by Compare (newest first, then by URL) and
// carry their page's lastmod in whole seconds, exactly as the sitemaps
// show it. The document carries sitemap.Marker, by which sitemapd owns the
// file like its sitemaps.
//
// The package selects (Top, Selector, Merge) and encodes; it does not decide which
// pages are listed, nor where the file goes.
package feed

import (
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/sitemapd/sitemapd/internal/sitemap"
)

// Namespace is the Atom 1.0 XML namespace.
const Namespace = "http://www.w3.org/2005/Atom"

// ContentType is the media type of an Atom feed (RFC 4287, section 7), as
// the self link announces it.
const ContentType = "application/atom+xml"

// Entry is one page of the feed: its URL (absolute, percent-encoded, as
// the sitemap lists it) and when it last changed.
type Entry struct {
	URL     string
	Updated time.Time
}

// NewEntry returns the entry of a page listed at loc with lastmod t, its
// time cut to whole seconds in UTC as sitemaps show it. A page without a
// lastmod (t zero) has no entry: ok is false.
func NewEntry(loc string, t time.Time) (e Entry, ok bool) {
	if t.IsZero() {
		return Entry{}, false
	}
	return Entry{URL: loc, Updated: t.Truncate(time.Second).UTC()}, true
}

// Compare orders entries as the feed lists them: the latest change first,
// and entries changed in the same second by URL, so that the order is
// total and a reader can check it from what the feed shows.
func Compare(a, b Entry) int {
	if c := b.Updated.Compare(a.Updated); c != 0 {
		return c
	}
	return strings.Compare(a.URL, b.URL)
}

// Top returns the first n entries of es in feed order, in a new slice; es
// is not changed. Duplicate URLs are kept once, at their latest time.
func Top(es []Entry, n int) []Entry {
	out := slices.Clone(es)
	slices.SortFunc(out, Compare)
	seen := make(map[string]bool, len(out))
	out = slices.DeleteFunc(out, func(e Entry) bool {
		dup := seen[e.URL]
		seen[e.URL] = true
		return dup
	})
	if n = max(n, 0); len(out) > n {
		out = out[:n:n]
	}
	return out
}

// Site is what a feed says of the site it covers.
type Site struct {
	// BaseURL is the site's URL: the feed's id and its alternate link.
	BaseURL string
	// Self is the feed's own URL (its self link).
	Self string
}

// Encode returns the Atom document listing entries, which must be in feed
// order (Top). The feed's updated time is its newest entry's. Encode needs
// at least one entry: a feed must say when it was updated, and a feed of
// nothing has no such time (callers write no file then).
func Encode(site Site, entries []Entry) []byte {
	host := site.BaseURL
	if u, err := url.Parse(site.BaseURL); err == nil && u.Host != "" {
		host = u.Host
	}
	b := make([]byte, 0, 512+len(entries)*256)
	b = append(b, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+sitemap.Marker+"\n"...)
	b = append(b, `<feed xmlns="`+Namespace+`">`+"\n"...)
	b = append(element(b, "id", site.BaseURL), '\n')
	b = append(element(b, "title", "Recent changes: "+site.BaseURL), '\n')
	b = append(b, "<updated>"...)
	b = sitemap.AppendTime(b, entries[0].Updated)
	b = append(b, "</updated>\n"...)
	b = append(link(b, "self", site.Self, ContentType), '\n')
	b = append(link(b, "alternate", site.BaseURL, ""), '\n')
	// RFC 4287 wants an author on the feed unless every entry has one; the
	// site's host is the one author sitemapd knows.
	b = append(b, "<author>"...)
	b = element(b, "name", host)
	b = append(b, "</author>\n"...)
	b = append(b, `<generator>sitemapd</generator>`+"\n"...)
	for _, e := range entries {
		b = append(b, "<entry>"...)
		b = element(b, "id", e.URL)
		b = element(b, "title", Title(e.URL))
		b = append(b, "<updated>"...)
		b = sitemap.AppendTime(b, e.Updated)
		b = append(b, "</updated>"...)
		b = link(b, "alternate", e.URL, "")
		b = append(b, "</entry>\n"...)
	}
	return append(b, "</feed>\n"...)
}

// element appends <name>text</name>, text escaped.
func element(b []byte, name, text string) []byte {
	b = append(b, '<')
	b = append(b, name...)
	b = append(b, '>')
	b = sitemap.AppendEscaped(b, text)
	b = append(b, "</"...)
	b = append(b, name...)
	return append(b, '>')
}

func link(b []byte, rel, href, typ string) []byte {
	b = append(b, `<link rel="`...)
	b = append(b, rel...)
	b = append(b, `" href="`...)
	b = sitemap.AppendEscaped(b, href)
	if typ != "" {
		b = append(b, `" type="`...)
		b = append(b, typ...)
	}
	return append(b, `"/>`...)
}

// Title is an entry's title: its URL's path, percent-decoded where that
// gives readable text ("/blog/café.html"), left encoded where it would
// not (bytes that are not UTF-8, control characters). sitemapd reads no
// more of a page than its head's decisions, and a page's <title> is not
// among what it keeps, so the path is what names it.
func Title(loc string) string {
	u, err := url.Parse(loc)
	if err != nil {
		return loc
	}
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	dec, err := url.PathUnescape(p)
	if err != nil || !readable(dec) {
		return p
	}
	return dec
}

// readable reports whether s is valid UTF-8 without control characters or
// noncharacters, so it is safe and meaningful as XML text.
func readable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) || !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// Merge returns the first n entries, in feed order, of several lists each
// already in feed order (the per-group firsts the engine keeps). A list is
// read only while its entries may still be among the first n.
func Merge(lists [][]Entry, n int) []Entry {
	s := NewSelector(n)
	for _, l := range lists {
		for _, e := range l {
			if !s.Add(e) {
				break // the rest of this list comes later still
			}
		}
	}
	return s.Entries()
}

// Selector keeps the first n of the entries added to it, in feed order,
// holding at most 2n at a time; once it has n, an entry that comes after
// the n-th costs one comparison. A group of 100,000 pages gives its first
// 100 without sorting all of them.
type Selector struct {
	n    int
	es   []Entry
	full bool  // es holds n distinct entries (after a compaction), cut the last
	cut  Entry // the n-th entry when full
}

// NewSelector returns a Selector of the first n entries.
func NewSelector(n int) *Selector { return &Selector{n: n} }

// Add offers one entry, and reports whether it was kept for now; false
// means it comes after n entries already held, as does any entry after it
// in feed order.
func (s *Selector) Add(e Entry) bool {
	if s.n <= 0 || s.full && Compare(e, s.cut) >= 0 {
		return false
	}
	s.es = append(s.es, e)
	if len(s.es) >= 2*s.n {
		s.compact()
	}
	return true
}

// compact keeps the first n distinct entries held.
func (s *Selector) compact() {
	s.es = Top(s.es, s.n)
	if s.full = len(s.es) == s.n; s.full {
		s.cut = s.es[s.n-1]
	}
}

// Entries returns the first n entries added, in feed order.
func (s *Selector) Entries() []Entry {
	s.compact()
	return slices.Clone(s.es)
}
