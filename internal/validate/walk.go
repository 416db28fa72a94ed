package validate

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/sitemapd/sitemapd/internal/sitemap"
)

// The walk of an XML sitemap or index, token by token: each element's
// role (root, entry, field, alternate, or skipped), its namespace
// prefixes and attributes as written, the content allowed in it, and each
// entry's fields when it ends. What a <urlset>'s or a <sitemapindex>'s
// elements may hold is in schema.go and index.go; the fields' values are
// checked in values.go.

// frame is an open element.
type frame struct {
	role     role
	name     xml.Name
	qname    string // as written
	line     int    // of its start tag's '<'
	prefixes []string
	text     strings.Builder // of a field
	flagged  bool            // its content was found wrong once already
	ext      *xnode          // an extension's element, as read
}

// role says how an element's content is read.
type role int

const (
	skipped   role = iota // nothing in it is looked at but well-formedness
	rootElem              // <urlset> or <sitemapindex>
	entryElem             // <url> or <sitemap>
	fieldElem             // <loc>, <lastmod>, <changefreq>, <priority>
	linkElem              // <xhtml:link>
	extElem               // an element of Google's image, video or news extension
)

// entry is one <url> or <sitemap> being read.
type entry struct {
	line   int
	fields map[string]int // child element -> times seen
	rank   int            // place of the last element read in the entry's order
	last   string         // that element, as written
}

// attr is an attribute with what its start tag says of it.
type attr struct {
	xml.Attr
	qname string
	line  int
}

func (c *checker) run(in *window) error {
	c.dec = xml.NewDecoder(in)
	c.declared = map[string]int{"xml": 1}
	for {
		start := c.dec.InputOffset()
		tok, err := c.dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				c.add(se.Line, "not well-formed XML: "+se.Msg, true)
				return nil
			}
			return err
		}
		end := c.dec.InputOffset()
		raw := in.span(start, end)
		endLine, _ := c.dec.InputPos()
		line := endLine - bytes.Count(raw, []byte("\n"))
		switch t := tok.(type) {
		case xml.StartElement:
			c.start(t, raw, line)
		case xml.CharData:
			c.text(t, bytes.HasPrefix(raw, []byte("<![CDATA[")), line)
		case xml.EndElement:
			c.end()
		}
		in.drop(end)
	}
	for _, r := range c.repeats {
		if r.n > 1 {
			c.res.Problems[r.i].Msg += fmt.Sprintf(" (%d times in all, the first reported)", r.n)
		}
	}
	if c.res.Kind == "" && len(c.res.Problems) == 0 {
		c.add(0, "empty document", true)
	}
	if c.res.Kind != "" && c.res.Entries == 0 {
		c.add(0, fmt.Sprintf("a %s needs at least one entry", c.res.Kind), true)
	}
	c.unusedNamespaces()
	return nil
}

// start reads a start tag: raw is its text, line where it begins.
func (c *checker) start(t xml.StartElement, raw []byte, line int) {
	qname, rattrs := scanTag(raw)
	f := &frame{name: t.Name, qname: qname, line: line}
	attrs := make([]attr, len(t.Attr))
	for i, a := range t.Attr {
		attrs[i] = attr{Attr: a, qname: a.Name.Local, line: line}
		if len(rattrs) == len(t.Attr) {
			attrs[i].qname = rattrs[i].qname
			attrs[i].line = line + bytes.Count(raw[:rattrs[i].off], []byte("\n"))
		}
		if a.Name.Space == "xmlns" {
			f.prefixes = append(f.prefixes, a.Name.Local)
			c.declared[a.Name.Local]++
		}
		for _, b := range t.Attr[:i] {
			if b.Name == a.Name {
				c.add(attrs[i].line, fmt.Sprintf("<%s>: attribute %s given twice, which is not well-formed XML", qname, attrs[i].qname), true)
				break
			}
		}
	}
	var parent *frame
	if n := len(c.stack); n > 0 {
		parent = c.stack[n-1]
	}
	c.stack = append(c.stack, f)

	ok, attrs := c.declaredOnly(f, attrs)
	c.noteNamespaces(t.Name.Space, attrs)
	if !ok {
		return // the element is not what its name says
	}
	switch {
	case parent == nil:
		c.root(t, f, attrs)
	case parent.role == rootElem:
		c.rootChild(t, f, attrs)
	case parent.role == entryElem:
		c.entryChild(t, f, attrs)
	case parent.role == fieldElem:
		if !parent.flagged {
			parent.flagged = true
			c.add(line, fmt.Sprintf("<%s> inside <%s>: %s wants text only in <%s>", qname, parent.qname, c.schemaName(), parent.qname), true)
		}
	case parent.role == extElem:
		c.extensionChild(parent, f, attrs)
	case parent.role == linkElem:
		if !parent.flagged {
			parent.flagged = true
			c.add(line, fmt.Sprintf("<%s> has an element inside (<%s>): XHTML's link element is empty", parent.qname, qname), true)
		}
	}
}

// declaredOnly checks that every prefix an element and its attributes are
// written with is declared; an undeclared one is a problem (libxml2: a
// namespace error), reported once a prefix. It reports whether the
// element's own is, and returns the attributes whose are.
func (c *checker) declaredOnly(f *frame, attrs []attr) (bool, []attr) {
	declared := func(qname string, line int) bool {
		p, _, found := strings.Cut(qname, ":")
		if !found || p == "xmlns" || c.declared[p] > 0 {
			return true
		}
		msg := fmt.Sprintf("<%s>: the prefix %q is not declared (no xmlns:%s in scope)", f.qname, p, p)
		if qname != f.qname {
			msg = fmt.Sprintf("<%s> attribute %s: the prefix %q is not declared (no xmlns:%s in scope)", f.qname, qname, p, p)
		} else if p == "xhtml" {
			msg = fmt.Sprintf(`<%s>: the prefix "xhtml" is not declared: a sitemap with alternates declares xmlns:xhtml=%q, on its <urlset>`, f.qname, sitemap.XHTMLNamespace)
		}
		c.addOnce("prefix "+p, line, msg, true)
		return false
	}
	ok := declared(f.qname, f.line)
	kept := attrs[:0]
	for _, a := range attrs {
		if declared(a.qname, a.line) {
			kept = append(kept, a)
		}
	}
	return ok, kept
}

func (c *checker) text(t xml.CharData, cdata bool, line int) {
	if len(c.stack) == 0 {
		return
	}
	f := c.stack[len(c.stack)-1]
	switch f.role {
	case extElem:
		c.extensionText(f, t, cdata, line)
	case fieldElem:
		f.text.Write(t)
	case rootElem, entryElem:
		// element-only content: whitespace, but not in a CDATA section
		if !f.flagged && (cdata || !blank(string(t))) {
			f.flagged = true
			what := "text"
			if cdata {
				what = "a CDATA section"
			}
			c.add(line, fmt.Sprintf("%s %s in <%s>: %s allows only elements here", what, quoteText(t), f.qname, c.schemaName()), true)
		}
	case linkElem:
		if !f.flagged {
			f.flagged = true
			c.add(line, fmt.Sprintf("<%s> has text inside (%s): XHTML's link element is empty (close it with />)", f.qname, quoteText(t)), true)
		}
	}
}

func quoteText(t []byte) string {
	if utf8.RuneCount(t) > 40 {
		return fmt.Sprintf("%q…", string([]rune(string(t))[:40]))
	}
	return fmt.Sprintf("%q", t)
}

func (c *checker) end() {
	f := c.stack[len(c.stack)-1]
	c.stack = c.stack[:len(c.stack)-1]
	for _, p := range f.prefixes {
		c.declared[p]--
	}
	switch f.role {
	case extElem:
		if f.ext.decl != nil {
			c.extensionEnd(f.ext)
		}
	case fieldElem:
		if f.name.Space == c.ns {
			c.field(f.name.Local, f.text.String(), f.line)
		}
	case entryElem:
		cur := c.cur
		if cur.fields["loc"] != 1 {
			c.add(cur.line, fmt.Sprintf("an entry needs exactly one <loc>, this one has %d", cur.fields["loc"]), true)
		}
		for _, name := range []string{"lastmod", "changefreq", "priority"} {
			if cur.fields[name] > 1 {
				c.add(cur.line, fmt.Sprintf("<%s> given %d times", name, cur.fields[name]), true)
			}
		}
		c.cur = nil
	}
}

func (c *checker) root(t xml.StartElement, f *frame, attrs []attr) {
	switch t.Name.Local {
	case "urlset", "sitemapindex":
		c.res.Kind = t.Name.Local
		f.role = rootElem
	default:
		c.add(f.line, fmt.Sprintf("root element <%s>: a sitemap is a <urlset> or a <sitemapindex>", t.Name.Local), true)
		return
	}
	// A wrong namespace is one problem, not one per entry: the entries
	// are read in the root's namespace.
	c.ns = t.Name.Space
	if t.Name.Space != sitemap.Namespace {
		c.add(f.line, fmt.Sprintf("namespace %q: want %q", t.Name.Space, sitemap.Namespace), true)
	}
	c.noAttributes(f, attrs)
}

func (c *checker) newEntry(f *frame) {
	f.role = entryElem
	c.res.Entries++
	if c.res.Entries == sitemap.MaxItems+1 {
		c.add(f.line, fmt.Sprintf("more than %d entries", sitemap.MaxItems), false)
	}
	c.cur = &entry{line: f.line, fields: map[string]int{}}
}
