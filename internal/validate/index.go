package validate

import (
	"encoding/xml"
	"fmt"
)

// The structure of a <sitemapindex> by siteindex.xsd: other namespaces'
// elements, then one or more <sitemap>; a <sitemap> holds <loc>, then
// optionally <lastmod>, then other namespaces' elements, processed
// strictly as sitemap.xsd's are. Google's extensions and XHTML's link
// describe a page, in a <url>: in an index, where a schema takes them,
// they say nothing, which the protocol's rules report.

// schemaName is the sitemaps.org schema of the document being read.
func (c *checker) schemaName() string {
	if c.res.Kind == "sitemapindex" {
		return "siteindex.xsd"
	}
	return "sitemap.xsd"
}

// indexOrder is the place of each of <sitemap>'s own elements.
var indexOrder = map[string]int{"loc": 1, "lastmod": 2}

// indexChild reads an element of a <sitemapindex>.
func (c *checker) indexChild(t xml.StartElement, f *frame, attrs []attr) {
	switch {
	case t.Name.Space == c.ns && t.Name.Local == "sitemap":
		c.seenURL = true
		c.newEntry(f)
		c.noAttributes(f, attrs)
	case t.Name.Space == c.ns || t.Name.Space == "":
		c.add(f.line, fmt.Sprintf("<%s> in a sitemapindex: only <sitemap> belongs here", t.Name.Local), true)
	default:
		c.foreign(t, f, attrs, false)
	}
}

// sitemapChild reads an element of an index's <sitemap>.
func (c *checker) sitemapChild(t xml.StartElement, f *frame, attrs []attr) {
	cur := c.cur
	switch {
	case t.Name.Space == "" && c.ns != "":
		c.add(f.line, fmt.Sprintf("<%s> in a <sitemap> is in no namespace: siteindex.xsd allows there only its own elements and other namespaces' declared ones", f.qname), true)
		return
	case t.Name.Space != c.ns:
		c.foreign(t, f, attrs, true)
		if cur.rank < foreignRank {
			cur.rank, cur.last = foreignRank, f.qname
		}
		return
	}
	rank := indexOrder[t.Name.Local]
	if rank == 0 {
		c.add(f.line, fmt.Sprintf("<%s> in a <sitemap>: an index entry holds <loc> and <lastmod> only, then other namespaces' elements", f.qname), true)
		return
	}
	f.role = fieldElem
	c.noAttributes(f, attrs)
	seen := cur.fields[t.Name.Local] > 0
	cur.fields[t.Name.Local]++
	switch {
	case seen: // reported at the end of the entry
	case rank < cur.rank:
		c.add(f.line, fmt.Sprintf("<%s> after <%s>: siteindex.xsd wants <loc>, then <lastmod>, before other namespaces' elements", f.qname, cur.last), true)
	default:
		cur.rank, cur.last = rank, f.qname
	}
}
