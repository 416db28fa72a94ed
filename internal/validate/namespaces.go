package validate

import (
	"fmt"
	"strings"

	"github.com/sitemapd/sitemapd/internal/sitemap"
)

// The namespaces a sitemap may use. Google reads, besides sitemaps.org's,
// the namespaces of its image, video and news extensions and XHTML's (for
// hreflang alternates), and lists no other ("How to combine sitemap
// extensions", Google Search Central); its Sitemaps report has an error
// for a root in the wrong namespace, none for another namespace's element,
// which it passes over unread. sitemap.xsd and siteindex.xsd admit another
// namespace's element only where a schema declares it (processContents
// "strict"). So an element of any other namespace (a PageMap, the retired
// mobile extension, an extension's namespace with a typo) is an error,
// a Schema one: what it says is lost, silently, on Google's side; a
// namespace declared and used by no element, which a validator takes and
// Google never sees, is a warning.

const mobileNamespace = "http://www.google.com/schemas/sitemap-mobile/1.0"

// knownNamespaces are those a sitemap may declare, and what each is.
var knownNamespaces = map[string]string{
	sitemap.Namespace:      "sitemaps.org's",
	sitemap.XHTMLNamespace: "XHTML's, for hreflang alternates",
	xsiNamespace:           "XML Schema instance's (xsi:schemaLocation)",
	xmlNamespace:           "XML's",
	"http://www.google.com/schemas/sitemap-image/1.1": "Google's image extension's",
	"http://www.google.com/schemas/sitemap-video/1.1": "Google's video extension's",
	"http://www.google.com/schemas/sitemap-news/0.9":  "Google's news extension's",
}

// googleReads says which namespaces Google reads in a sitemap, for
// messages.
const googleReads = "Google reads only sitemaps.org's, XHTML's and its image, video and news extensions' namespaces"

// nsKey is a namespace URI with what a typo or a copy changes taken away:
// case, scheme, "www.", a trailing slash, a schema file's name.
func nsKey(ns string) string {
	k := strings.ToLower(strings.TrimSpace(ns))
	k = strings.TrimPrefix(strings.TrimPrefix(k, "http://"), "https://")
	k = strings.TrimPrefix(k, "www.")
	if strings.HasSuffix(k, ".xsd") {
		k = k[:strings.LastIndexByte(k, '/')+1]
	}
	return strings.TrimRight(k, "/")
}

// nsFamily is a namespace's key without its last segment when that is a
// version ("1.1"), or "".
func nsFamily(ns string) string {
	k := nsKey(ns)
	i := strings.LastIndexByte(k, '/')
	if i < 0 || strings.Trim(k[i+1:], "0123456789.") != "" {
		return ""
	}
	return k[:i]
}

// nearMiss names the known namespace one that is not known was likely
// meant to be, or "".
func nearMiss(ns string) string {
	for _, exact := range []bool{true, false} {
		for known, what := range knownNamespaces {
			if known == xmlNamespace || known == xsiNamespace {
				continue
			}
			if exact && nsKey(ns) == nsKey(known) || !exact && nsFamily(ns) != "" && nsFamily(ns) == nsFamily(known) {
				return fmt.Sprintf("not %s, %q", what, known)
			}
		}
	}
	return ""
}

// unknownNamespace says what a namespace check does not know is.
func unknownNamespace(ns string) string {
	switch near := nearMiss(ns); {
	case ns == mobileNamespace:
		return fmt.Sprintf("namespace %q is Google's retired mobile extension's", ns)
	case near != "":
		return fmt.Sprintf("unknown namespace %q (%s)", ns, near)
	default:
		return fmt.Sprintf("unknown namespace %q", ns)
	}
}

// foreignUnknown reports an element of a namespace check does not know.
func (c *checker) foreignUnknown(f *frame, ns string) {
	c.addOnce("namespace "+ns, f.line, fmt.Sprintf("<%s>: %s: %s rejects the element (another namespace's must be declared by a schema) and Google ignores it (%s)", f.qname, unknownNamespace(ns), c.schemaName(), googleReads), true)
}

// attrNamespace names an attribute's namespace when check does not know
// it, for messages ("" otherwise).
func attrNamespace(a attr) string {
	if _, ok := knownNamespaces[a.Name.Space]; ok || a.Name.Space == "" || isNSDecl(a) {
		return ""
	}
	return " (" + unknownNamespace(a.Name.Space) + ")"
}

// nsDecl is a namespace declaration met.
type nsDecl struct {
	qname, uri string
	line       int
}

// noteNamespaces remembers the namespaces an element and its attributes
// are in, and the declarations it makes of namespaces check does not know.
func (c *checker) noteNamespaces(space string, attrs []attr) {
	if c.used == nil {
		c.used = map[string]bool{}
	}
	c.used[space] = true
	for _, a := range attrs {
		switch {
		case isNSDecl(a):
			if _, ok := knownNamespaces[a.Value]; !ok && a.Value != "" {
				c.decls = append(c.decls, nsDecl{a.qname, a.Value, a.line})
			}
		case a.Name.Space != "":
			c.used[a.Name.Space] = true
		}
	}
}

// unusedNamespaces warns of each namespace check does not know that is
// declared and used by no element or attribute (those that are used are
// reported where they are): a validator takes it, and Google reads none
// of it, but it may be the typo that loses an extension's elements.
func (c *checker) unusedNamespaces() {
	seen := map[string]bool{}
	for _, d := range c.decls {
		if c.used[d.uri] || seen[d.uri] {
			continue
		}
		seen[d.uri] = true
		c.res.Problems = append(c.res.Problems, Problem{File: c.name, Line: d.line, Warning: true,
			Msg: fmt.Sprintf("%s=%q: %s, declared and used by no element (%s)", d.qname, d.uri, unknownNamespace(d.uri), googleReads)})
	}
}
