// Package head reads what the head of an HTML page says about listing it in
// a sitemap: robots meta tags (noindex), its canonical URL, its hreflang
// alternates, a meta refresh that sends the browser elsewhere at once
// (a redirect stub, as documentation generators write for moved pages),
// and when the page says it was last modified (Info.Modified, for its
// <lastmod>): an Open Graph article:modified_time or og:updated_time meta
// tag, or the dateModified of a schema.org JSON-LD block in the head, as
// Hugo, WordPress SEO plugins and Ghost write them; and whether the page is
// a news article, when it was published and its title (Info.Article, for
// a Google News sitemap).
//
// It reads heads as golang.org/x/net/html's tokenizer does, so comments,
// CDATA sections, raw text (script, style, title), character references
// and attributes in any order, case and quoting read as a browser reads
// them: a scanner of its own (fast.go) makes the decisions that the
// tokenizer-based reader (readTokenized, kept as its test oracle and for
// read errors) makes, at several times its speed. It stops where a
// browser's parser ends the head: at </head>, at <body> or any other
// element that cannot be in a head, at text that is not white space, and
// in any case after Limit bytes. An ordinary page costs a read of its
// first few kilobytes, not of the whole file; a head of hundreds of
// kilobytes of inline style or script is read to its end, and the memory
// that takes grows with the head, not with Limit.
package head

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"time"
)

// Limit is the most bytes of a page read: a browser reads the whole head,
// however long its inline styles and scripts, and so does Read, up to
// here. A head longer than this is read up to here only: tags past it are
// not seen, and Info.Truncated says so. Only what is read is held: an
// ordinary page's few kilobytes of head cost the same whatever Limit is.
const Limit = 1 << 20

// Info is what a page's head says.
type Info struct {
	// NoIndex: a robots or googlebot meta tag says noindex (or none).
	NoIndex bool
	// Canonicals are the distinct absolute URLs that the page's
	// rel=canonical links name, in document order, without fragments.
	// More than one means the page contradicts itself.
	Canonicals []string
	// Alternates are the page's hreflang alternates
	// (<link rel="alternate" hreflang=… href=…>), absolute, without
	// duplicates, in document order.
	Alternates []Alternate
	// Redirect is where a meta refresh in the head sends a browser at
	// once (http-equiv="refresh" with a delay of 0 or 1 seconds and a
	// URL): an absolute http(s) URL, without fragment, resolved against
	// the page's URL or the <base href> before it. Such a page is a
	// redirect stub, not a page to list. "" when there is none, when the
	// delay is longer, when the refresh has no URL (a reload), or when its
	// URL is the page itself. The content attribute is read by the HTML
	// Living Standard's shared declarative refresh steps, and as there,
	// only the first meta refresh that parses counts.
	Redirect string
	// Modified is when the page says it was last modified, in UTC; zero
	// when its head says nothing usable. It comes from the first of these
	// sources that the head has and whose value is a usable date:
	//
	//  1. the first <meta property="article:modified_time" content=…>
	//     (Open Graph's article, as Hugo's opengraph template, Yoast SEO
	//     and Ghost write it),
	//  2. the first <meta property="og:updated_time" content=…>,
	//  3. the dateModified of a schema.org node in a
	//     <script type="application/ld+json"> of the head: a top-level
	//     object, an object of a top-level array, or a node of an
	//     "@graph" array (Yoast SEO's form). The first node whose "url"
	//     or "@id", without fragment, is the page's URL counts; if none
	//     is, the first node that has a dateModified. A dateModified
	//     that is an array counts by its first element.
	//
	// The meta tags match by property or name, in any case, as the robots
	// meta's name does; one with an empty content is not there. A usable
	// date is a W3C Datetime (https://www.w3.org/TR/NOTE-datetime), the
	// form sitemaps and schema.org use: YYYY, YYYY-MM, YYYY-MM-DD (the
	// first instant of that year, month or day in UTC), or a date and a
	// time to the minute, second or fraction of a second with a time
	// zone: Z, ±hh:mm or ±hhmm. A time without a zone is not usable (the
	// instant is unknown). A source whose value is not usable adds a
	// problem and the next one is tried. A date in the future is
	// returned as it is: whether to believe it is the caller's call.
	Modified time.Time
	// Article is what the head says of the page as a news article
	// (Article); its Published is zero when it says it is none.
	Article Article
	// Truncated: the head did not end within Limit bytes.
	Truncated bool
	// Problems are links (and a meta refresh's URL) that were left out
	// and why, modification dates that could not be used, and JSON-LD
	// that is not JSON, for the caller to report with the page's name.
	Problems []string
}

// Alternate is one language version of a page.
type Alternate struct {
	Lang string // a language tag, or x-default
	Href string // absolute URL
}

// robotsNames are the meta names whose noindex keeps a page out. googlebot
// is there because a page Google must not index is one the sitemap must
// not offer Google, and the sitemap is the same for every engine.
var robotsNames = []string{"robots", "googlebot"}

// inHead are the elements a head may hold; any other ends it.
var inHead = map[string]bool{
	"html": true, "head": true, "title": true, "base": true, "basefont": true,
	"bgsound": true, "link": true, "meta": true, "noframes": true,
	"noscript": true, "script": true, "style": true, "template": true,
}

// rawText are the elements whose content the tokenizer returns as one text
// token (x/net/html's list): their text is not page text.
var rawText = map[string]bool{
	"iframe": true, "noembed": true, "noframes": true, "noscript": true, "plaintext": true,
	"script": true, "style": true, "textarea": true, "title": true, "xmp": true,
}

// ValidHreflang reports whether an hreflang value is one a sitemap's
// xhtml:link may carry: a language tag, or x-default. A language tag is
// XML Schema's xs:language, the type of hreflang in the XHTML schema that
// sitemap xhtml:link entries validate against: [a-zA-Z]{1,8} then any
// number of -[a-zA-Z0-9]{1,8}.
func ValidHreflang(v string) bool {
	if strings.EqualFold(v, "x-default") {
		return true
	}
	n := 0 // bytes in the current subtag
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case isLetter(c) || '0' <= c && c <= '9' && i > n:
			if n++; n > 8 {
				return false
			}
		case c == '-' && n > 0:
			n = 0
		default:
			return false
		}
	}
	return n > 0
}

const htmlSpace = " \t\n\f\r"

// Read reads a page's head. pageURL is the absolute URL the page is served
// at, against which relative links resolve (or against the head's <base
// href>), and which a JSON-LD node's "url" or "@id" must name to be the
// page's; it is parsed only if the head has links or such nodes. Only an
// error reading r is returned: HTML is never malformed to a tokenizer.
//
// r is read in pieces of 4 KiB, then of twice as much as was read, until
// the head ends: a page costs a read of its first few kilobytes, not of
// the whole file.
func Read(r io.Reader, pageURL string) (Info, error) {
	f := newFast()
	defer f.free()
	return f.read(r, pageURL, f.buf[:0])
}

// read is Read, reading r first into buf (empty), as far as its capacity.
func (f *fast) read(r io.Reader, pageURL string, buf []byte) (Info, error) {
	lr := &io.LimitedReader{R: r, N: Limit}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, make([]byte, min(max(cap(buf), 1), Limit-len(buf)))...)[:len(buf)]
			f.buf = buf
		}
		// Fill the buffer: a head read again from its last token
		// start at each read would cost the square of its length.
		var err error
		for err == nil && len(buf) < cap(buf) {
			var n int
			n, err = readAtLeastOneByte(lr, buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
		}
		if err != nil && err != io.EOF {
			// Where the error cuts the page, and whether the
			// tokenizer gets there, is the tokenizer's to say.
			return readTokenized(io.MultiReader(bytes.NewReader(buf), errReader{err}), pageURL)
		}
		// At Limit, the next read would say io.EOF.
		f.src, f.eof = buf, err == io.EOF || lr.N == 0
		switch f.run() {
		case ended:
			return f.c.finish(pageURL)
		case atEOF:
			f.c.info.Truncated = lr.N == 0
			return f.c.finish(pageURL)
		}
	}
}

// readAtLeastOneByte reads as the tokenizer does: an io.Reader that reads
// nothing 100 times in a row without an error is not making progress.
func readAtLeastOneByte(r io.Reader, b []byte) (int, error) {
	for range 100 {
		if n, err := r.Read(b); n != 0 || err != nil {
			return n, err
		}
	}
	return 0, io.ErrNoProgress
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// fastPool holds scanners and their buffers for Read and ReadBytes.
var fastPool = sync.Pool{New: func() any { return &fast{buf: make([]byte, 0, 4<<10)} }}

func newFast() *fast {
	f := fastPool.Get().(*fast)
	*f = fast{buf: f.buf[:0], attrs: f.attrs[:0]}
	return f
}

// free returns f to the pool, with a buffer of some kilobytes at most.
func (f *fast) free() {
	if cap(f.buf) > 64<<10 {
		f.buf = make([]byte, 0, 4<<10)
	}
	f.src, f.c = nil, collected{}
	fastPool.Put(f)
}

// ReadBytes is Read for a whole page already in memory. A page shorter
// than Limit in which no "<meta", "<link", "<base" or "<script" appears
// (in any case) can have none of those elements, whatever else it holds:
// it is not read at all.
func ReadBytes(page []byte, pageURL string) (Info, error) {
	if len(page) < Limit && !mentions(page) {
		return Info{}, nil
	}
	f := newFast()
	defer f.free()
	f.src, f.eof = page[:min(len(page), Limit)], true
	if f.run() == atEOF {
		f.c.info.Truncated = len(page) >= Limit
	}
	return f.c.finish(pageURL)
}

// mentions reports whether b holds "<" followed by meta, link, base or
// scri(pt), in any case: the only elements whose presence Read looks for
// (robots, refresh and date metas, canonical and alternate links, the base
// URL, JSON-LD scripts).
func mentions(b []byte) bool {
	for {
		i := bytes.IndexByte(b, '<')
		if i < 0 || len(b)-i < 5 {
			return false
		}
		var name [4]byte
		for j := range name {
			name[j] = b[i+1+j] | 0x20 // lower case, for letters
		}
		switch string(name[:]) {
		case "meta", "link", "base", "scri":
			return true
		}
		b = b[i+1:]
	}
}
