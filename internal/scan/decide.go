package scan

import (
	"net/url"
	"strings"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/head"
	"github.com/sitemapd/sitemapd/internal/sitemap"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// decide applies the head rules that are on to what a head says. loc is
// the page's URL in the sitemap and file its URL as a file path (they
// differ for index files and pretty URLs): a canonical naming either is the
// page itself.
func (s *Scanner) decide(info head.Info, path, loc, file string) tree.Head {
	rules := &s.cfg.Pages
	if rules.NoIndex && info.NoIndex {
		s.log.Debug("not listed: its head says noindex", zap.String("path", path))
		return tree.Head{Hidden: true}
	}
	if rules.Canonical {
		switch len(info.Canonicals) {
		case 0:
		case 1:
			c := info.Canonicals[0]
			if key := urlKey(c); key != urlKey(loc) && key != urlKey(file) {
				if sameResource(c, loc) {
					// Most likely base_url and the site's templates
					// disagree on scheme or host: say so, as the whole
					// site may be left out.
					s.log.Warn("not listed: its canonical URL differs from its URL in scheme or host only (is base_url right?)",
						zap.String("path", path), zap.String("canonical", c), zap.String("url", loc))
				} else {
					s.log.Debug("not listed: its canonical URL is another page",
						zap.String("path", path), zap.String("canonical", c))
				}
				return tree.Head{Hidden: true}
			}
		default:
			// Search engines ignore contradictory canonicals; so do we.
			s.log.Warn("page head: conflicting canonical links ignored",
				zap.String("path", path), zap.Strings("canonical", info.Canonicals))
		}
	}
	var h tree.Head
	if rules.Hreflang {
		var b strings.Builder
		for _, a := range info.Alternates {
			if len(a.Href) > sitemap.MaxLocLen {
				s.log.Warn("page head: hreflang link longer than the protocol allows for a URL, left out",
					zap.String("path", path), zap.String("hreflang", a.Lang), zap.Int("length", len(a.Href)))
				continue
			}
			tree.PackAlternate(&b, a.Lang, a.Href)
		}
		h.Alts = b.String()
	}
	return h
}

// urlKey normalises a URL for comparison: scheme and host in lower case,
// no default port, the path percent-decoded (so "%7E" and "~" match), an
// empty path as "/".
func urlKey(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	switch scheme {
	case "http":
		host = strings.TrimSuffix(host, ":80")
	case "https":
		host = strings.TrimSuffix(host, ":443")
	}
	return scheme + "://" + host + resource(u)
}

// resource is a URL's path, percent-decoded, and query.
func resource(u *url.URL) string {
	p := u.Path
	if p == "" {
		p = "/"
	}
	if u.RawQuery != "" || u.ForceQuery {
		p += "?" + u.RawQuery
	}
	return p
}

// sameResource reports whether two URLs have the same path and query, so
// that they differ in scheme or host only.
func sameResource(a, b string) bool {
	ua, err := url.Parse(a)
	if err != nil {
		return false
	}
	ub, err := url.Parse(b)
	return err == nil && resource(ua) == resource(ub)
}
