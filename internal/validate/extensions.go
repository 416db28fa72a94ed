package validate

import (
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Google's image, video and news extensions, as their schemas declare
// them (internal/xsdtest/testdata/google holds the XSDs): each declares
// one global element (<image:image>, <video:video>, <news:news>) that a
// <url> may hold, made of a sequence of its namespace's elements, each
// with its type, attributes and number. sitemap.xsd processes other
// namespaces' elements strictly, so a validator holding these schemas
// rejects what breaks them; check does too, as a Schema problem. On top,
// Google's rule the schema cannot say: a video names its content_loc or
// its player_loc.

// xdecl declares one element of an extension.
type xdecl struct {
	name     string
	min, max int      // occurrences; max 0 is unbounded
	value    *xvalue  // the type of its text; nil for element-only content
	attrs    []xattr  // its attributes, none allowed but these
	children []*xdecl // the sequence it holds, when value is nil
}

// xvalue is a simple type: valid reports whether a value (as written) is
// one, want says what one is.
type xvalue struct {
	valid func(string) bool
	want  string
}

type xattr struct {
	name     string
	required bool
	value    *xvalue
}

// extension is one extension's namespace, its name in messages and its
// global element.
type extension struct {
	what string
	top  *xdecl
}

func enum(vals ...string) *xvalue {
	return &xvalue{func(v string) bool {
		for _, w := range vals {
			if v == w {
				return true
			}
		}
		return false
	}, "not one of " + strings.Join(vals, ", ")}
}

// pattern is an xs:pattern: anchored at both ends, with XML Schema's \w
// (any character but punctuation, separators and others) for Go's.
func pattern(p, want string) *xvalue {
	re := regexp.MustCompile(`^(?:` + strings.ReplaceAll(p, `\w`, `[^\p{P}\p{Z}\p{C}]`) + `)$`)
	return &xvalue{re.MatchString, want}
}

func maxLen(n int) *xvalue {
	return &xvalue{func(v string) bool { return utf8.RuneCountInString(v) <= n }, fmt.Sprintf("longer than the %d characters the schema allows", n)}
}

var integerRE = regexp.MustCompile(`^[+-]?[0-9]+$`)
var decimalRE = regexp.MustCompile(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)$`)

// decimalIn is an xs:decimal (or, integer, xs:integer) from lo to hi.
func decimalIn(integer bool, lo, hi string, want string) *xvalue {
	re := decimalRE
	if integer {
		re = integerRE
	}
	return &xvalue{func(v string) bool {
		v = collapse(v)
		if !re.MatchString(v) {
			return false
		}
		x, ok := new(big.Rat).SetString(strings.TrimPrefix(v, "+"))
		if !ok {
			return false
		}
		if lo != "" && x.Cmp(rat(lo)) < 0 || hi != "" && x.Cmp(rat(hi)) > 0 {
			return false
		}
		return true
	}, want}
}

func rat(s string) *big.Rat { r, _ := new(big.Rat).SetString(s); return r }

var (
	xString   = &xvalue{anyString, ""}
	xURI      = &xvalue{xsAnyURI, "not a URI (xs:anyURI)"}
	xDate     = &xvalue{xsDateOrDateTime, "not a date (YYYY-MM-DD) or a date and time (YYYY-MM-DDThh:mm:ss with a time zone)"}
	xYesNo    = enum("yes", "Yes", "YES", "no", "No", "NO")
	xDuration = decimalIn(true, "0", "28800", "not a whole number of seconds from 0 to 28800")
	xAllow    = enum("allow", "deny")
)

func el(name string, min, max int, value *xvalue, attrs ...xattr) *xdecl {
	return &xdecl{name: name, min: min, max: max, value: value, attrs: attrs}
}

func seq(name string, min, max int, children ...*xdecl) *xdecl {
	return &xdecl{name: name, min: min, max: max, children: children}
}

// extensionSchemas are the extensions whose schemas check knows, by
// namespace. (The mobile extension's element is empty, and taken as it is.)
var extensionSchemas = map[string]extension{
	"http://www.google.com/schemas/sitemap-image/1.1": {"image", seq("image", 0, 0,
		el("loc", 1, 1, xURI), el("caption", 0, 1, xString), el("geo_location", 0, 1, xString),
		el("title", 0, 1, xString), el("license", 0, 1, xURI))},
	"http://www.google.com/schemas/sitemap-news/0.9": {"news", seq("news", 0, 0,
		seq("publication", 1, 1, el("name", 1, 1, xString),
			el("language", 1, 1, pattern(`zh-cn|zh-tw|([a-z]{2,3})`, "not a language code of 2 or 3 lower-case letters, zh-cn or zh-tw"))),
		el("access", 0, 1, enum("Subscription", "Registration")),
		el("genres", 0, 1, pattern(`(PressRelease|Satire|Blog|OpEd|Opinion|UserGenerated)(, *(PressRelease|Satire|Blog|OpEd|Opinion|UserGenerated))*`, "not a list of PressRelease, Satire, Blog, OpEd, Opinion and UserGenerated separated by commas")),
		el("publication_date", 1, 1, xDate), el("title", 1, 1, xString), el("keywords", 0, 1, xString),
		el("stock_tickers", 0, 1, pattern(`(\w+:\w+(, *\w+:\w+){0,4})?`, "not up to 5 EXCHANGE:TICKER separated by commas")))},
	"http://www.google.com/schemas/sitemap-video/1.1": {"video", seq("video", 0, 0,
		el("thumbnail_loc", 1, 1, xURI), el("title", 1, 1, maxLen(100)), el("description", 1, 1, maxLen(2048)),
		el("content_loc", 0, 1, xURI),
		el("player_loc", 0, 1, xURI, xattr{"allow_embed", false, xYesNo}, xattr{"autoplay", false, xString}),
		el("duration", 0, 1, xDuration), el("expiration_date", 0, 1, xDate),
		el("rating", 0, 1, decimalIn(false, "0", "5", "not a number from 0 to 5")),
		el("content_segment_loc", 0, 0, xURI, xattr{"duration", false, xDuration}),
		el("view_count", 0, 1, decimalIn(true, "0", "", "not a whole number (xs:nonNegativeInteger)")),
		el("publication_date", 0, 1, xDate), el("tag", 0, 32, xString), el("category", 0, 1, maxLen(256)),
		el("family_friendly", 0, 1, xYesNo),
		el("restriction", 0, 1, pattern(`([A-Z]{2}( +[A-Z]{2})*)?`, "not country codes (ISO 3166, upper case) separated by spaces"), xattr{"relationship", true, xAllow}),
		el("gallery_loc", 0, 1, xURI, xattr{"title", false, xString}),
		el("price", 0, 0, xString, xattr{"currency", false, pattern(`[A-Z]{3}`, "not a currency code (ISO 4217, 3 upper-case letters)")},
			xattr{"type", false, enum("purchase", "PURCHASE", "rent", "RENT")}, xattr{"resolution", false, enum("sd", "SD", "hd", "HD")}),
		el("requires_subscription", 0, 1, xYesNo),
		el("uploader", 0, 1, xString, xattr{"info", false, xURI}),
		seq("tvshow", 0, 1, el("show_title", 1, 1, xString),
			el("video_type", 1, 1, enum("full", "preview", "clip", "interview", "news", "other")),
			el("episode_title", 0, 1, xString),
			el("season_number", 0, 1, decimalIn(true, "1", "", "not a whole number from 1")),
			el("episode_number", 0, 1, decimalIn(true, "1", "", "not a whole number from 1")),
			el("premier_date", 0, 1, xDate)),
		el("platform", 0, 1, pattern(`((web|mobile|tv)( (web|mobile|tv))*)?`, "not a list of web, mobile and tv separated by spaces"), xattr{"relationship", true, xAllow}),
		el("live", 0, 1, xYesNo),
		el("id", 0, 0, xString, xattr{"type", true, enum("tms:series", "tms:program", "rovi:series", "rovi:program", "freebase", "url")}))},
}

// xnode is an extension's element as read: its children, text and
// attributes, checked when its top element ends.
type xnode struct {
	f        *frame
	attrs    []attr
	text     strings.Builder
	textLine int // where text that is not whitespace (or a CDATA section) begins, or 0
	kids     []*xnode
	decl     *xdecl // of the top element
	ext      string // the extension's name, of the top element
}

// extensionTop begins reading an element of an extension's namespace in
// a <url> or <urlset>: false when it is not the schema's global element
// (reported).
func (c *checker) extensionTop(f *frame, attrs []attr) bool {
	x, ok := extensionSchemas[f.name.Space]
	if !ok {
		return true // a namespace check knows with no schema to check by
	}
	if f.name.Local != x.top.name {
		c.add(f.line, fmt.Sprintf("<%s>: Google's %s schema declares no such element for a <url>: it takes <%s>, whose parts go inside it", f.qname, x.what, x.top.name), true)
		return false
	}
	f.role = extElem
	f.ext = &xnode{f: f, attrs: attrs, decl: x.top, ext: x.what}
	return true
}

// extensionChild reads an element inside an extension's element.
func (c *checker) extensionChild(parent, f *frame, attrs []attr) {
	f.role = extElem
	f.ext = &xnode{f: f, attrs: attrs}
	parent.ext.kids = append(parent.ext.kids, f.ext)
}

// extensionText reads text inside an extension's element.
func (c *checker) extensionText(f *frame, t []byte, cdata bool, line int) {
	f.ext.text.Write(t)
	if f.ext.textLine == 0 && (cdata || !blank(string(t))) {
		f.ext.textLine = line
	}
}

// extensionEnd checks an extension's top element, which has ended.
func (c *checker) extensionEnd(n *xnode) {
	c.xcheck(n, n.decl, n.ext)
	if n.ext != "video" {
		return
	}
	for _, k := range n.kids {
		if k.f.name.Space == n.f.name.Space && (k.f.name.Local == "content_loc" || k.f.name.Local == "player_loc") {
			return
		}
	}
	c.add(n.f.line, fmt.Sprintf("<%s> has neither <content_loc> nor <player_loc>: Google indexes a video by one of them (its schema cannot say so)", n.f.qname), false)
}

// xcheck checks an element against its declaration.
func (c *checker) xcheck(n *xnode, d *xdecl, ext string) {
	q := n.f.qname
	for _, a := range n.attrs {
		if isNSDecl(a) || schemaHint(a) {
			continue
		}
		var decl *xattr
		for i := range d.attrs {
			if a.Name.Space == "" && a.Name.Local == d.attrs[i].name {
				decl = &d.attrs[i]
			}
		}
		switch {
		case decl == nil:
			c.add(a.line, fmt.Sprintf("<%s %s=%q>: Google's %s schema gives <%s> no attribute %s%s", q, a.qname, a.Value, ext, q, a.qname, attrNamespace(a)), true)
		case !decl.value.valid(a.Value):
			c.add(a.line, fmt.Sprintf("<%s %s=%q>: %s", q, a.qname, a.Value, decl.value.want), true)
		}
	}
	for _, a := range d.attrs {
		if a.required && !hasAttr(n.attrs, a.name) {
			c.add(n.f.line, fmt.Sprintf("<%s> has no %s attribute: Google's %s schema requires it", q, a.name, ext), true)
		}
	}
	if d.value != nil {
		if len(n.kids) > 0 {
			c.add(n.kids[0].f.line, fmt.Sprintf("<%s> inside <%s>: Google's %s schema wants text only in <%s>", n.kids[0].f.qname, q, ext, q), true)
			return
		}
		if v := n.text.String(); !d.value.valid(v) {
			msg := fmt.Sprintf("<%s> %s: %s", q, quoteText([]byte(v)), d.value.want)
			if d.value == xURI {
				msg += uriHint(v)
			}
			c.add(n.f.line, msg, true)
		}
		return
	}
	if n.textLine != 0 {
		c.add(n.textLine, fmt.Sprintf("text %s in <%s>: Google's %s schema allows only elements here", quoteText([]byte(strings.TrimSpace(n.text.String()))), q, ext), true)
	}
	c.xsequence(n, d, ext)
}

func hasAttr(attrs []attr, name string) bool {
	for _, a := range attrs {
		if a.Name.Space == "" && a.Name.Local == name {
			return true
		}
	}
	return false
}

// xsequence matches an element's children with the sequence its
// declaration holds, in order, each as many times as allowed.
func (c *checker) xsequence(n *xnode, d *xdecl, ext string) {
	q, ns := n.f.qname, n.f.name.Space
	i, count := 0, 0
	missing := func(upTo int) {
		for ; i < upTo; i, count = i+1, 0 {
			if count < d.children[i].min {
				c.add(n.f.line, fmt.Sprintf("<%s> has no <%s>: Google's %s schema requires it, %s", q, d.children[i].name, ext, orderOf(d)), true)
			}
		}
	}
	for _, k := range n.kids {
		at := -1
		if k.f.name.Space == ns {
			for j := i; j < len(d.children); j++ {
				if d.children[j].name == k.f.name.Local {
					at = j
					break
				}
			}
		}
		if at < 0 {
			what := "not in its place"
			if k.f.name.Space != ns || !declares(d, k.f.name.Local) {
				what = "not an element it holds"
			}
			c.add(k.f.line, fmt.Sprintf("<%s> in <%s>: %s by Google's %s schema, %s", k.f.qname, q, what, ext, orderOf(d)), true)
			continue
		}
		if at > i {
			missing(at)
		}
		count++
		if max := d.children[i].max; max > 0 && count == max+1 {
			c.add(k.f.line, fmt.Sprintf("<%s> in <%s> more than %d times: Google's %s schema allows no more", k.f.qname, q, max, ext), true)
		}
		c.xcheck(k, d.children[i], ext)
	}
	missing(len(d.children))
}

func declares(d *xdecl, name string) bool {
	for _, k := range d.children {
		if k.name == name {
			return true
		}
	}
	return false
}

// orderOf says what an element holds, in order.
func orderOf(d *xdecl) string {
	names := make([]string, len(d.children))
	for i, k := range d.children {
		names[i] = "<" + k.name + ">"
		if k.min == 0 {
			names[i] += "?"
		}
	}
	return "which wants " + strings.Join(names, ", ") + " in that order (? optional)"
}
