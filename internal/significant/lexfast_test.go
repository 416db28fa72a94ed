package significant

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	xhtml "golang.org/x/net/html"
)

// The reader's fast paths held to their references: a tag's name and
// the attributes it looks at to golang.org/x/net/html's tokenizer, and
// copyRun's word tests to its byte rules.

// attrKeys are the attributes the reader keeps, by their index in attrs.
var attrKeys = [nAttrs]string{aClass: "class", aID: "id", aRole: "role", aHref: "href", aSrc: "src",
	aDataSrc: "data-src", aAlt: "alt", aType: "type", aItemprop: "itemprop", aContent: "content", aDatetime: "datetime"}

// checkTag reads the tag src starts with as the reader does (tagName,
// then readAttrs) and as the tokenizer does, and reports where they differ:
// the name, where the tag ends, whether it closes itself, each attribute
// the reader keeps (the first of its key, in any case), and hidden.
func checkTag(t *testing.T, src []byte) {
	t.Helper()
	r := &reader{src: src}
	name, h, i := r.tagName(1)
	end, self := r.readAttrs(i, true)
	z := xhtml.NewTokenizer(bytes.NewReader(src))
	tt := z.Next()
	if tt != xhtml.StartTagToken && tt != xhtml.SelfClosingTagToken {
		if end >= 0 {
			t.Errorf("%q: the reader ends a tag at %d, the tokenizer reads %v", src, end, tt)
		}
		return
	}
	if end != len(z.Raw()) {
		t.Errorf("%q: tag ends at %d, tokenizer's at %d", src, end, len(z.Raw()))
	}
	// Read for where it ends and whether it has an itemprop only (a void
	// element's tag, an end tag): the same end, and the itemprop noted.
	skim := &reader{src: src}
	if i < len(src) && src[i] != '>' {
		if e, _ := skim.readAttrs(i, false); e != end || skim.at.has&(1<<aItemprop) != r.at.has&(1<<aItemprop) {
			t.Errorf("%q: read for its end only, it ends at %d, itemprop %v; read in full at %d, %v",
				src, e, skim.at.has&(1<<aItemprop) != 0, end, r.at.has&(1<<aItemprop) != 0)
		}
	}
	zname, more := z.TagName()
	// A name longer than the reader's buffer (no element it knows) is
	// lowered by bytes.ToLower, as it always was (TestTagName).
	if len(zname) <= len(r.lowName) && (string(name) != string(zname) || h != nameHash(zname)) {
		t.Errorf("%q: name %q, tokenizer's %q", src, name, zname)
	}
	first := map[string]string{}
	hidden := false
	for more {
		var k, v []byte
		k, v, more = z.TagAttr()
		if _, ok := first[string(k)]; !ok {
			first[string(k)] = string(v)
		}
		if string(k) == "hidden" || string(k) == "aria-hidden" && strings.Trim(string(v), " \t\n\f\r") == "true" {
			hidden = true
		}
	}
	// The tokenizer ends an unquoted value at '/' and takes "<a
	// href=x/>" for self-closing, where the standard (and the reader)
	// reads the value "x/" and a tag that is not: such tags are not
	// compared for it.
	if !unquotedSlash(z.Raw()) && self != (tt == xhtml.SelfClosingTagToken) {
		t.Errorf("%q: self-closing %v, tokenizer's %v", src, self, tt)
	}
	for k, key := range attrKeys {
		want, ok := first[key]
		if got := r.av(k); (got != nil) != ok || string(got) != want {
			t.Errorf("%q: %s = %q (present %v), tokenizer's %q (present %v)", src, key, got, got != nil, want, ok)
		}
	}
	// The reader has always taken any aria-hidden="true" of a tag, where
	// the tokenizer keeps the first of a repeated key: a tag with two is
	// not compared for it.
	if bytes.Count(bytes.ToLower(src), []byte("aria-hidden")) < 2 && r.at.hidden != hidden {
		t.Errorf("%q: hidden %v, tokenizer's attributes say %v", src, r.at.hidden, hidden)
	}
}

// unquotedSlash reports whether the tag raw ends in "/>" and may have an
// unquoted value ('=' then neither a quote nor white space: a value in
// quotes that holds one counts too, which only compares less).
func unquotedSlash(raw []byte) bool {
	if !bytes.HasSuffix(raw, []byte("/>")) {
		return false
	}
	for i := bytes.IndexByte(raw, '='); i >= 0 && i+1 < len(raw); i = bytes.IndexByte(raw[i+1:], '=') + i + 1 {
		j := i + 1
		for j < len(raw) && spaces[raw[j]] {
			j++
		}
		if j < len(raw) && raw[j] != '"' && raw[j] != '\'' {
			return true
		}
		if bytes.IndexByte(raw[i+1:], '=') < 0 {
			break
		}
	}
	return false
}

// randomTag is a start tag of random attributes: the keys the reader
// keeps and others like them, in any case, repeated, with quoted,
// unquoted and missing values, odd spacing and slashes; values without
// '&' (the tokenizer decodes them, the reader keeps them raw), NUL or CR
// (which it rewrites).
func randomTag(r *rand.Rand) []byte {
	names := []string{"p", "P", "a", "div", "DiV", "meta", "img", "x-y", "h1", "link"}
	keys := append(attrKeys[:], "name", "idx", "hre", "Class", "ID", "DATA-SRC", "ItemProp", "aria-hidden", "hidden", "rel", "data-x", "=eq", "alt2")
	vals := []string{"", "x", "a b", "true", " true ", "TRUE", "/x/y.html", "q=1", "a>b", "it's", `say "hi"`, "é", "\t", "x/"}
	seps := []string{" ", "  ", "\t", "\n", "/", " / ", "\f"}
	var b strings.Builder
	b.WriteString("<" + names[r.IntN(len(names))])
	for range r.IntN(6) {
		b.WriteString(seps[r.IntN(len(seps))])
		key := keys[r.IntN(len(keys))]
		if r.IntN(3) == 0 {
			key = strings.ToUpper(key)
		}
		b.WriteString(key)
		v := vals[r.IntN(len(vals))]
		switch r.IntN(5) {
		case 0: // no value
		case 1:
			b.WriteString(`="` + strings.ReplaceAll(v, `"`, "") + `"`)
		case 2:
			b.WriteString(" = '" + strings.ReplaceAll(v, "'", "") + "'")
		default:
			if v = strings.Trim(strings.Map(func(c rune) rune {
				if strings.ContainsRune(" \t\n\f\"'=<`>", c) {
					return -1
				}
				return c
			}, v), "/"); v != "" {
				b.WriteString("=" + v)
			}
		}
	}
	switch r.IntN(4) {
	case 0:
		b.WriteString("/>")
	case 1:
		b.WriteString(" >")
	default:
		b.WriteString(">")
	}
	b.WriteString("text")
	return []byte(b.String())
}

func TestTagAgainstTokenizer(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 22))
	for range 20000 {
		checkTag(t, randomTag(r))
		if t.Failed() {
			return
		}
	}
}

// FuzzTag: any tag's name and attributes read as the tokenizer reads them.
//
//	go test -run '^$' -fuzz FuzzTag ./internal/significant
func FuzzTag(f *testing.F) {
	r := rand.New(rand.NewPCG(2, 22))
	for range 20 {
		f.Add(randomTag(r))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) < 2 || src[0] != '<' || !isLetter(src[1]) || bytes.ContainsAny(src, "&\x00\r") {
			return
		}
		checkTag(t, src)
	})
}

// copyRunBytes is copyRun by its byte rules alone.
func copyRunBytes(s []byte, j int) int {
	for j < len(s) {
		if c := s[j]; plain[c] {
			j++
		} else if c == ' ' && j+1 < len(s) && plain[s[j+1]] {
			j += 2
		} else {
			break
		}
	}
	return j
}

// checkCopyRun holds copyRun to its byte rules from every place add
// calls it: after each plain byte.
func checkCopyRun(t *testing.T, s []byte) {
	t.Helper()
	for i := range s {
		if !plain[s[i]] {
			continue
		}
		if got, want := copyRun(s, i+1), copyRunBytes(s, i+1); got != want {
			t.Fatalf("copyRun(%q, %d) = %d, its byte rules say %d", s, i+1, got, want)
		}
	}
}

func TestCopyRun(t *testing.T) {
	alphabet := []byte{'a', 'b', ' ', ' ', ' ', '\t', '\n', '\f', '\r', 0, 1, 0x1F, '!', 0x7F, 0x80, 0xC2, 0xA0, 0xFF, 'z'}
	r := rand.New(rand.NewPCG(3, 22))
	for range 20000 {
		s := make([]byte, r.IntN(70))
		for i := range s {
			if r.IntN(3) == 0 {
				s[i] = alphabet[r.IntN(len(alphabet))]
			} else {
				s[i] = 'a' + byte(r.IntN(26))
			}
		}
		checkCopyRun(t, s)
	}
	checkCopyRun(t, []byte("Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor."))
}

// FuzzCopyRun: copyRun ends where its byte rules do, on any bytes.
//
//	go test -run '^$' -fuzz FuzzCopyRun ./internal/significant
func FuzzCopyRun(f *testing.F) {
	f.Add([]byte("Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.  x"))
	f.Add([]byte("a b\u00a0c d\te  f"))
	f.Fuzz(checkCopyRun)
}
