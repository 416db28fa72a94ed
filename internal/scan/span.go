package scan

import (
	"strings"
	"time"

	"github.com/sitemapd/sitemapd/internal/sitemap"
	"github.com/sitemapd/sitemapd/internal/siteurl"
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
		// told by the first bytes of their escaped names.
		after, through := boundFor(prefix, sp.After), boundFor(prefix, sp.Through)
		l.Each(func(i int, name string, t int64) {
			if !sp.FromStart && after.cmp(s.loc, name) <= 0 || !sp.ToEnd && through.cmp(s.loc, name) > 0 {
				return
			}
			buf = s.loc.AppendName(append(buf[:0], prefix...), name)
			var up string // the site path, for the changefreq and priority rules only
			if len(s.rules) > 0 {
				up = s.loc.PagePath(d, name)
			}
			out = append(out, withHead(s.urlAt(up, string(buf), t, now), l.Head(i)))
		})
	}
	return out
}

// nameBound is a bound of a span as the Locs of one directory's pages
// (its prefix, then each page's escaped name) meet it: if the bound does
// not begin with the prefix, every such Loc compares with it as the
// prefix does (fixed); otherwise as the page's escaped name compares with
// the rest of the bound.
type nameBound struct {
	fixed int
	rest  string
}

func boundFor(prefix, bound string) nameBound {
	if rest, ok := strings.CutPrefix(bound, prefix); ok {
		return nameBound{rest: rest}
	}
	return nameBound{fixed: strings.Compare(prefix, bound)}
}

// cmp compares the Loc of the page named name with the bound.
func (b nameBound) cmp(loc *siteurl.Locator, name string) int {
	if b.fixed != 0 {
		return b.fixed
	}
	return loc.CompareName(name, b.rest)
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
