package scan

import (
	"time"

	"github.com/sitemapd/sitemapd/internal/sitemap"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// Span is a range of URLs in the order sitemaps sort them (by Loc, as
// strings compare): those after After, up to and including Through.
// FromStart and ToEnd lift a bound.
type Span struct {
	After, Through   string
	FromStart, ToEnd bool
}

// Holds reports whether loc is in the span.
func (sp Span) Holds(loc string) bool {
	return (sp.FromStart || loc > sp.After) && (sp.ToEnd || loc <= sp.Through)
}

// holdsBytes is Holds for a Loc in bytes, without making it a string.
func (sp Span) holdsBytes(loc []byte) bool {
	return (sp.FromStart || string(loc) > sp.After) && (sp.ToEnd || string(loc) <= sp.Through)
}

// mayHold reports whether a directory whose pages' Locs all begin with
// prefix may have one in the span. A page's Loc is its directory's (the
// prefix, which an index file's Loc is) followed by its escaped name, in
// which no byte is 0xff (UTF-8 has none).
func (sp Span) mayHold(prefix string) bool {
	return (sp.ToEnd || prefix <= sp.Through) && (sp.FromStart || sp.After < prefix+"\xff")
}

// URLsIn is URLs for the pages of dirs whose Locs are in the span only,
// unsorted: a change that re-encodes one sitemap part computes the URLs
// of that part, not of its group. A directory none of whose pages can be
// in the span is skipped whole, by the prefix all their Locs share.
func (s *Scanner) URLsIn(dirs map[string]*tree.Listing, sp Span, now time.Time) []sitemap.URL {
	var out []sitemap.URL
	var buf []byte
	for d, l := range dirs {
		prefix := s.loc.Loc(s.loc.PagePath(d, ""))
		if !sp.mayHold(prefix) {
			continue
		}
		// A page's URL is made only if it is in the span: the others are
		// told by its bytes, in a buffer used again.
		l.Each(func(i int, name string, t int64) {
			buf = s.loc.AppendName(append(buf[:0], prefix...), name)
			if !sp.holdsBytes(buf) {
				return
			}
			out = append(out, withHead(s.urlAt(s.loc.PagePath(d, name), string(buf), t, now), l.Head(i)))
		})
	}
	return out
}

// Due is when the first page of dirs still to come is due (Group.Due), as
// AppendURLs computes it, without computing URLs.
func (s *Scanner) Due(dirs map[string]*tree.Listing, now time.Time) (due int64) {
	for _, l := range dirs {
		if !toCome(l.Latest(), now) {
			continue // a change costs the directories with a page to come only
		}
		l.Each(func(_ int, _ string, t int64) {
			if toCome(t, now) && (due == 0 || t < due) {
				due = t
			}
		})
	}
	return due
}

// toCome reports whether a page of time t has no lastmod yet, its time
// being still to come.
func toCome(t int64, now time.Time) bool { return tree.LastMod(t, now).IsZero() }
