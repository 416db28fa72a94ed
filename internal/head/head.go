// Package head reads what the head of an HTML page says about listing it in
// a sitemap: robots meta tags (noindex), its canonical URL, its hreflang
// alternates, and a meta refresh that sends the browser elsewhere at once
// (a redirect stub, as documentation generators write for moved pages).
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
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strings"

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
	// Truncated: the head did not end within Limit bytes.
	Truncated bool
	// Problems are links (and a meta refresh's URL) that were left out
	// and why, for the caller to report with the page's name.
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
// "<meta", "<link" or "<base" appears (in any case) can have none of those
// elements, whatever else it holds: it is not tokenized at all.
func ReadBytes(page []byte, pageURL string) (Info, error) {
	if !mentions(page) {
		return Info{}, nil
	}
	return Read(bytes.NewReader(page), pageURL)
}

// mentions reports whether b holds "<" followed by meta, link or base, in
// any case: the only elements whose presence Read looks for (robots and
// refresh metas, canonical and alternate links, the base URL).
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
		case "meta", "link", "base":
			return true
		}
		b = b[i+1:]
	}
}

// Read reads a page's head. pageURL is the absolute URL the page is served
// at, against which relative links resolve (or against the head's <base
// href>); it is parsed only if the head has links. Only an error reading r
// is returned: HTML is never malformed to a tokenizer.
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
	)
loop:
	for {
		tt := z.Next()
		wasRaw := raw
		raw = false
		switch tt {
		case html.ErrorToken:
			if err := z.Err(); !errors.Is(err, io.EOF) {
				return Info{}, err
			}
			info.Truncated = lr.N == 0
			break loop
		case html.TextToken:
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
			if !hasAttr || (tag != "meta" && tag != "link" && tag != "base") {
				continue
			}
			a := readAttrs(z)
			switch tag {
			case "meta":
				if slices.ContainsFunc(robotsNames, func(n string) bool { return strings.EqualFold(strings.Trim(a.name, htmlSpace), n) }) {
					info.NoIndex = info.NoIndex || noindex(a.content)
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

	if !hasBase && len(canon) == 0 && len(alts) == 0 && !toRedirect {
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
}

const (
	hasName = 1 << iota
	hasContent
	hasRel
	hasHref
	hasHreflang
	hasHTTPEquiv
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
		default:
			continue
		}
		if a.has&bit == 0 {
			*dst, a.has = string(v), a.has|bit
		}
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
