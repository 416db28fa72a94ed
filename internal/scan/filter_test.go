package scan

import (
	"testing"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/sitemapd/sitemapd/internal/config"
)

// TestGlobSetAgreesWithDoublestar: the last-segment prefilter never
// changes an answer: every glob and path give what doublestar alone gives.
func TestGlobSetAgreesWithDoublestar(t *testing.T) {
	globs := append(config.DefaultErrorPages(),
		"/drafts/**", "/docs", "*.pdf", "/blog/*/index.html", "**/tmp/*", "/a/{b,c}/d.html", "/x/{y/z,w}",
		"[!a]*.html", "/deep/**/leaf.htm", "\\*.html", "/**", "*", "/", "404?html", "/sub/**/",
		"[]x]y.html", "[!4]04.html", "[a-c]?.html", "caf[é]", "é[0-9].html", "[", "[a-].html", "[4-][x-z].html")
	paths := []string{
		"/404.html", "/de/404.html", "/50x.html", "/500.htm", "/4xx.html", "/404/index.html", "/404/", "/a/404/index.html",
		"/not_found.html", "/rust/not_found.html", "/blog/404-pages.html", "/4040.html", "/404.HTML",
		"/drafts", "/drafts/a.html", "/drafts/x/y.html", "/docs", "/docs/a.html", "/a.pdf", "/x/y/z.pdf",
		"/blog/2024/index.html", "/blog/2024/x/index.html", "/tmp/a", "/q/tmp/a", "/a/b/d.html", "/a/c/d.html",
		"/x/y/z", "/x/w", "/b.html", "/a.html", "/deep/leaf.htm", "/deep/1/2/leaf.htm", "/*.html", "/", "",
		"/404xhtml", "/sub/", "/sub/a/", "/blog/",
		"/]y.html", "/xy.html", "/504.html", "/b1.html", "/bé.html", "/café", "/é5.html", "/[", "/x/ab.html", "/é04.html", "/a-.html", "/-.html",
	}
	set := compilePaths(globs)
	for _, g := range globs {
		one := compilePaths([]string{g})
		for _, p := range paths {
			want, _ := doublestar.Match(config.NormalizeGlob(g), p)
			if got := one.match(p); got != want {
				t.Errorf("glob %q, path %q: %v, doublestar says %v", g, p, got, want)
			}
		}
	}
	for _, p := range paths {
		want := false
		for _, g := range globs {
			ok, _ := doublestar.Match(config.NormalizeGlob(g), p)
			want = want || ok
		}
		if got := set.match(p); got != want {
			t.Errorf("all globs, path %q: %v, doublestar says %v", p, got, want)
		}
	}
}
