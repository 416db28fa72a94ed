package changeset

import (
	"slices"
	"time"

	"github.com/sitemapd/sitemapd/internal/sitemap"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// Changes are the page URLs a publish added, changed (another <lastmod>)
// and removed: what search engines are told. Changes that nobody is to be
// told of may be only counted (Counted).
type Changes struct {
	Added, Changed, Removed []string
	// Dated is how many of Added and Changed have for lastmod the date
	// their page's head states (tree.Page.Dated): the status page's "page
	// date" source; the others' come from content or mtime.
	Dated   int
	counted Counts // changes beyond the URLs, whose URLs were dropped
}

// Counts are how many page URLs were added, changed and removed, and of
// those added and changed, how many are Dated.
type Counts struct{ Added, Changed, Removed, Dated int }

// Counts counts the changes, whether their URLs are kept or not.
func (c *Changes) Counts() Counts {
	return Counts{
		Added:   c.counted.Added + len(c.Added),
		Changed: c.counted.Changed + len(c.Changed),
		Removed: c.counted.Removed + len(c.Removed),
		Dated:   c.counted.Dated + c.Dated,
	}
}

// Counted returns the changes counted, without their URLs: a daemon's
// first build lists every page of the site as added, 85 MB of URLs at a
// million files, which nobody is told of when no search engine is to be.
func (c Changes) Counted() Changes { return Changes{counted: c.Counts()} }

// Empty reports whether nothing changed.
func (c *Changes) Empty() bool { return c.Counts() == Counts{} }

// Merge appends o's changes to c's.
func (c *Changes) Merge(o Changes) {
	c.Added = append(c.Added, o.Added...)
	c.Changed = append(c.Changed, o.Changed...)
	c.Removed = append(c.Removed, o.Removed...)
	c.Dated += o.Dated
	c.counted.Dated += o.counted.Dated
	c.counted.Added += o.counted.Added
	c.counted.Changed += o.counted.Changed
	c.counted.Removed += o.counted.Removed
}

// Compare compares a group's directories before and after: the pages
// added, removed, and changed (another lastmod as of now). Directories
// whose listing is the same are skipped, and URLs are computed (by loc)
// for the pages that differ only, so a change costs in proportion to the
// directories it touched.
func Compare(old, cur map[string]*tree.Listing, now time.Time, loc func(dir, name string) string) Changes {
	var c Changes
	tree.Pair(old, cur, func(dir, name string, was, is tree.Entry) {
		switch {
		case is.Listed && !was.Listed:
			c.Added = append(c.Added, loc(dir, name))
		case was.Listed && !is.Listed:
			c.Removed = append(c.Removed, loc(dir, name))
			return
		case !tree.LastMod(was.Time, now).Equal(tree.LastMod(is.Time, now)):
			c.Changed = append(c.Changed, loc(dir, name))
		default:
			return
		}
		if is.Dated {
			c.Dated++
		}
	})
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
