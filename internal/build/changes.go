package build

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"slices"
	"strings"

	"github.com/sitemapd/sitemapd/internal/sitemap"
)

// Changes are the page URLs a publish added, changed (new lastmod) and
// removed: what search engines are told.
type Changes struct {
	Added, Changed, Removed []string
}

// Empty reports whether nothing changed.
func (c *Changes) Empty() bool {
	return len(c.Added)+len(c.Changed)+len(c.Removed) == 0
}

func (c *Changes) merge(o Changes) {
	c.Added = append(c.Added, o.Added...)
	c.Changed = append(c.Changed, o.Changed...)
	c.Removed = append(c.Removed, o.Removed...)
}

// published reads back the URLs (loc -> lastmod text) of sitemap files we
// wrote. It relies on the encoder's layout, one <url> per line, which is
// ours to keep; a file it cannot read counts as empty, so its URLs show as
// added, which errs towards telling engines too much rather than too little.
func (e *Engine) published(names []string) map[string]string {
	urls := map[string]string{}
	for _, n := range names {
		f, err := e.pub.Open(n)
		if err != nil {
			continue
		}
		var r io.Reader = f
		if strings.HasSuffix(n, ".gz") {
			zr, err := gzip.NewReader(f)
			if err != nil {
				f.Close()
				continue
			}
			r = zr
		}
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Bytes()
			loc, ok := between(line, "<loc>", "</loc>")
			if !ok {
				continue
			}
			lastmod, _ := between(line, "<lastmod>", "</lastmod>")
			urls[unescapeXML(loc)] = string(lastmod)
		}
		f.Close()
	}
	return urls
}

func between(b []byte, open, close string) ([]byte, bool) {
	i := bytes.Index(b, []byte(open))
	if i < 0 {
		return nil, false
	}
	b = b[i+len(open):]
	j := bytes.Index(b, []byte(close))
	if j < 0 {
		return nil, false
	}
	return b[:j], true
}

var xmlUnescaper = strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">", "&apos;", "'", "&quot;", "\"")

func unescapeXML(b []byte) string { return xmlUnescaper.Replace(string(b)) }

// page is what the daemon remembers of a listed URL, to tell what changed
// even when the old sitemap file is gone with its directory.
type page struct {
	loc     string
	lastmod string // as written in <lastmod>, "" for none
}

func pagesOf(urls []sitemap.URL) []page {
	out := make([]page, len(urls))
	var buf []byte
	for i := range urls {
		buf = buf[:0]
		if !urls[i].LastMod.IsZero() {
			buf = sitemap.AppendTime(buf, urls[i].LastMod)
		}
		out[i] = page{loc: urls[i].Loc, lastmod: string(buf)}
	}
	return out
}

func pagesFromMap(m map[string]string) []page {
	out := make([]page, 0, len(m))
	for loc, lm := range m {
		out = append(out, page{loc, lm})
	}
	slices.SortFunc(out, func(a, b page) int { return strings.Compare(a.loc, b.loc) })
	return out
}

// diff compares two lists of pages sorted by loc.
func diff(old, cur []page) Changes {
	var c Changes
	i, j := 0, 0
	for i < len(old) || j < len(cur) {
		switch {
		case j == len(cur) || (i < len(old) && old[i].loc < cur[j].loc):
			c.Removed = append(c.Removed, old[i].loc)
			i++
		case i == len(old) || cur[j].loc < old[i].loc:
			c.Added = append(c.Added, cur[j].loc)
			j++
		default:
			if old[i].lastmod != cur[j].lastmod {
				c.Changed = append(c.Changed, cur[j].loc)
			}
			i++
			j++
		}
	}
	return c
}
