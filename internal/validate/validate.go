// Package validate checks a sitemap or sitemap index, from any generator,
// against the sitemaps.org protocol: well-formed XML in the 0.9 namespace,
// the limits (50,000 entries, 50 MiB uncompressed), each <loc> an absolute,
// escaped http(s) URL of fewer than 2,048 characters under the directory
// the file is served from, <lastmod> in W3C Datetime and not in the future,
// <changefreq> one of the protocol's words, <priority> within 0.0–1.0.
// Every problem is reported with the line it is on; a reader stops only at
// XML it cannot parse.
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
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/head"
	"github.com/sitemapd/sitemapd/internal/sitemap"
)

// Problem is one finding, at a line of a file (0: the file as a whole).
type Problem struct {
	File string
	Line int
	Msg  string
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
			return &Result{Problems: []Problem{{name, 0, "not a valid gzip file: " + err.Error()}}}, nil
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
		err = c.run(xml.NewDecoder(counted))
	}
	if counted.n > sitemap.MaxBytes {
		c.add(0, fmt.Sprintf("%d bytes uncompressed: more than the %d the protocol allows", counted.n, sitemap.MaxBytes))
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
	dec  *xml.Decoder
	what string // what a URL is called in messages: "<loc>", or "URL" in a text sitemap
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
			c.add(n, "empty line: a text sitemap holds one URL a line and nothing else")
			continue
		case !utf8.ValidString(line):
			c.add(n, "not UTF-8, which text sitemaps must be")
			continue
		}
		c.res.Entries++
		if c.res.Entries == sitemap.MaxItems+1 {
			c.add(n, fmt.Sprintf("more than %d URLs", sitemap.MaxItems))
		}
		c.loc(line, n)
	}
	if errors.Is(sc.Err(), bufio.ErrTooLong) {
		c.add(n+1, "a line of more than 1 MiB: not a text sitemap")
		return nil
	}
	if sc.Err() != nil {
		return sc.Err()
	}
	if c.res.Entries == 0 && len(c.res.Problems) == 0 {
		c.add(0, "a text sitemap needs at least one URL")
	}
	return nil
}

func (c *checker) add(line int, msg string) {
	c.res.Problems = append(c.res.Problems, Problem{c.name, line, msg})
}

func (c *checker) line() int {
	l, _ := c.dec.InputPos()
	return l
}

// entry is one <url> or <sitemap> being read.
type entry struct {
	line   int
	fields map[string]int // child element -> times seen
}

func (c *checker) run(dec *xml.Decoder) error {
	c.dec = dec
	var stack []xml.Name
	var cur *entry
	var text strings.Builder
	textLine := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				c.add(se.Line, "not well-formed XML: "+se.Msg)
				return nil
			}
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth := len(stack)
			stack = append(stack, t.Name)
			switch {
			case depth == 0:
				c.root(t)
			case depth == 1 && c.res.Kind != "":
				want := map[string]string{"urlset": "url", "sitemapindex": "sitemap"}[c.res.Kind]
				if t.Name.Local != want || t.Name.Space != c.ns {
					c.add(c.line(), fmt.Sprintf("<%s> in a %s: only <%s> belongs here", t.Name.Local, c.res.Kind, want))
					continue
				}
				c.res.Entries++
				if c.res.Entries == sitemap.MaxItems+1 {
					c.add(c.line(), fmt.Sprintf("more than %d entries", sitemap.MaxItems))
				}
				cur = &entry{line: c.line(), fields: map[string]int{}}
			case depth == 2 && cur != nil:
				if t.Name.Space == c.ns {
					cur.fields[t.Name.Local]++
				}
				if t.Name.Space == sitemap.XHTMLNamespace && t.Name.Local == "link" && c.res.Kind == "urlset" {
					c.alternate(t, c.line())
				}
				text.Reset()
				textLine = c.line()
			}
		case xml.CharData:
			if len(stack) == 3 {
				text.Write(t)
			}
		case xml.EndElement:
			depth := len(stack) - 1
			stack = stack[:depth]
			switch {
			case depth == 2 && cur != nil && t.Name.Space == c.ns:
				c.field(t.Name.Local, strings.TrimSpace(text.String()), textLine)
			case depth == 1 && cur != nil:
				if cur.fields["loc"] != 1 {
					c.add(cur.line, fmt.Sprintf("an entry needs exactly one <loc>, this one has %d", cur.fields["loc"]))
				}
				for _, f := range []string{"lastmod", "changefreq", "priority"} {
					if cur.fields[f] > 1 {
						c.add(cur.line, fmt.Sprintf("<%s> given %d times", f, cur.fields[f]))
					}
				}
				cur = nil
			}
		}
	}
	if c.res.Kind == "" && len(c.res.Problems) == 0 {
		c.add(0, "empty document")
	}
	if c.res.Kind != "" && c.res.Entries == 0 {
		c.add(0, fmt.Sprintf("a %s needs at least one entry", c.res.Kind))
	}
	return nil
}

func (c *checker) root(t xml.StartElement) {
	switch t.Name.Local {
	case "urlset", "sitemapindex":
		c.res.Kind = t.Name.Local
	default:
		c.add(c.line(), fmt.Sprintf("root element <%s>: a sitemap is a <urlset> or a <sitemapindex>", t.Name.Local))
		return
	}
	// A wrong namespace is one problem, not one per entry: the entries
	// are read in the root's namespace.
	c.ns = t.Name.Space
	if t.Name.Space != sitemap.Namespace {
		c.add(c.line(), fmt.Sprintf("namespace %q: want %q", t.Name.Space, sitemap.Namespace))
	}
}

func (c *checker) field(name, v string, line int) {
	switch name {
	case "loc":
		c.loc(v, line)
	case "lastmod":
		c.lastmod(v, line)
	case "changefreq":
		if c.res.Kind != "urlset" || !slices.Contains(config.ValidChangeFreqs, v) {
			c.add(line, fmt.Sprintf("<changefreq> %q: want one of %s", v, strings.Join(config.ValidChangeFreqs, ", ")))
		}
	case "priority":
		p, err := strconv.ParseFloat(v, 64)
		if c.res.Kind != "urlset" || err != nil || p < 0 || p > 1 || strings.ContainsAny(v, "eE") {
			c.add(line, fmt.Sprintf("<priority> %q: want a number from 0.0 to 1.0", v))
		}
	}
}

// uriChars are the characters a URL may hold unescaped (RFC 3986).
func uriChar(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' ||
		strings.IndexByte("-._~:/?#[]@!$&'()*+,;=%", b) >= 0
}

var pctRE = regexp.MustCompile(`%([^0-9A-Fa-f]|.[^0-9A-Fa-f]|.?$)`)

func (c *checker) loc(v string, line int) {
	if len(v) > sitemap.MaxLocLen {
		c.add(line, fmt.Sprintf("%s of %d characters: the protocol wants fewer than 2,048", c.what, len(v)))
	}
	for i := 0; i < len(v); i++ {
		if !uriChar(v[i]) {
			c.add(line, fmt.Sprintf("%s %q has a character that must be percent-encoded (%q)", c.what, v, v[i]))
			return
		}
	}
	if pctRE.MatchString(v) {
		c.add(line, fmt.Sprintf("%s %q has a '%%' that starts no %%XX escape", c.what, v))
		return
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		c.add(line, fmt.Sprintf("%s %q is not an absolute http or https URL", c.what, v))
		return
	}
	switch n := normHost(v); {
	case c.dir == "":
	case c.res.Kind != "sitemapindex" && !strings.HasPrefix(n, c.dir):
		c.add(line, fmt.Sprintf("%s %q is outside %s, where this sitemap lives: it may list URLs at or below its own directory only", c.what, v, c.dir))
	case c.res.Kind == "sitemapindex" && !strings.HasPrefix(n, c.site):
		c.add(line, fmt.Sprintf("%s %q is on another site than %s, where this index lives", c.what, v, c.site))
	}
}

// alternate checks an <xhtml:link> language alternate of a <url>.
func (c *checker) alternate(t xml.StartElement, line int) {
	attr := map[string]string{}
	for _, a := range t.Attr {
		if a.Name.Space == "" {
			attr[a.Name.Local] = a.Value
		}
	}
	if attr["rel"] != "alternate" {
		c.add(line, fmt.Sprintf(`<xhtml:link rel=%q>: a sitemap's alternates have rel="alternate"`, attr["rel"]))
	}
	if l := attr["hreflang"]; !head.ValidHreflang(l) {
		c.add(line, fmt.Sprintf("<xhtml:link hreflang=%q>: not a language tag nor x-default", l))
	}
	href := attr["href"]
	u, err := url.Parse(href)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		c.add(line, fmt.Sprintf("<xhtml:link href=%q>: not an absolute http or https URL", href))
	case len(href) > sitemap.MaxLocLen:
		c.add(line, fmt.Sprintf("<xhtml:link href> of %d characters: the protocol wants URLs of fewer than 2,048", len(href)))
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
		c.add(line, fmt.Sprintf("<lastmod> %q is not a W3C Datetime (e.g. 2026-11-22 or 2026-11-22T10:30:00Z)", v))
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
		c.add(line, fmt.Sprintf("<lastmod> %q is not a valid date", v))
		return
	}
	if t.After(c.opts.Now) {
		c.add(line, fmt.Sprintf("<lastmod> %s is in the future", v))
	}
}
