package tree

import (
	"slices"
	"time"

	"github.com/sitemapd/sitemapd/internal/sitemap"
)

// Changes are the page URLs a publish added, changed (another <lastmod>)
// and removed: what search engines are told.
type Changes struct {
	Added, Changed, Removed []string
}

// Empty reports whether nothing changed.
func (c *Changes) Empty() bool {
	return len(c.Added)+len(c.Changed)+len(c.Removed) == 0
}

// Merge appends o's changes to c's.
func (c *Changes) Merge(o Changes) {
	c.Added = append(c.Added, o.Added...)
	c.Changed = append(c.Changed, o.Changed...)
	c.Removed = append(c.Removed, o.Removed...)
}

// Compare compares a group's directories before and after: the pages
// added, removed, and changed (another lastmod as of now). Directories
// whose listing is the same are skipped, and URLs are computed (by loc)
// for the pages that differ only, so a change costs in proportion to the
// directories it touched.
func Compare(old, cur map[string]*Listing, now time.Time, loc func(dir, name string) string) Changes {
	var c Changes
	Pair(old, cur, func(dir, name string, was, is Entry) {
		switch {
		case is.Listed && !was.Listed:
			c.Added = append(c.Added, loc(dir, name))
		case was.Listed && !is.Listed:
			c.Removed = append(c.Removed, loc(dir, name))
		case !LastMod(was.Time, now).Equal(LastMod(is.Time, now)):
			c.Changed = append(c.Changed, loc(dir, name))
		}
	})
	slices.Sort(c.Added)
	slices.Sort(c.Changed)
	slices.Sort(c.Removed)
	return c
}

// Entry is what a listing says of a page it lists: Listed is false for a
// page it does not have, or hides (then Time and Head are zero).
type Entry struct {
	Listed bool
	Time   int64
	Head   Head
}

// Pair calls f for every page listed before or after in the directories
// whose listing old and cur differ (a listing replaced, added or gone),
// with its entry on each side; never for a page listed on neither. A
// directory with the same names in the same order (an edit) is paired
// index by index, others by name: a map of a directory of 30,000 pages
// costs a change more than the rest of its directory's work.
func Pair(old, cur map[string]*Listing, f func(dir, name string, was, is Entry)) {
	for d, ol := range old {
		cl := cur[d]
		switch {
		case cl == ol:
		case cl != nil && cl.SameNames(ol):
			ol.All(func(i int, name string) {
				if was, is := ol.entry(i), cl.entry(i); was.Listed || is.Listed {
					f(d, name, was, is)
				}
			})
		default:
			before := map[string]Entry{}
			ol.Each(func(i int, name string, _ int64) { before[name] = ol.entry(i) })
			if cl != nil {
				cl.Each(func(i int, name string, _ int64) {
					f(d, name, before[name], cl.entry(i))
					delete(before, name)
				})
			}
			for name, was := range before {
				f(d, name, was, Entry{})
			}
		}
	}
	for d, cl := range cur {
		if _, ok := old[d]; !ok {
			cl.Each(func(i int, name string, _ int64) { f(d, name, Entry{}, cl.entry(i)) })
		}
	}
}

// Diff compares what sitemap files listed (loc -> lastmod as written, as
// sitemap.ReadURLs returns it) with the URLs that replace them, sorted by
// Loc: it tells what changed where nothing is remembered (after a
// restart, or for a group that follows symlinks).
func Diff(published map[string]string, cur []sitemap.URL) Changes {
	old := make([]string, 0, len(published))
	for loc := range published {
		old = append(old, loc)
	}
	slices.Sort(old)
	var c Changes
	var buf []byte
	i, j := 0, 0
	for i < len(old) || j < len(cur) {
		switch {
		case j == len(cur) || (i < len(old) && old[i] < cur[j].Loc):
			c.Removed = append(c.Removed, old[i])
			i++
		case i == len(old) || cur[j].Loc < old[i]:
			c.Added = append(c.Added, cur[j].Loc)
			j++
		default:
			buf = buf[:0]
			if !cur[j].LastMod.IsZero() {
				buf = sitemap.AppendTime(buf, cur[j].LastMod)
			}
			if published[old[i]] != string(buf) {
				c.Changed = append(c.Changed, cur[j].Loc)
			}
			i++
			j++
		}
	}
	return c
}
