package scan

import (
	"net/url"
	"strings"

	"github.com/sitemapd/sitemapd/internal/tree"
)

// LeftOut is what a read left out of a group: pages whose files exist but
// that are not listed, by reason and by URL, and what their canonical
// links say of the site's real base URL.
type LeftOut struct {
	Tally tree.Tally
	// Locs are the URLs of the pages left out: a page listed before and
	// in Locs now was dropped by a rule, not deleted (the shrink guard
	// tells the two apart).
	Locs map[string]tree.Reason
	// Elsewhere counts the pages left out as canonical elsewhere whose
	// canonical URL is not under base_url, by the base URL those
	// canonicals seem to share (canonicalBase).
	Elsewhere map[string]int
	// Canonicals is the number of pages read whose head names a canonical
	// URL, their own or another.
	Canonicals int
}

func (l *LeftOut) add(why tree.Reason, loc, elsewhere string) {
	l.Tally.Add(why)
	if l.Locs == nil {
		l.Locs = map[string]tree.Reason{}
	}
	l.Locs[loc] = why
	if elsewhere != "" {
		if l.Elsewhere == nil {
			l.Elsewhere = map[string]int{}
		}
		l.Elsewhere[elsewhere]++
	}
}

// Merge adds another read's findings (of other pages).
func (l *LeftOut) Merge(o *LeftOut) {
	l.Tally.Merge(o.Tally)
	l.Canonicals += o.Canonicals
	for k, v := range o.Elsewhere {
		if l.Elsewhere == nil {
			l.Elsewhere = map[string]int{}
		}
		l.Elsewhere[k] += v
	}
}

// canonicalBase guesses the base URL a canonical link that is not under
// base is written for: the canonical minus the page's own path below
// base, when it ends with it (a site built for
// https://docs.example.org/en/latest/ names that in every canonical), or
// else its scheme and host. It returns "" for a canonical under base.
func canonicalBase(canonical, base string, pages ...string) string {
	if strings.HasPrefix(strings.ToLower(canonical), strings.ToLower(base)) {
		return ""
	}
	for _, p := range pages {
		rel, ok := strings.CutPrefix(p, base)
		switch {
		case !ok:
		case rel == "" && strings.HasSuffix(canonical, "/"):
			return canonical // the home page: its canonical is the base
		case rel != "" && strings.HasSuffix(canonical, "/"+rel):
			return canonical[:len(canonical)-len(rel)]
		}
	}
	u, err := url.Parse(canonical)
	if err != nil || u.Host == "" {
		return canonical
	}
	return u.Scheme + "://" + u.Host + "/"
}
