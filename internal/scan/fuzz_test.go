package scan

import (
	"encoding/xml"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/sitemap"
	"github.com/sitemapd/sitemapd/internal/siteurl"
)

// FuzzNameToLoc feeds arbitrary bytes as a file name through the path ->
// URL -> XML chain. Each name is either skipped, or yields a <loc> that an
// XML parser reads back, that is valid UTF-8 without U+FFFD or raw control
// characters, and whose path unescapes to exactly the original bytes.
func FuzzNameToLoc(f *testing.F) {
	for _, s := range []string{
		"a.html", "a b.html", `a&b<c>'"d.html`, "]]>.html", "caf\xe9.html", "tab\t.html",
		"nl\n.html", "\x01\x1b.html", "%41.html", "?#%;+=.html", "日本語.html", "e\u0301.html",
		".hidden.html", "x.html~", "index.html", "\xff\xfe.pdf", "a.HTM",
	} {
		f.Add(s, "dir")
	}
	cfg := config.Default()
	cfg.BaseURL = "https://static.test/base/"
	m := siteurl.New(&cfg)
	flt := NewFilter(&cfg)
	f.Fuzz(func(t *testing.T, name, dir string) {
		if !validName(name) || !validName(dir) {
			return // not something a filesystem can hold
		}
		if flt.Ignored(name) || !flt.IsPage(name) {
			return // skipped: never listed
		}
		loc := m.Loc(m.PagePath(dir, name))
		if len(loc) > sitemap.MaxLocLen {
			return // skipped with a warning
		}
		doc := sitemap.AppendURL(nil, &sitemap.URL{Loc: loc})
		if !utf8.Valid(doc) || strings.ContainsRune(string(doc), utf8.RuneError) {
			t.Fatalf("output is not clean UTF-8: %q", doc)
		}
		for _, c := range []byte(loc) {
			if c < 0x21 || c >= 0x7f {
				t.Fatalf("loc %q holds byte %#x", loc, c)
			}
		}
		var v struct {
			Loc string `xml:"loc"`
		}
		if err := xml.Unmarshal(doc, &v); err != nil {
			t.Fatalf("XML %q does not parse: %v", doc, err)
		}
		u, err := url.Parse(v.Loc)
		if err != nil {
			t.Fatalf("loc %q does not parse: %v", v.Loc, err)
		}
		segs := strings.Split(strings.TrimPrefix(u.EscapedPath(), "/base/"), "/")
		if len(segs) != 2 {
			t.Fatalf("loc %q has %d segments below the base, want 2", v.Loc, len(segs))
		}
		gotDir, err1 := url.PathUnescape(segs[0])
		gotName, err2 := url.PathUnescape(segs[1])
		if err1 != nil || err2 != nil || gotDir != dir {
			t.Fatalf("loc %q: dir reads back as %q, want %q", v.Loc, gotDir, dir)
		}
		if _, isIndex := m.IndexRank(name); isIndex {
			name = ""
		}
		if gotName != name {
			t.Fatalf("loc %q: name reads back as %q, want %q", v.Loc, gotName, name)
		}
	})
}

func validName(s string) bool {
	return s != "" && s != "." && s != ".." && len(s) <= 255 && !strings.ContainsAny(s, "/\x00")
}
