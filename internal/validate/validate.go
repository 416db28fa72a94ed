// Package validate checks a sitemap or sitemap index, from any generator.
//
// A <urlset> is checked as a validator with sitemaps.org's sitemap.xsd and
// the XHTML namespace's link element (as XHTML 1.0 Strict's schema
// declares it) checks it, which is how Google says a sitemap with
// <xhtml:link> hreflang alternates is validated: the elements, their order
// and attributes, the values' types, and other namespaces' elements, which
// sitemap.xsd admits in a <url> (or before the first <url>) only where a
// schema declares them. Of those, check knows the XHTML link element and
// the elements of Google's image, video, news and mobile extensions, whose
// content it does not look into. Problem.Schema marks what such a
// validator rejects; xmllint with those schemas is the tests' oracle.
//
// On top of the schema, the protocol: the limits (50,000 entries, 50 MiB
// uncompressed), each <loc> an absolute, escaped http(s) URL of fewer than
// 2,048 characters under the directory the file is served from, <lastmod>
// in W3C Datetime and not in the future, and each alternate an
// <xhtml:link rel="alternate"> with an hreflang (or, for a separate mobile
// URL, a media) and an absolute http(s) href, inside the <url> of its page.
// A <sitemapindex> and a text sitemap get the protocol's checks.
//
// Every problem is reported with the line it is on; a reader stops only
// at XML it cannot parse.
package validate

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/sitemap"
)

// Problem is one finding, at a line of a file (0: the file as a whole).
type Problem struct {
	File string
	Line int
	Msg  string
	// Schema is set when a schema validator rejects the document for it
	// too (sitemap.xsd with XHTML's link element, as xmllint reads them);
	// unset for the protocol's rules beyond the schema.
	Schema bool
}

func (p Problem) String() string {
	if p.Line == 0 {
		return fmt.Sprintf("%s: %s", p.File, p.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Msg)
}

// Options says where a file lives.
type Options struct {
	// Location is the URL the file is served at; its URLs must be at or
	// below its directory. Empty skips that rule.
	Location string
	// Now is the time lastmod must not pass; zero means time.Now().
	Now time.Time
}

// Result is what Check found.
type Result struct {
	Kind     string // "urlset", "sitemapindex" or "text" (a .txt sitemap), "" if not a sitemap
	Entries  int
	Problems []Problem
}

// SchemaValid reports whether a schema validator accepts the document:
// none of its problems is a Schema one.
func (r *Result) SchemaValid() bool {
	return !slices.ContainsFunc(r.Problems, func(p Problem) bool { return p.Schema })
}

// Check reads one sitemap or index (gzip-compressed or not) and reports
// every problem found. The error is for a reader that fails, not for a
// problem with the document.
func Check(name string, r io.Reader, opts Options) (*Result, error) {
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	br := bufio.NewReader(r)
	if magic, _ := br.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return &Result{Problems: []Problem{{name, 0, "not a valid gzip file: " + err.Error(), true}}}, nil
		}
		defer zr.Close()
		br = bufio.NewReader(zr)
	}
	c := &checker{name: name, opts: opts, res: &Result{}}
	if u, err := url.Parse(opts.Location); err == nil && u.Host != "" {
		loc := normHost(opts.Location)
		c.dir = loc[:strings.LastIndexByte(loc, '/')+1]
		c.site = strings.ToLower(u.Scheme + "://" + u.Host + "/")
	}
	counted := &countingReader{r: br}
	var err error
	if strings.HasSuffix(strings.TrimSuffix(name, ".gz"), ".txt") {
		c.res.Kind, c.what = "text", "URL"
		err = c.runText(counted)
	} else {
		c.what = "<loc>"
		err = c.run(&window{r: counted})
	}
	if counted.n > sitemap.MaxBytes {
		c.add(0, fmt.Sprintf("%d bytes uncompressed: more than the %d the protocol allows", counted.n, sitemap.MaxBytes), false)
	}
	return c.res, err
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

type checker struct {
	name string
	opts Options
	ns   string // the namespace of the root, which its children share
	dir  string // the directory URL the file lives in, or ""
	site string // scheme://host/ of that URL
	res  *Result
	what string // what a URL is called in messages: "<loc>", or "URL" in a text sitemap

	// reading XML
	dec      *xml.Decoder
	stack    []*frame
	declared map[string]int // namespace prefixes in scope, and how many times declared
	cur      *entry         // the <url> or <sitemap> being read
	seenURL  bool           // a <url> has begun
	ids      map[string]int // xs:ID values given, and the line of each
	repeats  map[string]*repeat
}

// repeat is a problem reported once for the whole document, and how many
// times it was met.
type repeat struct {
	i, n int
}

// runText checks a text sitemap: one absolute URL a line, UTF-8, and
// nothing else, within the protocol's limits.
func (c *checker) runText(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSuffix(sc.Text(), "\r")
		switch {
		case line == "":
			c.add(n, "empty line: a text sitemap holds one URL a line and nothing else", false)
			continue
		case !utf8.ValidString(line):
			c.add(n, "not UTF-8, which text sitemaps must be", false)
			continue
		}
		c.res.Entries++
		if c.res.Entries == sitemap.MaxItems+1 {
			c.add(n, fmt.Sprintf("more than %d URLs", sitemap.MaxItems), false)
		}
		c.loc(line, n)
	}
	if errors.Is(sc.Err(), bufio.ErrTooLong) {
		c.add(n+1, "a line of more than 1 MiB: not a text sitemap", false)
		return nil
	}
	if sc.Err() != nil {
		return sc.Err()
	}
	if c.res.Entries == 0 && len(c.res.Problems) == 0 {
		c.add(0, "a text sitemap needs at least one URL", false)
	}
	return nil
}

// add reports a problem; schema says a schema validator rejects it too.
func (c *checker) add(line int, msg string, schema bool) {
	c.res.Problems = append(c.res.Problems, Problem{c.name, line, msg, schema})
}

// addOnce reports a problem that may come back many times (a namespace
// declaration missing for every alternate) once, where it is first met,
// with the count of the others.
func (c *checker) addOnce(key string, line int, msg string, schema bool) {
	if r := c.repeats[key]; r != nil {
		r.n++
		return
	}
	if c.repeats == nil {
		c.repeats = map[string]*repeat{}
	}
	c.repeats[key] = &repeat{i: len(c.res.Problems), n: 1}
	c.add(line, msg, schema)
}

// frame is an open element.
type frame struct {
	role     role
	name     xml.Name
	qname    string // as written
	line     int    // of its start tag's '<'
	prefixes []string
	text     strings.Builder // of a field
	flagged  bool            // its content was found wrong once already
}

// role says how an element's content is read.
type role int

const (
	skipped   role = iota // nothing in it is looked at but well-formedness
	rootElem              // <urlset> or <sitemapindex>
	entryElem             // <url> or <sitemap>
	fieldElem             // <loc>, <lastmod>, <changefreq>, <priority>
	linkElem              // <xhtml:link>
)

// entry is one <url> or <sitemap> being read.
type entry struct {
	line   int
	fields map[string]int // child element -> times seen
	rank   int            // place of the last element read in <url>'s order
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
	if !ok {
		return // the element is not what its name says
	}
	switch {
	case parent == nil:
		c.root(t, f, attrs)
	case parent.role == rootElem && c.res.Kind == "urlset":
		c.urlsetChild(t, f, attrs)
	case parent.role == rootElem:
		// A sitemapindex: only <sitemap>.
		if t.Name.Local != "sitemap" || t.Name.Space != c.ns {
			c.add(line, fmt.Sprintf("<%s> in a sitemapindex: only <sitemap> belongs here", t.Name.Local), true)
			return
		}
		c.newEntry(f)
	case parent.role == entryElem && c.res.Kind == "urlset":
		c.urlChild(t, f, attrs)
	case parent.role == entryElem:
		if t.Name.Space == c.ns {
			c.cur.fields[t.Name.Local]++
		}
		f.role = fieldElem
	case parent.role == fieldElem:
		if !parent.flagged && c.res.Kind == "urlset" {
			parent.flagged = true
			c.add(line, fmt.Sprintf("<%s> inside <%s>: sitemap.xsd wants text only in <%s>", qname, parent.qname, parent.qname), true)
		}
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
	case fieldElem:
		f.text.Write(t)
	case rootElem, entryElem:
		// element-only content: whitespace, but not in a CDATA section
		if c.res.Kind == "urlset" && !f.flagged && (cdata || !blank(string(t))) {
			f.flagged = true
			what := "text"
			if cdata {
				what = "a CDATA section"
			}
			c.add(line, fmt.Sprintf("%s %s in <%s>: sitemap.xsd allows only elements here", what, quoteText(t), f.qname), true)
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
	if c.res.Kind == "urlset" {
		c.noAttributes(f, attrs)
	}
}

func (c *checker) newEntry(f *frame) {
	f.role = entryElem
	c.res.Entries++
	if c.res.Entries == sitemap.MaxItems+1 {
		c.add(f.line, fmt.Sprintf("more than %d entries", sitemap.MaxItems), false)
	}
	c.cur = &entry{line: f.line, fields: map[string]int{}}
}

func (c *checker) field(name, text string, line int) {
	v := strings.TrimSpace(text)
	n := len(c.res.Problems)
	schema := true                     // the schema takes the value
	why := func() string { return "" } // if not, why, for when the protocol takes it
	switch name {
	case "loc":
		c.loc(v, line)
		switch l := collapsedLen(text); {
		case l < 12 || l > 2048:
			schema = false
			why = func() string { return fmt.Sprintf("<loc> %q has %d characters: sitemap.xsd wants 12 to 2,048", v, l) }
		case !xsAnyURI(text):
			schema = false
			why = func() string { return fmt.Sprintf("<loc> %q is not a URI (xs:anyURI)%s", v, uriHint(v)) }
		}
	case "lastmod":
		c.lastmod(v, line)
		schema = xsDateOrDateTime(text)
		why = func() string {
			return fmt.Sprintf("<lastmod> %q: sitemap.xsd wants a date (2026-11-22) or a date and time to the second (2026-11-22T10:30:00Z)", v)
		}
	case "changefreq":
		if c.res.Kind != "urlset" || !slices.Contains(config.ValidChangeFreqs, v) {
			c.add(line, fmt.Sprintf("<changefreq> %q: want one of %s", v, strings.Join(config.ValidChangeFreqs, ", ")), true)
		}
		schema = slices.Contains(config.ValidChangeFreqs, text)
		why = func() string {
			return fmt.Sprintf("<changefreq> %q: sitemap.xsd wants the word alone, without whitespace around it", text)
		}
	case "priority":
		schema = c.res.Kind == "urlset" && xsPriority(text)
		if !schema {
			c.add(line, fmt.Sprintf("<priority> %q: want a number from 0.0 to 1.0", v), true)
		}
	default:
		return
	}
	switch {
	case schema:
	case len(c.res.Problems) > n:
		c.res.Problems[n].Schema = true
	default:
		c.add(line, why(), true)
	}
}

// uriHint says why a value is not a URI, where it can tell.
func uriHint(v string) string {
	switch {
	case pctRE.MatchString(v):
		return ": a '%' that starts no %XX escape"
	case strings.Count(v, "#") > 1:
		return ": more than one '#'"
	}
	return ""
}

// uriChars are the characters a URL may hold unescaped (RFC 3986).
func uriChar(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' ||
		strings.IndexByte("-._~:/?#[]@!$&'()*+,;=%", b) >= 0
}

var pctRE = regexp.MustCompile(`%([^0-9A-Fa-f]|.[^0-9A-Fa-f]|.?$)`)

// loc checks a URL by the protocol's rules.
func (c *checker) loc(v string, line int) {
	if len(v) > sitemap.MaxLocLen {
		c.add(line, fmt.Sprintf("%s of %d characters: the protocol wants fewer than 2,048", c.what, len(v)), false)
	}
	for i := 0; i < len(v); i++ {
		if !uriChar(v[i]) {
			c.add(line, fmt.Sprintf("%s %q has a character that must be percent-encoded (%q)", c.what, v, v[i]), false)
			return
		}
	}
	if pctRE.MatchString(v) {
		c.add(line, fmt.Sprintf("%s %q has a '%%' that starts no %%XX escape", c.what, v), false)
		return
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		c.add(line, fmt.Sprintf("%s %q is not an absolute http or https URL", c.what, v), false)
		return
	}
	switch n := normHost(v); {
	case c.dir == "":
	case c.res.Kind != "sitemapindex" && !strings.HasPrefix(n, c.dir):
		c.add(line, fmt.Sprintf("%s %q is outside %s, where this sitemap lives: it may list URLs at or below its own directory only", c.what, v, c.dir), false)
	case c.res.Kind == "sitemapindex" && !strings.HasPrefix(n, c.site):
		c.add(line, fmt.Sprintf("%s %q is on another site than %s, where this index lives", c.what, v, c.site), false)
	}
}

// normHost lower-cases a URL's scheme and host, which are case-insensitive;
// the rest is compared as it is.
func normHost(v string) string {
	i := strings.Index(v, "://")
	if i < 0 {
		return v
	}
	j := strings.IndexByte(v[i+3:], '/')
	if j < 0 {
		return strings.ToLower(v)
	}
	return strings.ToLower(v[:i+3+j]) + v[i+3+j:]
}

// W3C Datetime, the forms the protocol accepts.
var lastmodRE = regexp.MustCompile(`^\d{4}(-\d{2}(-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?)?)?$`)

func (c *checker) lastmod(v string, line int) {
	if !lastmodRE.MatchString(v) {
		c.add(line, fmt.Sprintf("<lastmod> %q is not a W3C Datetime (e.g. 2026-11-22 or 2026-11-22T10:30:00Z)", v), false)
		return
	}
	var t time.Time
	var err error
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00", "2006-01-02", "2006-01", "2006"} {
		if t, err = time.Parse(layout, v); err == nil {
			break
		}
	}
	if err != nil {
		c.add(line, fmt.Sprintf("<lastmod> %q is not a valid date", v), false)
		return
	}
	if t.After(c.opts.Now) {
		c.add(line, fmt.Sprintf("<lastmod> %s is in the future", v), false)
	}
}
