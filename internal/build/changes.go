package build

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
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

// diff compares the URLs a group published before with its new ones.
func diff(old map[string]string, urls []sitemap.URL) Changes {
	var c Changes
	var buf []byte
	for i := range urls {
		u := &urls[i]
		buf = buf[:0]
		if !u.LastMod.IsZero() {
			buf = sitemap.AppendTime(buf, u.LastMod)
		}
		prev, ok := old[u.Loc]
		switch {
		case !ok:
			c.Added = append(c.Added, u.Loc)
		case prev != string(buf):
			c.Changed = append(c.Changed, u.Loc)
		}
		delete(old, u.Loc)
	}
	for loc := range old {
		c.Removed = append(c.Removed, loc)
	}
	return c
}
