// Package validate checks a sitemap or sitemap index, from any generator.
//
// A <urlset> is checked as a validator with sitemaps.org's sitemap.xsd and
// the XHTML namespace's link element (as XHTML 1.0 Strict's schema
// declares it) checks it, which is how Google says a sitemap with
// <xhtml:link> hreflang alternates is validated: the elements, their order
// and attributes, the values' types, and other namespaces' elements, which
// sitemap.xsd admits in a <url> (or before the first <url>) only where a
// schema declares them. Of those, check knows the XHTML link element and
// the elements of Google's image, video and news extensions, checked by
// their schemas (extensions.go); an element of any other namespace (a
// PageMap, the retired mobile extension, a typo) is a Schema problem
// naming the namespace, and a namespace declared and used by nothing a
// Warning (namespaces.go). A <sitemapindex> is checked as siteindex.xsd
// says, with the same namespaces. Problem.Schema marks what such a
// validator rejects; xmllint with those schemas is the tests' oracle.
//
// On top of the schema, the protocol: the limits (50,000 entries, 50 MiB
// uncompressed), each <loc> an absolute, escaped http(s) URL of fewer than
// 2,048 characters under the directory the file is served from, <lastmod>
// in W3C Datetime and not in the future, and each alternate an
// <xhtml:link rel="alternate"> with an hreflang (or, for a separate mobile
// URL, a media) and an absolute http(s) href, inside the <url> of its page
// (never in an index, where extensions' elements say nothing either).
// A <sitemapindex> and a text sitemap get the protocol's checks.
//
// Every problem is reported with the line it is on; a reader stops only
// at XML it cannot parse.
package validate
