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
	for d, ol := range old {
		cl := cur[d]
		if cl == ol {
			continue
		}
		if cl != nil && cl.SameNames(ol) {
			// An edit: the same pages in the same order, compared index by
			// index (a map of a directory of 30,000 pages costs a change
			// more than the rest of its directory's work).
			ol.All(func(i int, name string) {
				was, is := ol.listed(i), cl.listed(i)
				switch {
				case is && !was:
					c.Added = append(c.Added, loc(d, name))
				case was && !is:
					c.Removed = append(c.Removed, loc(d, name))
				case was && !LastMod(ol.times[i], now).Equal(LastMod(cl.times[i], now)):
					c.Changed = append(c.Changed, loc(d, name))
				}
			})
			continue
		}
		before := map[string]int64{}
		ol.Each(func(_ int, name string, mt int64) { before[name] = mt })
		if cl != nil {
			cl.Each(func(_ int, name string, mt int64) {
				prev, ok := before[name]
				switch {
				case !ok:
					c.Added = append(c.Added, loc(d, name))
				case !LastMod(prev, now).Equal(LastMod(mt, now)):
					c.Changed = append(c.Changed, loc(d, name))
				}
				delete(before, name)
			})
		}
		for name := range before {
			c.Removed = append(c.Removed, loc(d, name))
		}
	}
	for d, cl := range cur {
		if _, ok := old[d]; !ok {
			cl.Each(func(_ int, name string, _ int64) { c.Added = append(c.Added, loc(d, name)) })
		}
	}
	slices.Sort(c.Added)
	slices.Sort(c.Changed)
	slices.Sort(c.Removed)
	return c
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
