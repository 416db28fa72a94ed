// Package head reads what the head of an HTML page says about listing it in
// a sitemap: robots meta tags (noindex), its canonical URL, and its hreflang
// alternates.
//
// It tokenizes with golang.org/x/net/html, so comments, CDATA sections,
// raw text (script, style, title), character references and attributes in
// any order, case and quoting read as a browser reads them. It stops where
// a browser's parser ends the head: at </head>, at <body> or any other
// element that cannot be in a head, at text that is not white space, and in
// any case after Limit bytes, so a page costs a read of its first few
// kilobytes, not of the whole file.
package head

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/net/html"
)

// Limit is the most bytes of a page read. A head longer than this (inline
// styles or scripts of tens of kilobytes) is read up to here only: tags
// past it are not seen, and Info.Truncated says so.
const Limit = 64 << 10

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
	// Truncated: the head did not end within Limit bytes.
	Truncated bool
	// Problems are links that were left out and why, for the caller to
	// report with the page's name.
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
// any case: the only elements whose presence Read looks for.
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
		raw      bool // the next text token is a raw text element's content
		template int  // depth of <template>, whose content is inert
		started  bool // a token other than white space was seen
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
			raw = tt == html.StartTagToken && rawText[tag]
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

	if !hasBase && len(canon) == 0 && len(alts) == 0 {
		return info, nil
	}
	page, err := url.Parse(pageURL)
	if err != nil {
		return Info{}, fmt.Errorf("page URL %q: %w", pageURL, err)
	}
	if hasBase {
		// The document's base URL: relative links resolve against it.
		if b, err := resolve(page, base); err == nil {
			page = b
		} else {
			info.Problems = append(info.Problems, fmt.Sprintf("<base href=%q> ignored: %v", base, err))
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
	name, content, rel, href, hreflang string
	has                                uint8 // which were present
}

const (
	hasName = 1 << iota
	hasContent
	hasRel
	hasHref
	hasHreflang
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

// resolve makes a link absolute against base, the way a browser does
// (leading and trailing white space stripped), and accepts only http and
// https URLs with a host. The fragment goes: it names a part of the page,
// not another page.
func resolve(base *url.URL, href string) (*url.URL, error) {
	href = strings.Trim(href, htmlSpace)
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
