package head

import "bytes"

// The fast path: a scanner over the bytes of a head that makes the
// decisions readTokenized makes, token for token, without a tokenizer. It
// finds markup with bytes.IndexByte; splits tags into attributes by
// x/net/html's own rules (readTag: names, '=', quotes, '/', white space,
// the first of a repeated key); ends comments, doctypes, bogus comments
// and raw text (title, style, script with its escaped states, noscript…)
// where the tokenizer ends them, the end of the input included; and looks
// closely only at the tags that matter: meta, link, base, a script's type,
// a noscript's content. An attribute value with a character reference, a
// carriage return or a NUL, when it is needed, is decoded by the tokenizer
// itself. Its state is kept between runs, so that a stream is read as far
// as the head goes: a run that meets the end of the bytes within a token
// asks for more, and reads that token again. FuzzFastMatchesTokenizer
// holds it to readTokenized.

// status is where a run of the scanner stopped.
type status uint8

const (
	needMore status = iota + 1 // the bytes end within a token: more, then run again
	ended                      // the head ended
	atEOF                      // the input ended, as the tokenizer's ErrorToken
)

// span is an attribute's key and value in src: [k0,k1) and [v0,v1) as
// the tokenizer's pendingAttr spans them.
type span struct{ k0, k1, v0, v1 int }

// The attributes whose values are read, by their index in attrKeys.
const (
	kName = iota
	kContent
	kRel
	kHref
	kHreflang
	kHTTPEquiv
	kProperty
	kType
	nKeys
)

var attrKeys = [nKeys]string{"name", "content", "rel", "href", "hreflang", "http-equiv", "property", "type"}

// fast is the scanner's state: where it is in src, the tokenizer's state
// between tokens (a raw text element to be read next), readTokenized's
// (started, template, raw, ldScript), and what was collected.
type fast struct {
	buf      []byte // Read's buffer, kept in fastPool
	src      []byte
	eof      bool // src ends where the input does
	pos      int  // where the next token starts
	started  bool
	template int
	rawName  string // the element whose raw text comes next, or ""
	raw, ld  bool   // readTokenized's raw and ldScript for that text
	attrs    []span // the current tag's attributes with a non-empty key
	first    [nKeys]int
	c        collected
}

// run reads tokens from f.pos until the head ends, the input ends, or
// the bytes do.
func (f *fast) run() status {
	for {
		if f.rawName != "" {
			end, st := f.rawEnd()
			if st != 0 {
				return st
			}
			if end > f.pos && f.rawText(f.src[f.pos:end]) {
				return ended
			}
			f.rawName, f.raw, f.ld = "", false, false
			f.pos = end
			continue
		}
		src, n := f.src, len(f.src)
		// Text, up to '<' and a byte that makes it markup.
		k := f.pos
		for {
			// Mostly a line end or an indent: a loop, before IndexByte.
			for k < n && k < f.pos+16 && src[k] != '<' {
				k++
			}
			if k < n && src[k] != '<' {
				j := bytes.IndexByte(src[k:], '<')
				if j < 0 {
					k = n
				}
				k += max(j, 0)
			}
			if k == n {
				break
			}
			if k+1 == n {
				k = n // a '<' at the end of the input is text
				break
			}
			if c := src[k+1]; markupStart[c] {
				break
			}
			k++
		}
		if k == n && !f.eof {
			return needMore
		}
		if k > f.pos && f.text(src[f.pos:k]) {
			return ended
		}
		f.pos = k
		if k == n {
			return atEOF
		}
		var st status
		switch c := src[k+1]; {
		case c == '/':
			st = f.slash(k)
		case c == '!':
			st = f.bang(k)
		case c == '?':
			st = f.skipToGT(k + 2)
		default:
			st = f.startTag(k)
		}
		if st != 0 {
			return st
		}
	}
}

// markupStart are the bytes after a '<' that make it a token's start.
var markupStart = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	t['/'], t['!'], t['?'] = true, true, true
	return t
}()

// text takes in a text token outside raw text: white space, or the body.
func (f *fast) text(b []byte) (bodyStarts bool) {
	if f.template > 0 {
		return false
	}
	if !f.started {
		b = bytes.TrimPrefix(b, []byte("\uFEFF"))
	}
	for _, c := range b {
		if !isSpace(c) {
			return true
		}
	}
	return false
}

// rawText takes in the content of a raw text element.
func (f *fast) rawText(b []byte) (bodyStarts bool) {
	if f.ld {
		f.c.jsonLDLater(b)
	}
	if f.raw && f.rawName == "noscript" && f.template == 0 && !f.c.refreshed && hasMetaTag(b) {
		f.c.noscript(b)
	}
	if f.raw && f.rawName == "title" && f.template == 0 {
		f.c.titleText(b)
	}
	if f.raw {
		return false
	}
	// The content of a raw text element written <style/>: the tokenizer
	// reads it as raw text all the same, readTokenized as text.
	return f.text(b)
}

// hasMetaTag reports whether b holds "<meta" in any case: where it does
// not, it has no meta tag.
func hasMetaTag(b []byte) bool {
	for {
		i := bytes.IndexByte(b, '<')
		if i < 0 || len(b)-i < 5 {
			return false
		}
		if lowerIs(b[i+1:i+5], "meta") {
			return true
		}
		b = b[i+1:]
	}
}

// slash reads a token at f.pos that starts "</".
func (f *fast) slash(k int) status {
	src, n := f.src, len(f.src)
	if k+2 == n {
		if !f.eof {
			return needMore
		}
		// "</" at the end of the input is text.
		if f.text(src[k:]) {
			return ended
		}
		f.pos = n
		return atEOF
	}
	if !isLetter(src[k+2]) {
		return f.skipToGT(k + 2) // "</>" or a bogus comment
	}
	nameEnd, end, st := f.scanTag(k + 2)
	if st != 0 {
		return st
	}
	f.started = true
	f.pos = end
	switch name := src[k+2 : nameEnd]; {
	case lowerIs(name, "template"):
		f.template = max(f.template-1, 0)
	case lowerIs(name, "head"), lowerIs(name, "body"), lowerIs(name, "html"):
		if f.template == 0 {
			return ended
		}
	}
	return 0
}

// bang reads a token at f.pos that starts "<!": a comment, a doctype, or
// a bogus comment (CDATA too: the tokenizer is not told to allow it).
func (f *fast) bang(k int) status {
	src, n := f.src, len(f.src)
	if k+4 > n {
		if !f.eof {
			return needMore
		}
		return f.skipToGT(k + 2) // "<!-" or less at the end: a comment to it
	}
	if src[k+2] != '-' || src[k+3] != '-' {
		return f.skipToGT(k + 2)
	}
	// A comment ends at the first '>' that follows "--" or "--!" within
	// it, or that only dashes precede (<!-->, <!--->); else at the end
	// of the input.
	from := k + 4
	for p := from; ; {
		j := bytes.IndexByte(src[p:], '>')
		if j < 0 {
			if !f.eof {
				return needMore
			}
			f.started, f.pos = true, n
			return atEOF
		}
		q := p + j
		if q == from || q == from+1 && src[from] == '-' ||
			q-2 >= from && src[q-1] == '-' && src[q-2] == '-' ||
			q-3 >= from && src[q-1] == '!' && src[q-2] == '-' && src[q-3] == '-' {
			f.started, f.pos = true, q+1
			return 0
		}
		p = q + 1
	}
}

// skipToGT reads a token that ends at the first '>' from i, or at the
// end of the input: a doctype or a comment of some kind.
func (f *fast) skipToGT(i int) status {
	j := bytes.IndexByte(f.src[i:], '>')
	if j < 0 {
		if !f.eof {
			return needMore
		}
		f.started, f.pos = true, len(f.src)
		return atEOF
	}
	f.started, f.pos = true, i+j+1
	return 0
}

// scanTag reads a tag whose name starts at i, by the tokenizer's readTag:
// the name ends at white space, '/' or '>'; each attribute's key at white
// space, '/', '>' or a '=' that is not its first byte; its value, after
// '=' and any white space, is quoted or ends at white space or '>'. The
// attributes with a non-empty key go to f.attrs. end is after the '>'.
func (f *fast) scanTag(i int) (nameEnd, end int, st status) {
	src, n := f.src, len(f.src)
	f.attrs = f.attrs[:0]
	j := i + 1
	for j < n && !nameEnds[src[j]] {
		j++
	}
	nameEnd = j
	for {
		for j < n && isSpace(src[j]) {
			j++
		}
		if j >= n {
			break
		}
		if src[j] == '>' {
			return nameEnd, j + 1, 0
		}
		k0 := j
		if src[j] == '=' {
			j++
		}
		for j < n && !keyEnds[src[j]] {
			j++
		}
		k1 := j
		v0, v1 := k1, k1
		for j < n && isSpace(src[j]) {
			j++
		}
		if j >= n {
			break
		}
		switch src[j] {
		case '/':
			j++
		case '=':
			j++
			for j < n && isSpace(src[j]) {
				j++
			}
			if j >= n {
				return 0, 0, f.tagAtEnd()
			}
			switch q := src[j]; q {
			case '>':
			case '"', '\'':
				e := bytes.IndexByte(src[j+1:], q)
				if e < 0 {
					return 0, 0, f.tagAtEnd()
				}
				v0, v1 = j+1, j+1+e
				j = v1 + 1
			default:
				v0 = j
				for j < n && !valueEnds[src[j]] {
					j++
				}
				v1 = j
			}
		}
		if k1 > k0 {
			f.attrs = append(f.attrs, span{k0, k1, v0, v1})
		}
	}
	return 0, 0, f.tagAtEnd()
}

// tagAtEnd is what a tag that the bytes end within is: one to read again
// with more, or, at the end of the input, the tokenizer's ErrorToken.
func (f *fast) tagAtEnd() status {
	if !f.eof {
		return needMore
	}
	f.pos = len(f.src)
	return atEOF
}

var nameEnds, keyEnds, valueEnds = func() (n, k, v [256]bool) {
	for _, c := range []byte(htmlSpace) {
		n[c], k[c], v[c] = true, true, true
	}
	n['/'], n['>'] = true, true
	k['/'], k['>'], k['='] = true, true, true
	v['>'] = true
	return
}()

// selfClosing is the tokenizer's test, on the tag that ends before end:
// its last byte before '>' is '/' and not the last byte of the value of
// the last attribute it keeps (the first of each key).
func (f *fast) selfClosing(end int) bool {
	if f.src[end-2] != '/' {
		return false
	}
	last := -1
	for i := len(f.attrs) - 1; i >= 0 && last < 0; i-- {
		last = i
		for j := range i {
			if f.sameKey(j, i) {
				last = -1
				break
			}
		}
	}
	return last < 0 || end-2 != f.attrs[last].v1-1
}

// sameKey reports whether attributes i and j have the same key, in any
// case.
func (f *fast) sameKey(i, j int) bool {
	a, b := f.src[f.attrs[i].k0:f.attrs[i].k1], f.src[f.attrs[j].k0:f.attrs[j].k1]
	if len(a) != len(b) {
		return false
	}
	for x := range a {
		if lower(a[x]) != lower(b[x]) {
			return false
		}
	}
	return true
}

// index finds the first attribute of each key in attrKeys.
func (f *fast) index() {
	for i := range f.first {
		f.first[i] = -1
	}
	for i, s := range f.attrs {
		if k := keyOf(f.src[s.k0:s.k1]); k >= 0 && f.first[k] < 0 {
			f.first[k] = i
		}
	}
}

// keyOf is the index in attrKeys of an attribute's key, in any case, or -1.
func keyOf(key []byte) int {
	if len(key) < 3 {
		return -1
	}
	var k int
	switch c := lower(key[0]); {
	case c == 'n':
		k = kName
	case c == 'c':
		k = kContent
	case c == 'r':
		k = kRel
	case c == 'h' && len(key) == 4:
		k = kHref
	case c == 'h' && len(key) == 8:
		k = kHreflang
	case c == 'h':
		k = kHTTPEquiv
	case c == 'p':
		k = kProperty
	case c == 't':
		k = kType
	default:
		return -1
	}
	if !lowerIs(key, attrKeys[k]) {
		return -1
	}
	return k
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f'
}

func isLetter(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// lowerIs reports whether b, lower-cased (ASCII letters only, as the
// tokenizer does), is s.
func lowerIs(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(s) {
		if lower(b[i]) != s[i] {
			return false
		}
	}
	return true
}

// hasPrefixFold reports whether b starts with s (lower case) in any case.
func hasPrefixFold(b []byte, s string) bool {
	return len(b) >= len(s) && lowerIs(b[:len(s)], s)
}
