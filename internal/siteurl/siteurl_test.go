package siteurl

import (
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
