package head

import (
	"bytes"
	"errors"
	"io"
	"strings"

	"golang.org/x/net/html"
)

// readTokenized is how Read reads a head with golang.org/x/net/html's
// tokenizer, token by token: the reader that Read's fast path must agree
// with (the test oracle) and what it falls back to for what it does not
// read itself. Its results are those of Read.
func readTokenized(r io.Reader, pageURL string) (Info, error) {
	lr := &io.LimitedReader{R: r, N: Limit}
	t := tokenized{z: html.NewTokenizer(lr)}
	for {
		tt := t.z.Next()
		wasRaw, wasLD := t.raw, t.ldScript
		t.raw, t.ldScript = false, false
		var headEnds bool
		switch tt {
		case html.ErrorToken:
			if err := t.z.Err(); !errors.Is(err, io.EOF) {
				return Info{}, err
			}
			t.c.info.Truncated = lr.N == 0
			headEnds = true
		case html.TextToken:
			headEnds = t.text(wasRaw, wasLD)
		case html.StartTagToken, html.SelfClosingTagToken:
			t.started = true
			headEnds = t.startTag(tt)
		case html.EndTagToken:
			t.started = true
			headEnds = t.endTag()
		default: // comments, doctype
			t.started = true
		}
		if headEnds {
			return t.c.finish(pageURL)
		}
	}
}

// tokenized is readTokenized's state between tokens.
type tokenized struct {
	z        *html.Tokenizer
	c        collected
	raw      bool   // the next text token is a raw text element's content
	rawTag   string // that element
	template int    // depth of <template>, whose content is inert
	started  bool   // a token other than white space was seen
	ldScript bool   // the next text token is a JSON-LD script's content
}

// text reads a text token (after a raw text element's start tag if
// wasRaw, a JSON-LD script's if wasLD), and reports whether it starts
// the body.
func (t *tokenized) text(wasRaw, wasLD bool) (headEnds bool) {
	if wasLD {
		t.c.jsonLD(t.z.Raw())
	}
	if wasRaw && t.rawTag == "noscript" && t.template == 0 {
		t.c.noscript(t.z.Raw())
	}
	if wasRaw && t.rawTag == "title" && t.template == 0 {
		t.c.titleText(t.z.Raw())
	}
	if wasRaw || t.template > 0 {
		return false
	}
	text := t.z.Raw()
	if !t.started {
		text = bytes.TrimPrefix(text, []byte("\uFEFF")) // a byte order mark is not text
	}
	return len(bytes.Trim(text, htmlSpace)) > 0 // text starts the body
}

// startTag reads a start (or self-closing) tag, and reports whether it
// starts the body.
func (t *tokenized) startTag(tt html.TokenType) (headEnds bool) {
	name, hasAttr := t.z.TagName()
	tag := string(name)
	t.raw, t.rawTag = tt == html.StartTagToken && rawText[tag], tag
	if t.template > 0 {
		if tag == "template" && tt == html.StartTagToken {
			t.template++
		}
		return false
	}
	if !inHead[tag] {
		return true
	}
	if tag == "template" && tt == html.StartTagToken {
		t.template++
		return false
	}
	if t.raw && tag == "script" && hasAttr {
		t.ldScript = isLDScript(t.z)
		return false
	}
	if !hasAttr || (tag != "meta" && tag != "link" && tag != "base") {
		return false
	}
	a := readAttrs(t.z)
	switch tag {
	case "meta":
		t.c.meta(a)
	case "base":
		t.c.baseTag(a)
	case "link":
		t.c.link(a)
	}
	return false
}

// endTag reads an end tag, and reports whether it ends the head.
func (t *tokenized) endTag() (headEnds bool) {
	name, _ := t.z.TagName()
	switch string(name) {
	case "template":
		t.template = max(t.template-1, 0)
	case "head", "body", "html":
		return t.template == 0
	}
	return false
}

// tagAttrs are the attributes of meta, link and base tags that matter.
type tagAttrs struct {
	name, content, rel, href, hreflang, httpEquiv string
	has                                           uint8 // which were present
	// roles are what the tag is of metaProps (metaRoles), for a tag with
	// a content.
	roles    [2]int
	property int // 1 + the index in metaProps of the property attribute, or 0
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
				a.property, a.has = metaProp(v), a.has|hasProperty
			}
			continue
		default:
			continue
		}
		if a.has&bit == 0 {
			*dst, a.has = string(v), a.has|bit
		}
	}
	if a.has&hasContent != 0 {
		a.roles = metaRoles(a.property, metaPropName(a.name))
	}
	return a
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
			return isLDType(v)
		}
	}
	return false
}

// isLDType reports whether a script's type attribute, v, is JSON-LD's
// media type: in any case, between any white space, with or without
// parameters.
func isLDType(v []byte) bool {
	if i := bytes.IndexByte(v, ';'); i >= 0 {
		v = v[:i]
	}
	return bytes.EqualFold(bytes.Trim(v, htmlSpace), []byte("application/ld+json"))
}
