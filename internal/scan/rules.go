package scan

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/sitemap"
)

// rule is a compiled config.Rule.
type rule struct {
	glob       string
	changefreq string
	priority   string
}

func compileRules(rs []config.Rule) []rule {
	out := make([]rule, len(rs))
	for i, r := range rs {
		out[i] = rule{glob: config.NormalizeGlob(r.Match), changefreq: r.ChangeFreq}
		if r.Priority != nil {
			out[i].priority = formatPriority(*r.Priority)
		}
	}
	return out
}

// formatPriority writes 1 as "1.0" and 0.85 as "0.85".
func formatPriority(p float64) string {
	s := strconv.FormatFloat(p, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// match returns the first rule matching urlPath, or nil.
func matchRule(rules []rule, urlPath string) *rule {
	for i := range rules {
		if ok, _ := doublestar.Match(rules[i].glob, urlPath); ok {
			return &rules[i]
		}
	}
	return nil
}

// Judge lists a URL that is no page's (a line of an extra_urls file) by
// the rules pages are listed by: it is left out if the docroot's
// robots.txt disallows it (ok false), and takes the changefreq and
// priority of the first of pages.rules its path matches. loc is under
// base_url.
func (s *Scanner) Judge(loc string) (u sitemap.URL, ok bool) {
	u.Loc = loc
	sp, under := s.loc.SitePath(loc)
	if !under {
		return u, false
	}
	if !s.robots.AllowsAll() && !s.robots.Allowed(sp) {
		return u, false
	}
	p, _, _ := strings.Cut(sp, "?")
	if up, err := url.PathUnescape(p); err == nil {
		if r := matchRule(s.rules, up); r != nil {
			u.ChangeFreq, u.Priority = r.changefreq, r.priority
		}
	}
	return u, true
}
