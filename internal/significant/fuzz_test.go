package significant

import (
	"bytes"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	xhtml "golang.org/x/net/html"
)

// FuzzRead reads any bytes without panicking, and holds Read to the
// rule that markup which renders the same reads the same: the input,
// tokenized by golang.org/x/net/html and written out twice, once plainly
// and once reformatted (tag names upper case, attributes in reverse order
// and single quotes, character references for non-ASCII text, comments
// after end tags, line breaks before blocks), must have the same Print,
// under no model and under a model learnt from it; and ReadPrint's is
// Print's of Read.
//
//	go test -run '^$' -fuzz FuzzRead ./internal/significant
func FuzzRead(f *testing.F) {
	names, _ := filepath.Glob("testdata/bench/*.html")
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		`<p>Hello <a href="/a">world</a> &amp; caf&eacute;</p>`,
		`<ul><li>one<li>two</ul><p>para<div>block</div>`,
		`<a href=x><div>card</div> text</a><img src=i.png alt="An image">`,
		`<script type="application/ld+json">{"a":1,"b":[true,null,"x"]}</script><title>T &lt; U</title>`,
		`<svg><title>no</title><a href=/x>y</a></svg><svg/><p>after`,
		`<table><tr><td>a<td>b<tr><td>c</table>`,
		`<!--x--><!DOCTYPE html><plaintext><p>raw`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if _, err := Read(src, Options{URL: "/dir/page.html"}); err != nil {
			t.Fatal(err)
		}
		plain, reformatted := reserialize(src, false), reserialize(src, true)
		a, _ := Read(plain, Options{URL: "/dir/page.html"})
		b, _ := Read(reformatted, Options{URL: "/dir/page.html"})
		var nilModel *Model
		if pa, pb := nilModel.Print(a), nilModel.Print(b); pa != pb {
			t.Fatalf("no model: %s differ between\n%s\nand\n%s", pa.Diff(pb), plain, reformatted)
		}
		l := NewLearner(nil)
		l.Add(a)
		l.Add(a)
		m := l.Model()
		if pa, pb := m.Print(a), m.Print(b); pa != pb {
			t.Fatalf("model: %s differ between\n%s\nand\n%s", pa.Diff(pb), plain, reformatted)
		}
		// ReadPrint, into a Page used again, prints what Read and Print do.
		for _, m := range []*Model{nilModel, m} {
			if pr, _ := ReadPrint(plain, Options{URL: "/dir/page.html"}, m); pr != m.Print(a) {
				t.Fatalf("ReadPrint = %x, Print(Read) = %x, of\n%s", pr.Bytes(), m.Print(a).Bytes(), plain)
			}
		}
	})
}

// rawElements are those whose text the tokenizer does not unescape, and
// that are written out as they are.
var rawElements = []string{"script", "style", "xmp", "iframe", "noembed", "noframes", "noscript", "plaintext"}

// reserialize writes src out token by token, as the x/net tokenizer reads
// it; reformat writes the same markup otherwise.
func reserialize(src []byte, reformat bool) []byte {
	z := xhtml.NewTokenizer(bytes.NewReader(src))
	var b bytes.Buffer
	raw := ""
	for {
		tt := z.Next()
		switch tt {
		case xhtml.ErrorToken:
			return b.Bytes()
		case xhtml.TextToken:
			if raw != "" {
				b.Write(z.Raw())
				continue
			}
			text := string(z.Text())
			if !reformat {
				b.WriteString(html.EscapeString(text))
				continue
			}
			for i := 0; i < len(text); {
				r, size := utf8.DecodeRuneInString(text[i:])
				switch {
				case r == '&':
					b.WriteString("&#38;")
				case r == '<':
					b.WriteString("&#x3C;")
				case r >= 0xA0 && r != utf8.RuneError:
					// Not C1 controls: a reference to one is read as
					// windows-1252.
					fmt.Fprintf(&b, "&#%d;", r)
				default:
					b.WriteString(text[i : i+size])
				}
				i += size
			}
		case xhtml.StartTagToken, xhtml.SelfClosingTagToken, xhtml.EndTagToken:
			name, hasAttr := z.TagName()
			tag := string(name)
			type kv struct{ k, v string }
			var attrs []kv
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				if len(k) > 0 && !slices.ContainsFunc(attrs, func(a kv) bool { return a.k == string(k) }) {
					attrs = append(attrs, kv{string(k), string(v)})
				}
			}
			block := lookupTag(name, nameHash(name)).kind&kBlock != 0
			if reformat {
				slices.Reverse(attrs)
				tag = strings.ToUpper(tag)
				if block && tt != xhtml.EndTagToken {
					b.WriteString("\n")
				}
			}
			b.WriteString("<")
			if tt == xhtml.EndTagToken {
				b.WriteString("/")
			}
			b.WriteString(tag)
			if tt != xhtml.EndTagToken {
				for _, a := range attrs {
					if reformat {
						fmt.Fprintf(&b, "  %s = '%s'", a.k, strings.ReplaceAll(html.EscapeString(a.v), "&#39;", "&apos;"))
					} else {
						fmt.Fprintf(&b, ` %s="%s"`, a.k, html.EscapeString(a.v))
					}
				}
			}
			if tt == xhtml.SelfClosingTagToken {
				b.WriteString("/")
			}
			b.WriteString(">")
			switch {
			case tt == xhtml.StartTagToken && slices.Contains(rawElements, string(name)):
				raw = string(name)
			case tt == xhtml.EndTagToken && raw == string(name):
				raw = ""
			}
			if reformat && tt == xhtml.EndTagToken && raw == "" {
				// Not a line break: an end tag that closes nothing is no
				// boundary between words.
				b.WriteString("<!-- reformatted -->")
			}
		}
	}
}
