package validate

import (
	"encoding/xml"
	"fmt"
	"net/url"
	"strings"

	"github.com/sitemapd/sitemapd/internal/head"
	"github.com/sitemapd/sitemapd/internal/sitemap"
)

// The structure of a <urlset> by sitemap.xsd: a <urlset> holds other
// namespaces' elements, then one or more <url>; a <url> holds <loc>, then
// optionally <lastmod>, <changefreq> and <priority> in that order, then
// other namespaces' elements. Other namespaces' elements are processed
// strictly: each must be declared by a schema. Nothing has attributes but
// namespace declarations and xsi:schemaLocation, and a <urlset> or <url>
// holds no text.

const (
	xsiNamespace = "http://www.w3.org/2001/XMLSchema-instance"
	xmlNamespace = "http://www.w3.org/XML/1998/namespace"
)

// shape is what a sitemaps.org schema says a document of one kind holds:
// its root holds other namespaces' elements, then one or more entries; an
// entry holds its own elements in order, each at most once, then other
// namespaces' elements. The messages name the schema and the order as a
// reader of that kind of document knows them.
type shape struct {
	root   string         // urlset or sitemapindex
	schema string         // sitemap.xsd or siteindex.xsd
	entry  string         // url or sitemap
	order  map[string]int // the place of each of the entry's own elements; other namespaces' come after them (foreignRank)
	wants  string         // the order, as "<schema> wants ..., before other namespaces' elements" says it
	// notOwn says why an element of the sitemap namespace that is not the
	// entry's own does not belong in it.
	notOwn func(qname, local string) string
}

const foreignRank = 5

// urlset is the shape of a <urlset>, by sitemap.xsd.
var urlset = shape{
	root:   "urlset",
	schema: "sitemap.xsd",
	entry:  "url",
	order:  map[string]int{"loc": 1, "lastmod": 2, "changefreq": 3, "priority": 4},
	wants:  "<loc>, <lastmod>, <changefreq> and <priority> in that order",
	notOwn: func(qname, local string) string {
		if local == "link" {
			return fmt.Sprintf("<%s> in a <url> is in the sitemap namespace, which has no <link>: an alternate is an <xhtml:link>, with xmlns:xhtml=%q declared", qname, sitemap.XHTMLNamespace)
		}
		return fmt.Sprintf("<%s> in a <url>: the sitemap namespace has no such element (a <url> holds <loc>, <lastmod>, <changefreq> and <priority>, then other namespaces' elements)", qname)
	},
}

// shape says what the document being read holds: a <sitemapindex>'s
// shape, or (also before its root is read) a <urlset>'s.
func (c *checker) shape() *shape {
	if c.res.Kind == sitemapindex.root {
		return &sitemapindex
	}
	return &urlset
}

// schemaName is the sitemaps.org schema of the document being read.
func (c *checker) schemaName() string { return c.shape().schema }

// rootChild reads an element of the root, a <urlset> or <sitemapindex>.
func (c *checker) rootChild(t xml.StartElement, f *frame, attrs []attr) {
	s := c.shape()
	switch {
	case t.Name.Space == c.ns && t.Name.Local == s.entry:
		c.seenURL = true
		c.newEntry(f)
		c.noAttributes(f, attrs)
	case t.Name.Space == c.ns || t.Name.Space == "":
		c.add(f.line, fmt.Sprintf("<%s> in a %s: only <%s> belongs here", t.Name.Local, s.root, s.entry), true)
	default:
		c.foreign(t, f, attrs, false)
	}
}

// entryChild reads an element of an entry, a <url> or an index's <sitemap>.
func (c *checker) entryChild(t xml.StartElement, f *frame, attrs []attr) {
	s, cur := c.shape(), c.cur
	switch {
	case t.Name.Space == "" && c.ns != "":
		c.add(f.line, fmt.Sprintf("<%s> in a <%s> is in no namespace: %s allows there only its own elements and other namespaces' declared ones", f.qname, s.entry, s.schema), true)
		return
	case t.Name.Space != c.ns:
		c.foreign(t, f, attrs, true)
		if cur.rank < foreignRank {
			cur.rank, cur.last = foreignRank, f.qname
		}
		return
	}
	rank := s.order[t.Name.Local]
	if rank == 0 {
		c.add(f.line, s.notOwn(f.qname, t.Name.Local), true)
		return
	}
	f.role = fieldElem
	c.noAttributes(f, attrs)
	seen := cur.fields[t.Name.Local] > 0
	cur.fields[t.Name.Local]++
	switch {
	case seen: // reported at the end of the entry
	case rank < cur.rank:
		c.add(f.line, fmt.Sprintf("<%s> after <%s>: %s wants %s, before other namespaces' elements", f.qname, cur.last, s.schema, s.wants), true)
	default:
		cur.rank, cur.last = rank, f.qname
	}
}

// foreign reads an element of another namespace, in an entry (inEntry: a
// <url>, or an index's <sitemap>) or in the root.
func (c *checker) foreign(t xml.StartElement, f *frame, attrs []attr, inEntry bool) {
	ns := t.Name.Space
	index := c.res.Kind == "sitemapindex"
	belongs := "it belongs inside the <url> it is about"
	switch _, ext := extensionSchemas[ns]; {
	case ns == sitemap.XHTMLNamespace && t.Name.Local == "link":
		f.role = linkElem
		bad := c.linkAttributes(f, attrs)
		if inEntry && !index {
			c.alternate(f, attrs, bad)
		}
		belongs = "an alternate belongs inside the <url> of its page"
	case ns == sitemap.XHTMLNamespace:
		c.add(f.line, fmt.Sprintf("<%s>: of the XHTML namespace, a sitemap takes the <link> element only", f.qname), true)
		return
	case ext:
		if !c.extensionTop(f, attrs) {
			return
		}
	case t.Name.Local == "link":
		c.addOnce("namespace "+ns, f.line, fmt.Sprintf("<%s>: its namespace %q is not XHTML's (%q), and %s admits another namespace's element only where a schema declares it", f.qname, ns, sitemap.XHTMLNamespace, c.schemaName()), true)
		return
	default:
		c.foreignUnknown(f, ns)
		return
	}
	first := "<" + c.shape().entry + ">"
	switch {
	case !inEntry && c.seenURL:
		c.add(f.line, fmt.Sprintf("<%s> after a %s: %s allows other namespaces' elements in a <%s> only before the first %s; %s", f.qname, first, c.schemaName(), c.res.Kind, first, belongs), true)
	case index:
		c.add(f.line, fmt.Sprintf("<%s> in a sitemap index, where it is about no page: %s, in a sitemap's <urlset>", f.qname, belongs), false)
	case !inEntry:
		c.add(f.line, fmt.Sprintf("<%s> outside any <url>: sitemap.xsd allows it before the first <url>, but there it is about no page; %s", f.qname, belongs), false)
	}
}

func isNSDecl(a attr) bool {
	return a.Name.Space == "xmlns" || a.Name.Space == "" && a.Name.Local == "xmlns"
}

// schemaHint is an attribute any element may have: where its schema is.
func schemaHint(a attr) bool {
	return a.Name.Space == xsiNamespace && (a.Name.Local == "schemaLocation" || a.Name.Local == "noNamespaceSchemaLocation")
}

// noAttributes reports the attributes of one of sitemap.xsd's elements,
// which declares none.
func (c *checker) noAttributes(f *frame, attrs []attr) {
	for _, a := range attrs {
		if !isNSDecl(a) && !schemaHint(a) {
			c.add(a.line, fmt.Sprintf("<%s %s=%q>: %s gives <%s> no attributes%s", f.qname, a.qname, a.Value, c.schemaName(), f.qname, attrNamespace(a)), true)
		}
	}
}

// attrType is the type of an attribute of XHTML's link element.
type attrType struct {
	valid func(string) bool
	want  string // what is wrong with a value that is not valid
}

func anyString(string) bool { return true }

// xsLanguage reports whether v is an xs:language (whitespace collapsed):
// what head.ValidHreflang accepts.
func xsLanguage(v string) bool { return head.ValidHreflang(collapse(v)) }

var (
	language = attrType{xsLanguage, "not a language code (xs:language, as in de, en-GB or x-default)"}
	names    = attrType{xsNMTOKENS, "not a list of names (xs:NMTOKENS)"}
	text     = attrType{anyString, ""}

	// linkAttrs are the attributes XHTML 1.0 Strict gives its link
	// element, none required, and their types.
	linkAttrs = map[string]attrType{
		"id": {xsNCName, "not a name (xs:ID)"}, "class": names, "style": text, "title": text,
		"lang": language, "dir": {func(v string) bool { v = collapse(v); return v == "ltr" || v == "rtl" }, "want ltr or rtl"},
		"onclick": text, "ondblclick": text, "onmousedown": text, "onmouseup": text, "onmouseover": text,
		"onmousemove": text, "onmouseout": text, "onkeypress": text, "onkeydown": text, "onkeyup": text,
		"charset": text, "href": {xsAnyURI, "not a URI (xs:anyURI)"}, "hreflang": language, "type": text,
		"rel": names, "rev": names, "media": {mediaRE.MatchString, "not media descriptors separated by commas"},
	}
	xmlLang = attrType{func(v string) bool { return v == "" || xsLanguage(v) }, "not a language code, nor empty"}
)

// linkAttributes checks the attributes of an <xhtml:link> against XHTML's
// declaration, and returns the names of those whose values it rejects.
func (c *checker) linkAttributes(f *frame, attrs []attr) map[string]bool {
	bad := map[string]bool{}
	for _, a := range attrs {
		var typ attrType
		var ok bool
		switch {
		case isNSDecl(a) || schemaHint(a):
			continue
		case a.Name.Space == "":
			typ, ok = linkAttrs[a.Name.Local]
		case a.Name.Space == xmlNamespace && a.Name.Local == "lang":
			typ, ok = xmlLang, true
		}
		if !ok {
			msg := fmt.Sprintf("<%s %s=%q>: XHTML's link element has no attribute %s%s", f.qname, a.qname, a.Value, a.qname, attrNamespace(a))
			if a.Name.Space == sitemap.XHTMLNamespace {
				msg += " (its attributes take no prefix)"
			}
			c.add(a.line, msg, true)
			continue
		}
		if !typ.valid(a.Value) {
			bad[a.Name.Local] = true
			msg := fmt.Sprintf("<%s %s=%q>: %s", f.qname, a.qname, a.Value, typ.want)
			switch {
			case a.Name.Local == "href":
				msg += uriHint(a.Value)
			case (a.Name.Local == "hreflang" || a.Name.Local == "lang") && strings.Contains(a.Value, "_"):
				msg += `: "-" joins its parts, not "_"`
			}
			c.add(a.line, msg, true)
			continue
		}
		if a.Name.Local == "id" && a.Name.Space == "" {
			id := collapse(a.Value)
			if line, dup := c.ids[id]; dup {
				c.add(a.line, fmt.Sprintf("<%s id=%q>: the element on line %d has that id already (an xs:ID is unique in a document)", f.qname, a.Value, line), true)
			} else {
				if c.ids == nil {
					c.ids = map[string]int{}
				}
				c.ids[id] = a.line
			}
		}
	}
	return bad
}

// alternate checks an <xhtml:link> of a <url> by the protocol: a language
// alternate has rel="alternate", an hreflang and an absolute http(s)
// href; a separate mobile URL has a media instead of the hreflang. bad
// names the attributes already reported (their values are not their
// type's). A prefixed attribute (xhtml:rel), reported already, is read as
// the attribute it was meant to be.
func (c *checker) alternate(f *frame, attrs []attr, bad map[string]bool) {
	get := func(name string) (attr, bool) {
		for _, a := range attrs {
			if a.Name.Local == name && (a.Name.Space == "" || a.Name.Space == sitemap.XHTMLNamespace) {
				return a, true
			}
		}
		return attr{}, false
	}
	rel, ok := get("rel")
	switch {
	case !ok:
		c.add(f.line, fmt.Sprintf(`<%s> has no rel: a sitemap's alternates have rel="alternate"`, f.qname), false)
	case !bad["rel"] && collapse(rel.Value) != "alternate":
		c.add(rel.line, fmt.Sprintf(`<%s rel=%q>: a sitemap's alternates have rel="alternate"`, f.qname, rel.Value), false)
	}
	if _, ok := get("hreflang"); !ok {
		if _, mobile := get("media"); !mobile {
			c.add(f.line, fmt.Sprintf("<%s> has no hreflang: an alternate names its language (or x-default), or, for a separate mobile URL, its media", f.qname), false)
		}
	}
	href, ok := get("href")
	v := collapse(href.Value)
	u, err := url.Parse(v)
	switch {
	case !ok:
		c.add(f.line, fmt.Sprintf("<%s> has no href: an alternate names the URL of its page", f.qname), false)
	case bad["href"]:
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		c.add(href.line, fmt.Sprintf("<%s href=%q>: not an absolute http or https URL", f.qname, href.Value), false)
	case len(v) > sitemap.MaxLocLen:
		c.add(href.line, fmt.Sprintf("<%s href> of %d characters: the protocol wants URLs of fewer than 2,048", f.qname, len(v)), false)
	}
}
