package siteurl

import (
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"

	"github.com/sitemapd/sitemapd/internal/config"
)

// TestLocator checks the mapping against RFC 3986's grammar for a path
// segment (section 3.3: pchar = unreserved / pct-encoded / sub-delims /
// ":" / "@"): those characters stay, '+' is escaped (form decoders read
// it as a space), everything else is %XX of each UTF-8 byte, upper case.
func TestLocator(t *testing.T) {
	cfg := config.Default()
	cfg.BaseURL = "https://example.com/base/"
	l := New(&cfg)
	pretty := config.Default()
	pretty.BaseURL = cfg.BaseURL
	pretty.Pages.PrettyURLs = true
	p := New(&pretty)
	for _, tc := range []struct {
		l         *Locator
		dir, name string
		path, loc string
	}{
		{l, "", "index.html", "/", "https://example.com/base/"},
		{l, "blog", "index.htm", "/blog/", "https://example.com/base/blog/"},
		{l, "a(b)", "p.html", "/a(b)/p.html", "https://example.com/base/a(b)/p.html"},
		{l, "-._~", "!$&'()*,;=:@.html", "/-._~/!$&'()*,;=:@.html", "https://example.com/base/-._~/!$&'()*,;=:@.html"},
		{l, "a+b", "sp ace.pdf", "/a+b/sp ace.pdf", "https://example.com/base/a%2Bb/sp%20ace.pdf"},
		{l, "%41", "#?[]", "/%41/#?[]", "https://example.com/base/%2541/%23%3F%5B%5D"},
		{l, "caf\u00e9", "\u65e5.html", "/caf\u00e9/\u65e5.html", "https://example.com/base/caf%C3%A9/%E6%97%A5.html"},
		{l, "x", "bad\xff.html", "/x/bad\xff.html", "https://example.com/base/x/bad%FF.html"},
		{l, "x", "tab\t\"<>\\^`{|}.html", "/x/tab\t\"<>\\^`{|}.html", "https://example.com/base/x/tab%09%22%3C%3E%5C%5E%60%7B%7C%7D.html"},
		{p, "blog", "post.html", "/blog/post", "https://example.com/base/blog/post"},
		{p, "blog", ".html", "/blog/.html", "https://example.com/base/blog/.html"},
		{p, "blog", "doc.pdf", "/blog/doc.pdf", "https://example.com/base/blog/doc.pdf"},
	} {
		path := tc.l.PagePath(tc.dir, tc.name)
		if path != tc.path {
			t.Errorf("PagePath(%q, %q) = %q, want %q", tc.dir, tc.name, path, tc.path)
		}
		if loc := tc.l.Loc(path); loc != tc.loc {
			t.Errorf("Loc(%q) = %q, want %q", path, loc, tc.loc)
		}
	}
	if got, want := l.File("a b/sitemap.xml"), "https://example.com/base/a%20b/sitemap.xml"; got != want {
		t.Errorf("File = %q, want %q", got, want)
	}
	if p, ok := l.SitePath("https://example.com/base/a%20b/"); !ok || p != "/a%20b/" {
		t.Errorf("SitePath = %q, %v", p, ok)
	}
	if _, ok := l.SitePath("https://example.com/other/"); ok {
		t.Error("SitePath accepted a URL outside the base")
	}
	if r, ok := l.IndexRank("index.htm"); !ok || r != 1 {
		t.Errorf("IndexRank(index.htm) = %d, %v", r, ok)
	}
}

// TestAbsolute holds Absolute to the package's own mapping and to RFC
// 3986: a URL the site gives a file stays as it is; a file's name written
// raw in a page (as authors write src attributes: no '%', '#' or '?' to
// escape) maps to that same URL; every URL it makes is ASCII of the
// URI grammar's characters, and decodes to the path and query written.
func TestAbsolute(t *testing.T) {
	cfg := config.Default()
	cfg.BaseURL = "https://static.test/base/"
	l := New(&cfg)
	base, _ := url.Parse("https://static.test/base/page.html")
	names := []string{"a.jpg", "sp ace.png", "a+b.jpg", "caf\u00e9/\u65e5.webp", "d/-._~!$&'()*,;=:@.gif",
		"bad\xff.jpg", "tab\t\"<>\\^`{|}[].jpg", "x/y z/(1).png"}
	for _, name := range names {
		site := l.File(name)
		u, err := url.Parse(site)
		if err != nil {
			t.Fatalf("%q: %v", site, err)
		}
		if got := Absolute(u); got != site {
			t.Errorf("Absolute(%q) = %q: the site's own URL changed", site, got)
		}
		if strings.ContainsAny(name, "\t") {
			continue // a browser strips tabs from a URL it is given
		}
		raw, err := base.Parse(name)
		if err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		if got := Absolute(raw); got != site {
			t.Errorf("Absolute(%q written raw) = %q, the site's URL for it is %q", name, got, site)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"HTTPS://Static.TEST/a.jpg", "https://static.test/a.jpg"},
		{"https://static.test:443/a.jpg", "https://static.test/a.jpg"},
		{"http://static.test:80/a.jpg", "http://static.test/a.jpg"},
		{"http://static.test:443/a.jpg", "http://static.test:443/a.jpg"},
		{"https://static.test/%7ex/%41%2f%2B%21%28.jpg", "https://static.test/~x/A%2F%2B!(.jpg"},
		{"https://static.test/a.jpg?w=1&h=2+3 4%zz|%2b%7e%3d", "https://static.test/a.jpg?w=1&h=2+3%204%25zz%7C%2B~%3D"},
		{"https://static.test/a.jpg?", "https://static.test/a.jpg?"},
		{"https://[::1]:8080/a.jpg", "https://[::1]:8080/a.jpg"},
	} {
		u, err := url.Parse(tc.in)
		if err != nil {
			t.Fatalf("%q: %v", tc.in, err)
		}
		got := Absolute(u)
		if got != tc.want {
			t.Errorf("Absolute(%q) = %q, want %q", tc.in, got, tc.want)
		}
		back, err := url.Parse(got)
		if err != nil || back.Path != u.Path && !strings.Contains(tc.in, "%2f") {
			t.Errorf("Absolute(%q) = %q parses back to path %q, not %q (%v)", tc.in, got, back.Path, u.Path, err)
		}
		for _, c := range []byte(got) {
			if c <= ' ' || c >= 0x7f || strings.IndexByte("\"<>\\^`{|}", c) >= 0 {
				t.Errorf("Absolute(%q) = %q holds %q, not a URI character", tc.in, got, c)
			}
		}
	}
}

// TestAppendName: a page's URL is its directory's URL followed by
// AppendName, for index files, pretty URLs and names percent-encoding
// changes.
func TestAppendName(t *testing.T) {
	for _, pretty := range []bool{false, true} {
		cfg := config.Default()
		cfg.BaseURL = "https://example.com/base/"
		cfg.Pages.PrettyURLs = pretty
		l := New(&cfg)
		for _, dir := range []string{"", "blog", "a b/ü & c"} {
			for _, name := range []string{"index.html", "index.htm", "p.html", ".html", "a b#?%.html", "日本.htm", "x.pdf", "🚀.html"} {
				want := l.Loc(l.PagePath(dir, name))
				if got := l.Loc(l.PagePath(dir, "")) + string(l.AppendName(nil, name)); got != want {
					t.Errorf("pretty %v, %q in %q: %q, want %q", pretty, name, dir, got, want)
				}
			}
		}
	}
}

// TestCompareName: CompareName orders a name as strings order what
// AppendName appends for it, against the escapes of other names, their
// prefixes (cut inside an escape too) and strings no escape is, for names
// percent-encoding reorders, index files and pretty URLs.
func TestCompareName(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	odd := []string{"", " ", "!", "$", "&", "%", "-", "~", "z", "A", "0", "é", "日", "🚀", ".html", "index.html"}
	name := func() string {
		var b strings.Builder
		for range r.IntN(5) {
			b.WriteString(odd[r.IntN(len(odd))])
		}
		return b.String()
	}
	for _, pretty := range []bool{false, true} {
		cfg := config.Default()
		cfg.BaseURL = "https://example.com/"
		cfg.Pages.PrettyURLs = pretty
		l := New(&cfg)
		for range 20000 {
			n := name()
			s := string(l.AppendName(nil, name()))
			switch r.IntN(4) {
			case 0:
				s = s[:r.IntN(len(s)+1)]
			case 1:
				s = name() // not an escape: raw bytes
			case 2:
				s = string(l.AppendName(nil, n))[:r.IntN(len(l.AppendName(nil, n))+1)]
			}
			if got, want := l.CompareName(n, s), strings.Compare(string(l.AppendName(nil, n)), s); got != want {
				t.Fatalf("pretty %v: CompareName(%q, %q) = %d, want %d", pretty, n, s, got, want)
			}
		}
	}
}
