package scan

import (
	"net/url"
	"strings"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/head"
	"github.com/sitemapd/sitemapd/internal/sitemap"
	"github.com/sitemapd/sitemapd/internal/siteurl"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// decide applies the head rules that are on to what a head says. loc is
// the page's URL in the sitemap and rel its file's path, whose URL (they
// differ for index files and pretty URLs; computed only when a head names
// a URL, as few do) is the page too: a canonical naming either is the
// page itself. elsewhere is, for a page left out for a canonical URL not
// under base_url, the base URL that canonical seems written for.
func (s *Scanner) decide(log *zap.Logger, info head.Info, path, loc, rel string) (h tree.Head, elsewhere string) {
	var file string
	if info.Redirect != "" || len(info.Canonicals) > 0 {
		file = s.loc.File(rel)
	}
	rules := &s.cfg.Pages
	// A redirect stub first: they often say noindex, or name their target
	// as canonical, too (Hugo's aliases do both), but are redirects.
	if rules.Redirects && info.Redirect != "" && !s.isSelf(info.Redirect, loc, file) {
		log.Debug("its head redirects at once", zap.String("path", path), zap.String("to", info.Redirect))
		return tree.Head{Out: tree.Redirect}, ""
	}
	if rules.NoIndex && info.NoIndex {
		return tree.Head{Out: tree.NoIndex}, ""
	}
	if rules.Canonical {
		switch len(info.Canonicals) {
		case 0:
		case 1:
			c := info.Canonicals[0]
			if !s.isSelf(c, loc, file) {
				if sameResource(c, loc) {
					// Most likely base_url and the site's templates
					// disagree on scheme or host: say so, as the whole
					// site may be left out.
					log.Warn("not listed: its canonical URL differs from its URL in scheme or host only (is base_url right?)",
						zap.String("path", path), zap.String("canonical", c), zap.String("url", loc))
				} else {
					log.Debug("its canonical URL is another page",
						zap.String("path", path), zap.String("canonical", c))
				}
				return tree.Head{Out: tree.Canonical}, canonicalBase(c, s.cfg.BaseURL, loc, file)
			}
		default:
			// Search engines ignore contradictory canonicals; so do we.
			log.Warn("page head: conflicting canonical links ignored",
				zap.String("path", path), zap.Strings("canonical", info.Canonicals))
		}
	}
	if rules.Hreflang {
		// Sized first: the packed string is kept with the page (in the
		// walk's groups, and for as long as the daemon runs), and a
		// builder grown by doubling would keep up to twice its bytes.
		n := 0
		for _, a := range info.Alternates {
			n += len(a.Lang) + len(a.Href) + 2
		}
		var b strings.Builder
		b.Grow(n)
		for _, a := range info.Alternates {
			if len(a.Href) > sitemap.MaxLocLen {
				log.Warn("page head: hreflang link longer than the protocol allows for a URL, left out",
					zap.String("path", path), zap.String("hreflang", a.Lang), zap.Int("length", len(a.Href)))
				continue
			}
			tree.PackAlternate(&b, a.Lang, a.Href)
		}
		h.Alts = b.String()
	}
	return h, ""
}

// isSelf reports whether a URL a head names is the page itself: its URL
// in the sitemap, or its file's (an index file or a pretty URL's).
func (s *Scanner) isSelf(u, loc, file string) bool {
	key := urlKey(u)
	return key == urlKey(loc) || key == urlKey(file)
}

// urlKey normalises a URL for comparison: scheme and host in lower case,
// no default port, the path percent-decoded (so "%7E" and "~" match), an
// empty path as "/".
func urlKey(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	return strings.ToLower(u.Scheme) + "://" + siteurl.HostKey(u.Scheme, u.Host) + resource(u)
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
