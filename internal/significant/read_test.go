package significant

import (
	"strings"
	"testing"
)

// page wraps a body in a page with a head, as generators write one.
func page(head, body string) string {
	return "<!DOCTYPE html><html><head><meta charset=utf-8><title>A page</title>" + head + "</head><body>" + body + "</body></html>"
}

func printOf(t *testing.T, m *Model, src, url string) Print {
	t.Helper()
	p, err := Read([]byte(src), Options{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	return m.Print(p)
}

const body = `<div class="content"><h1>Gears</h1><p>Gears turn <a href="/levers.html">levers</a>, caf&eacute; &amp; co.</p><img src="/g.png" alt="A gear"></div>`

// TestSameSubstance: markup that renders the same (or says nothing) reads
// the same, under no model.
func TestSameSubstance(t *testing.T) {
	for _, tc := range []struct{ name, a, b, url string }{
		{"whitespace", page("", `<p>Hello   world</p><p>again</p>`), page("", "\n  <p>\n Hello\tworld </p>\n\n<p>again</p>\n"), ""},
		{"no-break space", page("", `<p>a&nbsp;b</p>`), page("", "<p>a b</p>"), ""},
		{"attribute order", page("", `<a class="x" href="/a" title="t">A</a>`), page("", `<a title="t" href="/a" class="x">A</a>`), ""},
		{"attribute quoting", page("", `<a href="/a">A</a><img src='i.png' alt='x y'>`), page("", `<a href=/a>A</a><img alt="x y" src=i.png>`), ""},
		{"entity spelling", page("", `<p>caf&eacute; &amp; &#8220;co&#x201D;</p>`), page("", "<p>café &#38; “co”</p>"), ""},
		{"entity in attribute", page("", `<img src="/a?x=1&amp;y=2" alt="caf&#233;">`), page("", `<img src="/a?x=1&y=2" alt="café">`), ""},
		{"comments", page("", `<p>Hel<!-- x -->lo</p><!-- <p>gone</p> -->`), page("", `<p>Hello</p>`), ""},
		{"tag case", page("", `<P>Hi <A HREF="/a">a</A></P>`), page("", `<p>Hi <a href="/a">a</a></p>`), ""},
		{"script", page(`<script src="/app.1a2b.js"></script>`, body+`<script>var a = 1;</script>`), page(`<script src="/app.9f8e.js" defer></script>`, body+`<script>var a = 2; track();</script>`), ""},
		{"style", page(`<style>p{color:red}</style>`, body), page(`<style>p{color:blue}</style>`, body+`<style>.x{}</style>`), ""},
		{"assets", page(`<link rel="stylesheet" href="/main.abc.css" integrity="sha384-a" crossorigin><link rel="preload" href="/f.woff2" as="font">`, body),
			page(`<link rel="stylesheet" href="/main.def.css" integrity="sha384-b"><link rel="preload" href="/g.woff2" as="font"><link rel="modulepreload" href="/m.js">`, body), ""},
		{"nonce", page(`<script nonce="abc">x()</script>`, body), page(`<script nonce="def">x()</script>`, body), ""},
		{"generator", page(`<meta name="generator" content="Hugo 0.111.3">`, body), page(`<meta name="generator" content="Hugo 0.112.0"><meta name="build" content="2027-01-01">`, body), ""},
		{"noscript, template, svg", page("", body+`<noscript>enable JS</noscript>`), page("", body+`<noscript>please</noscript><template><p>later</p></template><svg><text>icon</text></svg>`), ""},
		{"hidden", page("", body), page("", body+`<input type="hidden" name="csrf" value="abc"><div hidden>modal</div><span aria-hidden="true">»</span>`), ""},
		{"relative links", page("", `<p><a href="../guide/b.html">b</a></p>`), page("", `<p><a href="/guide/b.html">b</a></p>`), "/docs/a.html"},
		{"same-origin links", page("", `<p><a href="https://example.com/b/">b</a></p>`), page("", `<p><a href="/b/">b</a></p>`), "https://example.com/a/"},
		{"links to the page itself", page("", `<p><a href="#">top</a> <a href="">x</a></p>`), page("", `<p>top x</p>`), "/a.html"},
		{"dot segments", page("", `<img src="./img/../i.png">`), page("", `<img src="i.png">`), "/a/b.html"},
		{"JSON-LD form", page(`<script type="application/ld+json">{"@type":"Article","dateModified":"2026-01-02","author":{"name":"A","url":"/a"}}</script>`, body),
			page(`<script type="application/ld+json">
{ "author": { "url": "/a", "name": "A" },
  "dateModified": "2026-01-02", "@type": "Article" }
</script>`, body), ""},
		{"navigation", page("", `<header><nav><a href="/a">A</a></nav></header>`+body+`<footer>© 2026</footer>`),
			page("", `<header><nav><a href="/a">A</a><a href="/b">B</a></nav></header>`+body+`<footer>© 2027 · built 12:00</footer>`), ""},
		{"sidebar", page("", `<aside><p>About us</p></aside>`+body), page("", `<aside><p>About them</p></aside><div role="navigation"><a href="/x">x</a></div>`+body), ""},
		{"main", page("", `<div class="menu"><a href="/a">A</a></div><main>`+body+`</main>`), page("", `<div class="menu"><a href="/b">B</a></div><main>`+body+`</main>`), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m *Model
			if a, b := printOf(t, m, tc.a, tc.url), printOf(t, m, tc.b, tc.url); a != b {
				t.Errorf("%s differ:\n%s\n%s", a.Diff(b), tc.a, tc.b)
			}
		})
	}
}

// TestDifferentSubstance: what a page says, changed, moves its Print, in
// the part changed.
func TestDifferentSubstance(t *testing.T) {
	base := page(`<script type="application/ld+json">{"@type":"Article","dateModified":"2026-01-02"}</script>`, body)
	for _, tc := range []struct {
		name, old, new string
		want           Parts
	}{
		{"text", "Gears turn", "Gears spin", Text},
		{"text order", "<h1>Gears</h1><p>Gears turn <a href=\"/levers.html\">levers</a>, caf&eacute; &amp; co.</p>", "<p>Gears turn <a href=\"/levers.html\">levers</a>, caf&eacute; &amp; co.</p><h1>Gears</h1>", Text},
		{"link target", `href="/levers.html"`, `href="/cams.html"`, Links},
		{"link text", ">levers<", ">cranks<", Links},
		{"link added", "co.</p>", `co. <a href="/more">more</a></p>`, Links},
		{"image source", `src="/g.png"`, `src="/g2.png"`, Images},
		{"image alt", `alt="A gear"`, `alt="Two gears"`, Images},
		{"title", "<title>A page</title>", "<title>Another page</title>", Title},
		{"dateModified", `"2026-01-02"`, `"2026-01-03"`, Data},
		{"microdata", "</h1>", `</h1><meta itemprop="dateModified" content="2026-02-01">`, Data},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(base, tc.old) {
				t.Fatalf("the page has no %q", tc.old)
			}
			var m *Model
			a, b := printOf(t, m, base, "/gears.html"), printOf(t, m, strings.Replace(base, tc.old, tc.new, 1), "/gears.html")
			if d := a.Diff(b); d != tc.want {
				t.Errorf("moved in %s, want %s", d, tc.want)
			}
		})
	}
}

func TestSelectors(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Selector
		err  string
	}{
		{in: "main", want: Selector{Tag: "main"}},
		{in: "ARTICLE", want: Selector{Tag: "article"}},
		{in: "#content", want: Selector{ID: "content"}},
		{in: ".post-body", want: Selector{Class: "post-body"}},
		{in: "div.post", want: Selector{Tag: "div", Class: "post"}},
		{in: "div#main", want: Selector{Tag: "div", ID: "main"}},
		{in: "[role=main]", want: Selector{Role: "main"}},
		{in: `div[role="Main"]`, want: Selector{Tag: "div", Role: "main"}},
		{in: "", err: `selector "": empty`},
		{in: " main", err: "white space around it"},
		{in: "div .post", err: `' ' is not allowed`},
		{in: "div > p", err: `' ' is not allowed`},
		{in: ".a.b", err: `'.' is not allowed`},
		{in: "#", err: "empty id"},
		{in: "div.", err: "empty class name"},
		{in: "[data-x=1]", err: "the only attribute selector is [role=value]"},
		{in: "[role=]", err: "the role must be one word"},
		{in: "1div", err: "a tag name starts with a letter"},
		{in: "a,b", err: `',' is not allowed`},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseSelector(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), `"`+tc.in+`"`) {
					t.Fatalf("error %v, want one naming %q and saying %q", err, tc.in, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.want.src = tc.in
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestMainAndIgnore: with pages.main only what is in the element counts,
// whatever the model; pages.ignore's subtrees never count.
func TestMainAndIgnore(t *testing.T) {
	sel := func(s string) Selector {
		t.Helper()
		v, err := ParseSelector(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	opts := Options{URL: "/a.html", Main: sel("div.post"), Ignore: []Selector{sel(".share"), sel("#ads")}}
	read := func(src string) Print {
		p, err := Read([]byte(src), opts)
		if err != nil {
			t.Fatal(err)
		}
		return (*Model)(nil).Print(p)
	}
	a := read(page("", `<div class="nav">Menu</div><div class="post x"><p>Body</p><div class="share"><a href="/s?u=a">Share</a></div><div id="ads">Buy</div></div><p>Footer 2026</p>`))
	for _, same := range []string{
		page("", `<div class="nav">Other menu</div><div class="x post"><p>Body</p><div class="share"><a href="/s?u=b">Tweet</a></div><div id="ads">Sell</div></div><p>Footer 2027</p>`),
	} {
		if b := read(same); a != b {
			t.Errorf("%s moved, outside main or ignored", a.Diff(b))
		}
	}
	if b := read(page("", `<div class="nav">Menu</div><div class="post"><p>New body</p></div>`)); a.Diff(b) != Text {
		t.Errorf("moved in %s, want text", a.Diff(b))
	}
	// A page where main matches nothing is judged as without it.
	if p := read(page("", `<p>Body</p>`)); p.Text == 0 {
		t.Error("a page without the main element has no text")
	}
}

func TestParts(t *testing.T) {
	for _, tc := range []struct {
		p    Parts
		want string
	}{{0, "none"}, {Title, "title"}, {Title | Text, "title, text"}, {Links | Images | Data, "links, images, data"}} {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("%d: %q, want %q", tc.p, got, tc.want)
		}
	}
	p := Print{1, 2, 3, 4, 5}
	if PrintFromBytes(p.Bytes()) != p {
		t.Error("Print does not survive its stored form")
	}
	if p.Sum() == (Print{1, 2, 3, 4, 6}).Sum() {
		t.Error("Sums of different Prints are equal")
	}
}
