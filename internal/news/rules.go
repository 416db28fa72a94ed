package news

import (
	"github.com/bmatcuk/doublestar/v4"

	"github.com/sitemapd/sitemapd/internal/config"
)

// Rules say, of a page's URL path, whether its article may be listed
// (news.paths) and in which publication (news.publication, or the first
// of news.publications whose glob matches).
type Rules struct {
	site  Publication
	other []rule
	paths []string // anchored globs; none: every path
}

type rule struct {
	glob string
	pub  Publication
}

// NewRules compiles a validated configuration's news keys; nil when the
// news sitemap is off.
func NewRules(n *config.News) *Rules {
	if !n.On() {
		return nil
	}
	r := &Rules{site: Publication{n.Publication.Name, n.Publication.Language}}
	for _, p := range n.Publications {
		r.other = append(r.other, rule{config.NormalizeGlob(p.Match), Publication{p.Name, p.Language}})
	}
	for _, g := range n.Paths {
		r.paths = append(r.paths, config.NormalizeGlob(g))
	}
	return r
}

// Of returns the publication of the article at URL path p (from the site
// root, not percent-encoded, as pages.rules match it), or ok false when
// news.paths leaves it out.
func (r *Rules) Of(p string) (pub Publication, ok bool) {
	if len(r.paths) > 0 {
		in := false
		for _, g := range r.paths {
			if in, _ = doublestar.Match(g, p); in {
				break
			}
		}
		if !in {
			return Publication{}, false
		}
	}
	for _, o := range r.other {
		if m, _ := doublestar.Match(o.glob, p); m {
			return o.pub, true
		}
	}
	return r.site, true
}
