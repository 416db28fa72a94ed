package validate

import "fmt"

// The structure of a <sitemapindex> by siteindex.xsd: other namespaces'
// elements, then one or more <sitemap>; a <sitemap> holds <loc>, then
// optionally <lastmod>, then other namespaces' elements, processed
// strictly as sitemap.xsd's are (rootChild and entryChild read both).
// Google's extensions and XHTML's link describe a page, in a <url>: in an
// index, where a schema takes them, they say nothing, which the
// protocol's rules report.

// sitemapindex is the shape of a <sitemapindex>, by siteindex.xsd.
var sitemapindex = shape{
	root:   "sitemapindex",
	schema: "siteindex.xsd",
	entry:  "sitemap",
	order:  map[string]int{"loc": 1, "lastmod": 2},
	wants:  "<loc>, then <lastmod>",
	notOwn: func(qname, _ string) string {
		return fmt.Sprintf("<%s> in a <sitemap>: an index entry holds <loc> and <lastmod> only, then other namespaces' elements", qname)
	},
}
