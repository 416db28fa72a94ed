// Package head reads what the head of an HTML page says about listing it in
// a sitemap: robots meta tags (noindex), its canonical URL, its hreflang
// alternates, a meta refresh that sends the browser elsewhere at once
// (a redirect stub, as documentation generators write for moved pages),
// and when the page says it was last modified (Info.Modified, for its
// <lastmod>): an Open Graph article:modified_time or og:updated_time meta
// tag, or the dateModified of a schema.org JSON-LD block in the head, as
// Hugo, WordPress SEO plugins and Ghost write them.
//
// It tokenizes with golang.org/x/net/html, so comments, CDATA sections,
// raw text (script, style, title), character references and attributes in
// any order, case and quoting read as a browser reads them. It stops where
// a browser's parser ends the head: at </head>, at <body> or any other
// element that cannot be in a head, at text that is not white space, and in
// any case after Limit bytes. An ordinary page costs a read of its first few
// kilobytes, not of the whole file; a head of hundreds of kilobytes of
// inline style or script is read to its end, and the memory that takes
// grows with its longest element, not with Limit.
package head

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// Limit is the most bytes of a page read: a browser reads the whole head,
// however long its inline styles and scripts, and so does Read, up to
// here. A head longer than this is read up to here only: tags past it are
// not seen, and Info.Truncated says so. Only what is read is held, and
// only a token at a time: an ordinary page's few kilobytes of head cost
// the same whatever Limit is.
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

// langTag is XML Schema's xs:language, the type of hreflang in the XHTML
// schema that sitemap xhtml:link entries validate against.
var langTag = regexp.MustCompile(`^[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*$`)

// ValidHreflang reports whether an hreflang value is one a sitemap's
// xhtml:link may carry: a language tag, or x-default.
func ValidHreflang(v string) bool {
	return langTag.MatchString(v) || strings.EqualFold(v, "x-default")
}

const htmlSpace = " \t\n\f\r"

// ReadBytes is Read for a whole page already in memory. A page in which no
// "<meta", "<link", "<base" or "<script" appears (in any case) can have
// none of those elements, whatever else it holds: it is not tokenized at
// all.
func ReadBytes(page []byte, pageURL string) (Info, error) {
	if !mentions(page) {
		return Info{}, nil
	}
	return Read(bytes.NewReader(page), pageURL)
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

// Read reads a page's head. pageURL is the absolute URL the page is served
// at, against which relative links resolve (or against the head's <base
// href>), and which a JSON-LD node's "url" or "@id" must name to be the
// page's; it is parsed only if the head has links or such nodes. Only an
// error reading r is returned: HTML is never malformed to a tokenizer.
func Read(r io.Reader, pageURL string) (Info, error) {
	lr := &io.LimitedReader{R: r, N: Limit}
	z := html.NewTokenizer(lr)
	var (
		info     Info
		base     string
		hasBase  bool
		canon    []string
		alts     []Alternate
		raw      bool   // the next text token is a raw text element's content
		rawTag   string // that element
		template int    // depth of <template>, whose content is inert
		started  bool   // a token other than white space was seen
		// The first meta refresh that parses: refreshed is set by it, as
		// a browser's "will declaratively refresh", and later ones are
		// ignored. redirect is its URL, unresolved, if it is one to
		// follow at once; afterBase says whether a <base href> came
		// before it (a browser resolves the URL as the element is
		// inserted, against the base URL of that moment).
		refreshed, toRedirect, afterBase bool
		redirect                         string
		// The modification dates: the first non-empty content of each
		// date meta (by dateMetas), and the JSON-LD nodes that have a
		// dateModified, in document order. ldScript says the next text
		// token is a JSON-LD script's content.
		dated    [len(dateMetas)]string
		ld       []ldNode
		ldScript bool
	)
loop:
	for {
		tt := z.Next()
		wasRaw, wasLD := raw, ldScript
		raw, ldScript = false, false
		switch tt {
		case html.ErrorToken:
			if err := z.Err(); !errors.Is(err, io.EOF) {
				return Info{}, err
			}
			info.Truncated = lr.N == 0
			break loop
		case html.TextToken:
			if wasLD {
				var err error
				if ld, err = readLD(z.Raw(), ld); err != nil {
					info.Problems = append(info.Problems, fmt.Sprintf("JSON-LD script ignored: %v", err))
				}
			}
			if wasRaw && rawTag == "noscript" && template == 0 && !refreshed {
				// What a browser without scripts reads: a redirect stub
				// for it is one for crawlers that run no scripts, and
				// the ones that do meet a script sending them the same
				// way (sphinx-reredirects writes both).
				if delay, u, hasURL, ok := noscriptRefresh(z.Raw()); ok {
					refreshed = true
					if delay <= 1 && hasURL {
						toRedirect, redirect, afterBase = true, u, hasBase
					}
				}
			}
			if wasRaw || template > 0 {
				continue
			}
			text := z.Raw()
			if !started {
				text = bytes.TrimPrefix(text, []byte("\uFEFF")) // a byte order mark is not text
			}
			if len(bytes.Trim(text, htmlSpace)) > 0 {
				break loop // text starts the body
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			started = true
			name, hasAttr := z.TagName()
			tag := string(name)
			raw, rawTag = tt == html.StartTagToken && rawText[tag], tag
			if template > 0 {
				if tag == "template" && tt == html.StartTagToken {
					template++
				}
				continue
			}
			if !inHead[tag] {
				break loop
			}
			if tag == "template" && tt == html.StartTagToken {
				template++
				continue
			}
			if raw && tag == "script" && hasAttr {
				ldScript = isLDScript(z)
				continue
			}
			if !hasAttr || (tag != "meta" && tag != "link" && tag != "base") {
				continue
			}
			a := readAttrs(z)
			switch tag {
			case "meta":
				if slices.ContainsFunc(robotsNames, func(n string) bool { return strings.EqualFold(strings.Trim(a.name, htmlSpace), n) }) {
					info.NoIndex = info.NoIndex || noindex(a.content)
				}
				if a.dateMeta > 0 {
					if i := a.dateMeta - 1; dated[i] == "" {
						dated[i] = strings.Trim(a.content, htmlSpace)
					}
				}
				// http-equiv is an enumerated attribute: its keyword
				// matches in any case, but without trimming.
				if !refreshed && a.has&hasHTTPEquiv != 0 && strings.EqualFold(a.httpEquiv, "refresh") {
					if delay, u, hasURL, ok := parseRefresh(a.content); ok {
						refreshed = true
						if delay <= 1 && hasURL {
							toRedirect, redirect, afterBase = true, u, hasBase
						}
					}
				}
			case "base":
				if a.has&hasHref != 0 && !hasBase {
					base, hasBase = a.href, true
				}
			case "link":
				if a.has&hasHref == 0 {
					continue
				}
				rel := strings.Fields(strings.ToLower(a.rel))
				if slices.Contains(rel, "canonical") {
					canon = append(canon, a.href)
				}
				if a.has&hasHreflang != 0 && slices.Contains(rel, "alternate") {
					alts = append(alts, Alternate{Lang: strings.Trim(a.hreflang, htmlSpace), Href: a.href})
				}
			}
		case html.EndTagToken:
			started = true
			name, _ := z.TagName()
			switch string(name) {
			case "template":
				template = max(template-1, 0)
			case "head", "body", "html":
				if template == 0 {
					break loop
				}
			}
		default: // comments, doctype
			started = true
		}
	}

	// The modification date, from the metas if one is usable.
	for i, v := range dated {
		if v != "" && info.setModified(dateMetas[i], v) {
			break
		}
	}
	// JSON-LD nodes that name a page have to be matched with this one.
	ldMatch := info.Modified.IsZero() && slices.ContainsFunc(ld, func(n ldNode) bool { return len(n.ids) > 0 })
	if info.Modified.IsZero() && len(ld) > 0 && !ldMatch {
		ld[0].setModified(&info)
	}

	if !hasBase && len(canon) == 0 && len(alts) == 0 && !toRedirect && !ldMatch {
		return info, nil
	}
	doc, err := url.Parse(pageURL)
	if err != nil {
		return Info{}, fmt.Errorf("page URL %q: %w", pageURL, err)
	}
	page := doc
	if hasBase {
		// The document's base URL: relative links resolve against it.
		if b, err := resolve(page, base); err == nil {
			page = b
		} else {
			info.Problems = append(info.Problems, fmt.Sprintf("<base href=%q> ignored: %v", base, err))
		}
	}
	if ldMatch {
		// The node about this page, or else the first. The document's
		// base URL is JSON-LD's base.
		n := ld[0]
		for _, m := range ld {
			if slices.ContainsFunc(m.ids, func(id string) bool {
				u, err := resolve(page, id)
				return err == nil && samePage(u, doc)
			}) {
				n = m
				break
			}
		}
		n.setModified(&info)
	}
	if toRedirect && clean(redirect) != "" { // an empty URL is the page itself
		against := doc
		if afterBase {
			against = page
		}
		if u, err := resolve(against, redirect); err != nil {
			info.Problems = append(info.Problems, fmt.Sprintf("meta refresh to %q ignored: %v", redirect, err))
		} else if !samePage(u, doc) {
			info.Redirect = u.String()
		}
	}
	for _, href := range canon {
		u, err := resolve(page, href)
		if err != nil {
			info.Problems = append(info.Problems, fmt.Sprintf("canonical link %q ignored: %v", href, err))
			continue
		}
		if s := u.String(); !slices.Contains(info.Canonicals, s) {
			info.Canonicals = append(info.Canonicals, s)
		}
	}
	for _, a := range alts {
		if !ValidHreflang(a.Lang) {
			info.Problems = append(info.Problems, fmt.Sprintf("hreflang %q ignored: not a language tag", a.Lang))
			continue
		}
		u, err := resolve(page, a.Href)
		if err != nil {
			info.Problems = append(info.Problems, fmt.Sprintf("hreflang %q link %q ignored: %v", a.Lang, a.Href, err))
			continue
		}
		alt := Alternate{Lang: a.Lang, Href: u.String()}
		if !slices.Contains(info.Alternates, alt) {
			info.Alternates = append(info.Alternates, alt)
		}
	}
	return info, nil
}

// tagAttrs are the attributes of meta, link and base tags that matter.
type tagAttrs struct {
	name, content, rel, href, hreflang, httpEquiv string
	has                                           uint8 // which were present
	// dateMeta is 1 + the index in dateMetas of the date meta that the
	// property, or else the name, says the tag is; 0 if none.
	dateMeta int
	property int // the same, by the property attribute alone
}

const (
	hasName = 1 << iota
	hasContent
	hasRel
	hasHref
	hasHreflang
	hasHTTPEquiv
	hasProperty
)

// readAttrs reads a tag's attributes; the first of a repeated one wins, as
// in a browser. Keys come lower-cased from the tokenizer, values with
// character references decoded; only the values wanted are copied.
func readAttrs(z *html.Tokenizer) tagAttrs {
	var a tagAttrs
	for more := true; more; {
		var k, v []byte
		k, v, more = z.TagAttr()
		var dst *string
		var bit uint8
		switch string(k) {
		case "name":
			dst, bit = &a.name, hasName
		case "content":
			dst, bit = &a.content, hasContent
		case "rel":
			dst, bit = &a.rel, hasRel
		case "href":
			dst, bit = &a.href, hasHref
		case "hreflang":
			dst, bit = &a.hreflang, hasHreflang
		case "http-equiv":
			dst, bit = &a.httpEquiv, hasHTTPEquiv
		case "property":
			// Only compared, not copied: most are og:title and such.
			if a.has&hasProperty == 0 {
				a.property, a.has = dateMeta(v), a.has|hasProperty
			}
			continue
		default:
			continue
		}
		if a.has&bit == 0 {
			*dst, a.has = string(v), a.has|bit
		}
	}
	a.dateMeta = a.property
	if a.dateMeta == 0 {
		a.dateMeta = dateMetaName(a.name)
	}
	if a.has&hasContent == 0 {
		a.dateMeta = 0
	}
	return a
}

// noindex reads a robots meta content: comma-separated directives, any
// case. "none" is noindex plus nofollow.
func noindex(content string) bool {
	for d := range strings.SplitSeq(content, ",") {
		switch strings.ToLower(strings.Trim(d, htmlSpace)) {
		case "noindex", "none":
			return true
		}
	}
	return false
}

// resolve makes a link absolute against base, the way a browser's URL
// parser does (control characters and spaces stripped from either end,
// tabs and newlines from anywhere), and accepts only http and https URLs
// with a host. The fragment goes: it names a part of the page, not
// another page.
func resolve(base *url.URL, href string) (*url.URL, error) {
	href = clean(href)
	if href == "" {
		return nil, errors.New("empty")
	}
	u, err := base.Parse(href)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, errors.New("not an http(s) URL")
	}
	u.Fragment, u.RawFragment = "", ""
	return u, nil
}

// clean strips what a browser's URL parser does from a URL string before
// it parses it.
func clean(href string) string {
	href = strings.TrimFunc(href, func(r rune) bool { return r <= ' ' })
	if strings.ContainsAny(href, "\t\n\r") {
		href = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, href)
	}
	return href
}

// samePage reports whether u, absolute and without fragment, names the
// page at doc: the same scheme and host (in any case, with or without the
// scheme's default port), path and query.
func samePage(u, doc *url.URL) bool {
	key := func(u *url.URL) string {
		scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Host)
		switch {
		case scheme == "http":
			host = strings.TrimSuffix(host, ":80")
		case scheme == "https":
			host = strings.TrimSuffix(host, ":443")
		}
		p := u.Path
		if p == "" {
			p = "/"
		}
		if u.RawQuery != "" || u.ForceQuery {
			p += "?" + u.RawQuery
		}
		return scheme + "://" + host + p
	}
	return key(u) == key(doc)
}

// noscriptRefresh finds the first meta refresh that parses in a <noscript>
// element's content, as a browser without scripts parses it.
func noscriptRefresh(content []byte) (delay int, url string, hasURL, ok bool) {
	z := html.NewTokenizer(bytes.NewReader(content))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return 0, "", false, false
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if string(name) != "meta" || !hasAttr {
				continue
			}
			a := readAttrs(z)
			if a.has&hasHTTPEquiv != 0 && strings.EqualFold(a.httpEquiv, "refresh") {
				if delay, url, hasURL, ok = parseRefresh(a.content); ok {
					return delay, url, hasURL, ok
				}
			}
		}
	}
}

// parseRefresh reads a meta refresh's content attribute by the HTML
// Living Standard's shared declarative refresh steps
// (https://html.spec.whatwg.org/multipage/semantics.html#shared-declarative-refresh-steps).
// ok is false where a browser ignores the element. Otherwise delay is the
// whole seconds to wait (a fraction is ignored; a huge number saturates),
// and, when hasURL, url is where to go, as written: to be resolved against
// the page, which is also where a refresh without a URL goes (a reload).
func parseRefresh(s string) (delay int, url string, hasURL, ok bool) {
	isSpace := func(c byte) bool { return strings.IndexByte(htmlSpace, c) >= 0 }
	isDigit := func(c byte) bool { return '0' <= c && c <= '9' }
	i := 0
	skipSpace := func() {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
	}
	skipSpace()
	// The delay: digits, or none before a '.'; then any digits and
	// dots, ignored.
	start := i
	for i < len(s) && isDigit(s[i]) {
		if delay < math.MaxInt32/10 {
			delay = delay*10 + int(s[i]-'0')
		} else {
			delay = math.MaxInt32
		}
		i++
	}
	if i == start && (i == len(s) || s[i] != '.') {
		return 0, "", false, false
	}
	for i < len(s) && (isDigit(s[i]) || s[i] == '.') {
		i++
	}
	// A separator: white space, a ';' or ',', or both.
	if i < len(s) {
		if c := s[i]; c != ';' && c != ',' && !isSpace(c) {
			return 0, "", false, false
		}
		skipSpace()
		if i < len(s) && (s[i] == ';' || s[i] == ',') {
			i++
		}
		skipSpace()
	}
	if i == len(s) {
		return delay, "", false, true
	}
	// The URL, after an optional "URL =" in any case, and in quotes or
	// not. A "U" that does not begin "URL =" begins the URL itself.
	rest := s[i:]
	if c := s[i] | 0x20; c == 'u' {
		if i+2 >= len(s) || s[i+1]|0x20 != 'r' || s[i+2]|0x20 != 'l' {
			return delay, rest, true, true
		}
		i += 3
		skipSpace()
		if i == len(s) || s[i] != '=' {
			return delay, rest, true, true
		}
		i++
		skipSpace()
	}
	if i < len(s) && (s[i] == '\'' || s[i] == '"') {
		q := s[i]
		url = s[i+1:]
		if j := strings.IndexByte(url, q); j >= 0 {
			url = url[:j]
		}
		return delay, url, true, true
	}
	return delay, s[i:], true, true
}

// dateMetas are the meta properties that say when a page was last
// modified, first the one that counts first.
var dateMetas = [...]string{"article:modified_time", "og:updated_time"}

// dateMeta is 1 + the index in dateMetas of a property attribute's value,
// in any case and between any white space, or 0 if it is none of them.
func dateMeta(v []byte) int {
	v = bytes.Trim(v, htmlSpace)
	for i, m := range dateMetas {
		if bytes.EqualFold(v, []byte(m)) {
			return i + 1
		}
	}
	return 0
}

// dateMetaName is dateMeta for a name attribute's value.
func dateMetaName(v string) int {
	v = strings.Trim(v, htmlSpace)
	for i, m := range dateMetas {
		if strings.EqualFold(v, m) {
			return i + 1
		}
	}
	return 0
}

// setModified sets Modified from the value v of a source if it is a usable
// date, or else adds a problem, and reports whether it did.
func (info *Info) setModified(source, v string) bool {
	t, err := parseDate(v)
	if err != nil {
		info.Problems = append(info.Problems, fmt.Sprintf("%s %q %v", source, clip(v), err))
		return false
	}
	info.Modified = t
	return true
}

// clip cuts a value quoted in a problem to a readable length.
func clip(v string) string {
	const most = 64
	if len(v) <= most {
		return v
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return v[:cut] + "…"
}

// isLDScript reads a script start tag's attributes and reports whether its
// type is JSON-LD's media type: in any case, between any white space, with
// or without parameters. The first type attribute counts, as in a browser.
// A tag without "type" in it (an attribute's name is never escaped) has no
// type attribute: its attributes are not read, which costs allocations.
func isLDScript(z *html.Tokenizer) bool {
	raw := z.Raw()
	for i := 0; ; i++ {
		if i+4 > len(raw) {
			return false
		}
		if raw[i]|0x20 == 't' && raw[i+1]|0x20 == 'y' && raw[i+2]|0x20 == 'p' && raw[i+3]|0x20 == 'e' {
			break
		}
	}
	for more := true; more; {
		var k, v []byte
		k, v, more = z.TagAttr()
		if string(k) == "type" {
			if i := bytes.IndexByte(v, ';'); i >= 0 {
				v = v[:i]
			}
			return bytes.EqualFold(bytes.Trim(v, htmlSpace), []byte("application/ld+json"))
		}
	}
	return false
}

// ldNode is a JSON-LD node with a dateModified.
type ldNode struct {
	ids  []string // its "url" and "@id" strings, as written
	date string   // its dateModified, if str; else the JSON of it
	str  bool
}

// setModified sets info.Modified from the node's dateModified, or adds a
// problem.
func (n ldNode) setModified(info *Info) {
	if !n.str {
		info.Problems = append(info.Problems, fmt.Sprintf("JSON-LD dateModified %s is not a string", clip(n.date)))
		return
	}
	info.setModified("JSON-LD dateModified", n.date)
}

// readLD appends to nodes those of a JSON-LD script that have a
// dateModified: the script's top-level object, or the objects of its
// top-level array, each followed by the objects of its "@graph". It
// returns an error only for a script that is not JSON; an empty one is
// not an error.
func readLD(src []byte, nodes []ldNode) ([]ldNode, error) {
	src = bytes.Trim(src, " \t\n\r")
	if len(src) == 0 {
		return nodes, nil
	}
	if src[0] != '{' && src[0] != '[' {
		if !json.Valid(src) {
			var v any
			return nodes, json.Unmarshal(src, &v) // for the error's text
		}
		return nodes, nil // a string, a number: no node
	}
	var err error
	nodes, err = ldObjects(src, nodes, true)
	return nodes, err
}

// ldObjects appends the nodes of an object or of an array's objects, and
// if graph, those of their "@graph".
func ldObjects(src []byte, nodes []ldNode, graph bool) ([]ldNode, error) {
	var objs []json.RawMessage
	if len(src) > 0 && src[0] == '[' {
		if err := json.Unmarshal(src, &objs); err != nil {
			return nodes, err
		}
	} else {
		objs = []json.RawMessage{src}
	}
	for _, o := range objs {
		// JSON-LD's keys are case-sensitive; encoding/json's field
		// matching is not: a map.
		var m map[string]json.RawMessage
		if err := json.Unmarshal(o, &m); err != nil {
			var syntax *json.SyntaxError
			if errors.As(err, &syntax) {
				return nodes, err
			}
			continue // not an object
		}
		if n, ok := ldDate(m); ok {
			for _, k := range []string{"url", "@id"} {
				var id string
				if json.Unmarshal(m[k], &id) == nil {
					n.ids = append(n.ids, id)
				}
			}
			nodes = append(nodes, n)
		}
		if g, ok := m["@graph"]; ok && graph {
			g = bytes.TrimLeft(g, " \t\n\r")
			if len(g) > 0 && (g[0] == '[' || g[0] == '{') {
				nodes, _ = ldObjects(g, nodes, false) // valid JSON already
			}
		}
	}
	return nodes, nil
}

// ldDate reads a node's dateModified: a string, or an array whose first
// element is one. Null, an empty string and an empty array are none.
func ldDate(m map[string]json.RawMessage) (ldNode, bool) {
	raw, ok := m["dateModified"]
	if !ok {
		return ldNode{}, false
	}
	raw = bytes.Trim(raw, " \t\n\r")
	var arr []json.RawMessage
	if json.Unmarshal(raw, &arr) == nil {
		if len(arr) == 0 {
			return ldNode{}, false
		}
		raw = bytes.Trim(arr[0], " \t\n\r")
	}
	var s string
	switch {
	case string(raw) == "null":
		return ldNode{}, false
	case json.Unmarshal(raw, &s) == nil:
		if strings.Trim(s, htmlSpace) == "" {
			return ldNode{}, false
		}
		return ldNode{date: s, str: true}, true
	}
	return ldNode{date: string(raw)}, true
}

// errNoZone is parseDate's error for a time without a time zone.
var errNoZone = errors.New("has no time zone")

// errNotDate is parseDate's error for anything else it cannot use.
var errNotDate = errors.New("is not a W3C date")

// parseDate parses a W3C Datetime (https://www.w3.org/TR/NOTE-datetime),
// the profile of ISO 8601 that sitemaps and schema.org use, and returns
// the instant in UTC: YYYY, YYYY-MM and YYYY-MM-DD are the first instant
// of that year, month or day in UTC; YYYY-MM-DDThh:mm, …:ss and …:ss.s…
// (any number of digits; past nanoseconds, truncated) need a time zone,
// Z, ±hh:mm or ±hhmm (the form PHP's DATE_ISO8601 writes), with hh up to
// 23. The value is trimmed of white space first. It allocates nothing.
func parseDate(s string) (time.Time, error) {
	s = strings.Trim(s, htmlSpace)
	num := func(s string) (int, bool) {
		n := 0
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return 0, false
			}
			n = n*10 + int(s[i]-'0')
		}
		return n, len(s) > 0
	}
	field := func(i, n, lo, hi int) (int, bool) {
		if len(s) < i+n {
			return 0, false
		}
		v, ok := num(s[i : i+n])
		return v, ok && lo <= v && v <= hi
	}
	year, ok := field(0, 4, 0, 9999)
	if !ok {
		return time.Time{}, errNotDate
	}
	if len(s) == 4 {
		return time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC), nil
	}
	month, ok := field(5, 2, 1, 12)
	if !ok || s[4] != '-' {
		return time.Time{}, errNotDate
	}
	if len(s) == 7 {
		return time.Date(year, time.Month(month), 1, 0, 0, 0, 0, time.UTC), nil
	}
	// The last day of the month: the day before the first of the next.
	days := time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
	day, ok := field(8, 2, 1, days)
	if !ok || s[7] != '-' {
		return time.Time{}, errNotDate
	}
	if len(s) == 10 {
		return time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC), nil
	}
	hour, ok1 := field(11, 2, 0, 23)
	minute, ok2 := field(14, 2, 0, 59)
	if !ok1 || !ok2 || s[10] != 'T' || s[13] != ':' {
		return time.Time{}, errNotDate
	}
	rest := s[16:]
	var sec, nsec int
	if len(rest) > 0 && rest[0] == ':' {
		if sec, ok = field(17, 2, 0, 59); !ok {
			return time.Time{}, errNotDate
		}
		rest = rest[3:]
		if len(rest) > 0 && rest[0] == '.' {
			i := 1
			for i < len(rest) && '0' <= rest[i] && rest[i] <= '9' {
				if i <= 9 {
					nsec = nsec*10 + int(rest[i]-'0')
				}
				i++
			}
			if i == 1 {
				return time.Time{}, errNotDate
			}
			for d := min(i-1, 9); d < 9; d++ {
				nsec *= 10
			}
			rest = rest[i:]
		}
	}
	var offset int // seconds east of UTC
	switch {
	case rest == "":
		return time.Time{}, errNoZone
	case rest == "Z":
	case len(rest) == 6 && rest[3] == ':' || len(rest) == 5:
		if rest[0] != '+' && rest[0] != '-' {
			return time.Time{}, errNotDate
		}
		mm := rest[len(rest)-2:]
		h, ok1 := num(rest[1:3])
		m, ok2 := num(mm)
		if !ok1 || !ok2 || h > 23 || m > 59 {
			return time.Time{}, errNotDate
		}
		offset = (h*60 + m) * 60
		if rest[0] == '-' {
			offset = -offset
		}
	default:
		return time.Time{}, errNotDate
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC)
	return t.Add(-time.Duration(offset) * time.Second), nil
}
