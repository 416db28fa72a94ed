package validate

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"time"

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
	// Warning is set for what neither a validator nor Google rejects but
	// may be a mistake (a namespace declared that nothing uses): reported,
	// and the file still passes.
	Warning bool
}

func (p Problem) String() string {
	msg := p.Msg
	if p.Warning {
		msg = "warning: " + msg
	}
	if p.Line == 0 {
		return fmt.Sprintf("%s: %s", p.File, msg)
	}
	return fmt.Sprintf("%s:%d: %s", p.File, p.Line, msg)
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

// Failed reports whether any problem is more than a warning.
func (r *Result) Failed() bool {
	return slices.ContainsFunc(r.Problems, func(p Problem) bool { return !p.Warning })
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
			return &Result{Problems: []Problem{{File: name, Msg: "not a valid gzip file: " + err.Error(), Schema: true}}}, nil
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
	used     map[string]bool // namespaces of the elements and attributes met
	decls    []nsDecl        // declarations of namespaces check does not know
}

// repeat is a problem reported once for the whole document, and how many
// times it was met.
type repeat struct {
	i, n int
}

// add reports a problem; schema says a schema validator rejects it too.
func (c *checker) add(line int, msg string, schema bool) {
	c.res.Problems = append(c.res.Problems, Problem{File: c.name, Line: line, Msg: msg, Schema: schema})
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
