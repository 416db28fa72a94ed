package head

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// element is what the fast path knows of an element, by its name.
type element uint8

const (
	elOther     element = iota
	elInHead            // one a head may hold, of no interest but that
	elMeta              // and the ones it reads
	elLink              //
	elBase              //
	elScript            //
	elTemplate          //
	elRawInHead         // a raw text element a head may hold: title, style, noframes
	elNoscript          //
	elRawOther          // a raw text element that ends the head: iframe, textarea…
)

// elements are the elements the fast path knows, by the length of their
// names.
var elements = [10][]struct {
	name string
	el   element
}{
	3: {{"xmp", elRawOther}},
	4: {{"meta", elMeta}, {"link", elLink}, {"base", elBase}, {"html", elInHead}, {"head", elInHead}},
	5: {{"style", elRawInHead}, {"title", elRawInHead}},
	6: {{"script", elScript}, {"iframe", elRawOther}},
	7: {{"bgsound", elInHead}, {"noembed", elRawOther}},
	8: {{"noscript", elNoscript}, {"template", elTemplate}, {"basefont", elInHead}, {"noframes", elRawInHead}, {"textarea", elRawOther}},
	9: {{"plaintext", elRawOther}},
}

// elementOf is the element a tag names, in any case (ASCII letters only,
// as the tokenizer lower-cases them), and that name in lower case.
func elementOf(name []byte) (element, string) {
	if len(name) < len(elements) {
		for _, e := range elements[len(name)] {
			if lowerIs(name, e.name) {
				return e.el, e.name
			}
		}
	}
	return elOther, ""
}

// isRaw: the tokenizer reads the element's content as raw text (rawText).
func (e element) isRaw() bool {
	return e == elScript || e == elRawInHead || e == elNoscript || e == elRawOther
}

// startTag reads a start tag at f.pos ('<' and a letter) by readTokenized's
// rules.
func (f *fast) startTag(k int) status {
	nameEnd, end, st := f.scanTag(k + 1)
	if st != 0 {
		return st
	}
	f.started, f.pos = true, end
	el, name := elementOf(f.src[k+1 : nameEnd])
	start := true // a StartTagToken, not a SelfClosingTagToken
	if el.isRaw() || el == elTemplate {
		start = !f.selfClosing(end)
	}
	// The tokenizer reads a raw text element's content as raw text
	// even when its tag is written self-closing; readTokenized reads
	// it as raw text only when it is not.
	raw := start && el.isRaw()
	if el.isRaw() {
		f.rawName, f.raw = name, raw
	}
	if f.template > 0 {
		if el == elTemplate && start {
			f.template++
		}
		return 0
	}
	if el == elOther || el == elRawOther {
		return ended
	}
	if el == elTemplate && start {
		f.template++
		return 0
	}
	if len(f.attrs) == 0 {
		return 0
	}
	switch {
	case raw && el == elScript:
		f.index()
		if v, ok := f.value(kType); ok {
			f.ld = isLDType(v)
		}
	case el == elMeta:
		f.index()
		f.meta()
	case el == elLink:
		f.index()
		f.link()
	case el == elBase:
		f.index()
		if href, ok := f.value(kHref); ok && !f.c.hasBase {
			f.c.base, f.c.hasBase = string(href), true
		}
	}
	return 0
}

// meta reads a meta tag as collected.meta does: a robots name, a date
// meta with a content, a refresh. Only what is kept is copied.
func (f *fast) meta() {
	name, _ := f.value(kName)
	for _, n := range robotsNames {
		if firstFolds(name, n[0]) && bytes.EqualFold(bytes.Trim(name, htmlSpace), []byte(n)) {
			content, _ := f.value(kContent)
			f.c.info.NoIndex = f.c.info.NoIndex || noindex(string(content))
		}
	}
	if f.first[kContent] >= 0 {
		byProp, byName := 0, 0
		if prop, ok := f.value(kProperty); ok && isMetaProp(prop) {
			byProp = metaProp(prop)
		}
		if isMetaProp(name) {
			byName = metaProp(name)
		}
		for _, r := range metaRoles(byProp, byName) {
			if r > 0 && f.c.props[r-1] == "" {
				content, _ := f.value(kContent)
				f.c.props[r-1] = string(bytes.Trim(content, htmlSpace))
			}
		}
	}
	if he, ok := f.value(kHTTPEquiv); ok && !f.c.refreshed && bytes.EqualFold(he, []byte("refresh")) {
		content, _ := f.value(kContent)
		if delay, u, hasURL, ok := parseRefresh(string(content)); ok {
			f.c.refresh(delay, u, hasURL)
		}
	}
}

// firstFolds reports whether v, trimmed of white space, starts with the
// letter c (lower case) in either case: whether strings.EqualFold can
// hold it equal to a name that starts with c, for a letter whose only
// case folding is its upper case (not k or s).
func firstFolds(v []byte, c byte) bool {
	for _, b := range v {
		if !isSpace(b) {
			return b|0x20 == c
		}
	}
	return false
}

// isMetaProp reports whether metaProp(v) may be other than 0.
func isMetaProp(v []byte) bool {
	return firstFolds(v, 'a') || firstFolds(v, 'o')
}

// link reads a link as collected.link does: one with an href whose rel
// has canonical, or alternate and an hreflang.
func (f *fast) link() {
	if f.first[kHref] < 0 {
		return
	}
	rel, _ := f.value(kRel)
	canonical, alternate := relHas(rel)
	alternate = alternate && f.first[kHreflang] >= 0
	if !canonical && !alternate {
		return
	}
	href, _ := f.value(kHref)
	h := string(href)
	if canonical {
		f.c.canon = append(f.c.canon, h)
	}
	if alternate {
		lang, _ := f.value(kHreflang)
		f.c.alts = append(f.c.alts, Alternate{Lang: string(bytes.Trim(lang, htmlSpace)), Href: h})
	}
}

// relHas reports whether a rel holds canonical and alternate, as
// collected.link reads it: strings.Fields of strings.ToLower.
func relHas(rel []byte) (canonical, alternate bool) {
	if !isASCII(rel) {
		tokens := strings.Fields(strings.ToLower(string(rel)))
		for _, t := range tokens {
			canonical = canonical || t == "canonical"
			alternate = alternate || t == "alternate"
		}
		return canonical, alternate
	}
	for len(rel) > 0 {
		i := 0
		for i < len(rel) && asciiSpace[rel[i]] {
			i++
		}
		j := i
		for j < len(rel) && !asciiSpace[rel[j]] {
			j++
		}
		t := rel[i:j]
		canonical = canonical || lowerIs(t, "canonical")
		alternate = alternate || lowerIs(t, "alternate")
		rel = rel[j:]
	}
	return canonical, alternate
}

// asciiSpace are the ASCII bytes that unicode.IsSpace holds space, as
// strings.Fields splits at them.
var asciiSpace = [256]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// value is the value of the current tag's first attribute of key k, as
// the tokenizer's TagAttr gives it, and whether there is one. It is
// src's bytes themselves unless they hold what TagAttr changes: a
// character reference, a carriage return, a NUL.
func (f *fast) value(k int) ([]byte, bool) {
	i := f.first[k]
	if i < 0 {
		return nil, false
	}
	v := f.src[f.attrs[i].v0:f.attrs[i].v1]
	for _, c := range v {
		if c == '&' || c == '\r' || c == 0 {
			return decodeValue(v), true
		}
	}
	return v, true
}

// decodeValue is what the tokenizer's TagAttr makes of an attribute value
// that holds these bytes: it tokenizes a tag with that value, quoted as it
// can be (a value with both quotes was not quoted).
func decodeValue(v []byte) []byte {
	b := make([]byte, 0, len(v)+8)
	b = append(b, "<a v="...)
	var q []byte
	switch {
	case bytes.IndexByte(v, '"') < 0:
		q = []byte{'"'}
	case bytes.IndexByte(v, '\'') < 0:
		q = []byte{'\''}
	}
	b = append(append(append(append(b, q...), v...), q...), '>')
	z := html.NewTokenizer(bytes.NewReader(b))
	z.Next()
	_, val, _ := z.TagAttr()
	return val
}

// rawEnd finds where the raw text of f.rawName from f.pos ends: for a
// script, as scriptEnd says; for the others, at the first "</" and its
// name, in any case, followed by white space, '/' or '>'; or at the end
// of the input (always, for plaintext).
func (f *fast) rawEnd() (int, status) {
	src, n, name := f.src, len(f.src), f.rawName
	end := -1
	switch name {
	case "plaintext":
	case "script":
		end = scriptEnd(src, f.pos)
	default:
		for i := f.pos; end < 0; {
			j := bytes.IndexByte(src[i:], '<')
			q := i + j
			if j < 0 || q+2+len(name) >= n {
				break // too near the end to tell
			}
			if src[q+1] == '/' && lowerIs(src[q+2:q+2+len(name)], name) && endTagEnds[src[q+2+len(name)]] {
				end = q
			}
			i = q + 1
		}
	}
	if end < 0 {
		if !f.eof {
			return 0, needMore
		}
		end = n
	}
	return end, 0
}

var endTagEnds = [256]bool{' ': true, '\n': true, '\r': true, '\t': true, '\f': true, '/': true, '>': true}

// The script data states of the tokenizer's readScript.
const (
	sData = iota
	sLessThan
	sEscapeStart
	sEscapeStartDash
	sEscaped
	sEscapedDash
	sEscapedDashDash
	sEscapedLessThan
	sDoubleEscapeStart
	sDoubleEscaped
	sDoubleEscapedDash
	sDoubleEscapedDashDash
	sDoubleEscapedLessThan
)

// scriptEnd is the tokenizer's readScript on src from i: where the
// "</script" that ends the script's content starts, or -1 if src ends
// first. It follows readScript state by state, "<!--" and "<script" in
// the script included (the HTML standard's script data escaped states,
// as x/net/html has them), and reads the unescaped data state, where
// scripts spend their bytes, with bytes.IndexByte.
func scriptEnd(src []byte, i int) int {
	n := len(src)
	state := sData
	for {
		if state == sData {
			j := bytes.IndexByte(src[i:], '<')
			if j < 0 {
				return -1
			}
			i += j + 1
			state = sLessThan
			continue
		}
		if i >= n {
			return -1
		}
		c := src[i]
		i++
		switch state {
		case sLessThan:
			switch c {
			case '/':
				match, next, ok := scriptEndTag(src, i)
				if !ok {
					return -1
				}
				if match {
					return i - 2
				}
				i, state = next, sData
			case '!':
				state = sEscapeStart
			default:
				i, state = i-1, sData
			}
		case sEscapeStart, sEscapeStartDash:
			switch {
			case c != '-':
				i, state = i-1, sData
			case state == sEscapeStart:
				state = sEscapeStartDash
			default:
				state = sEscapedDashDash
			}
		case sEscaped, sEscapedDash, sEscapedDashDash:
			switch {
			case c == '-' && state == sEscaped:
				state = sEscapedDash
			case c == '-':
				state = sEscapedDashDash
			case c == '<':
				state = sEscapedLessThan
			case c == '>' && state == sEscapedDashDash:
				state = sData
			default:
				state = sEscaped
			}
		case sEscapedLessThan:
			switch {
			case c == '/':
				match, next, ok := scriptEndTag(src, i)
				if !ok {
					return -1
				}
				if match {
					return i - 2
				}
				i, state = next, sEscaped
			case isLetter(c):
				i, state = i-1, sDoubleEscapeStart
			default:
				i, state = i-1, sData
			}
		case sDoubleEscapeStart:
			// c is the first byte of a name: "script" and a byte
			// that ends it, or back to the escaped state.
			i--
			j := 0
			for j < len("script") && i+j < n && lower(src[i+j]) == "script"[j] {
				j++
			}
			if i+j >= n {
				return -1
			}
			if j < len("script") {
				i, state = i+j, sEscaped
				break
			}
			if !endTagEnds[src[i+j]] {
				i, state = i+j, sEscaped
				break
			}
			i, state = i+j+1, sDoubleEscaped
		case sDoubleEscaped, sDoubleEscapedDash, sDoubleEscapedDashDash:
			switch {
			case c == '-' && state == sDoubleEscaped:
				state = sDoubleEscapedDash
			case c == '-':
				state = sDoubleEscapedDashDash
			case c == '<':
				state = sDoubleEscapedLessThan
			case c == '>' && state == sDoubleEscapedDashDash:
				state = sData
			default:
				state = sDoubleEscaped
			}
		case sDoubleEscapedLessThan:
			if c != '/' {
				i, state = i-1, sDoubleEscaped
				break
			}
			match, next, ok := scriptEndTag(src, i)
			if !ok {
				return -1
			}
			if match {
				i, state = i-2+len("</script>"), sEscaped
			} else {
				i, state = next, sDoubleEscaped
			}
		}
	}
}

// scriptEndTag is the tokenizer's readRawEndTag for a script, after "</"
// at i: whether "script" (in any case) and white space, '/' or '>'
// follow; if not, where to read on (the byte that differs). ok is false
// if src ends first.
func scriptEndTag(src []byte, i int) (match bool, next int, ok bool) {
	for j := range len("script") {
		if i+j >= len(src) {
			return false, 0, false
		}
		if lower(src[i+j]) != "script"[j] {
			return false, i + j, true
		}
	}
	if i+6 >= len(src) {
		return false, 0, false
	}
	if endTagEnds[src[i+6]] {
		return true, 0, true
	}
	return false, i + 6, true
}
