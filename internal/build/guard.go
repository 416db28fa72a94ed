package build

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/scan"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// ShrinkError is a publish the shrink guard refused: of the pages listed
// before whose files are still there, it would have stopped listing more
// than half (a rule now leaves them out), or it would have listed nothing
// while there are pages. Such a shrink is most often a mistake (a wrong
// base_url, a robots.txt or template change that shuts out the site), and
// once published, search engines drop the pages: so the sitemaps stay as
// they were until one is forced.
type ShrinkError struct {
	Before  int        // pages listed before whose files are still there
	After   int        // pages the publish would list
	Dropped tree.Tally // pages listed before and now left out, by reason
	Pages   int        // pages read (listed or left out)
	Cause   string     // the likely cause, in words
}

func (e *ShrinkError) Error() string {
	var what string
	if n := e.Dropped.Total(); n > 0 {
		what = fmt.Sprintf("it would stop listing %d of the %d pages listed before that are still there (left out: %s)",
			n, e.Before, e.Dropped.String())
	} else {
		what = fmt.Sprintf("it would list no page, while %d pages are there", e.Pages)
	}
	return fmt.Sprintf("publish refused, the sitemaps stay as they were: %s; likely cause: %s. "+
		"If this is meant, run `sitemapd build -force` once, or set shrink_guard: false", what, e.Cause)
}

// save keeps a group's state as it was before the publish changed it, for
// refuse.
func (r *run) save(e *Engine, dir string) {
	if _, ok := r.saved[dir]; ok {
		return
	}
	var prev *group
	if g := e.groups[dir]; g != nil {
		c := *g // its slices are replaced, never written to
		prev = &c
	}
	r.saved[dir] = prev
}

// account counts a group's publish for the shrink guard: it listed prev
// URLs and will list now; removed are the URLs it stops listing, which
// were dropped by a rule when the read left their pages out (and deleted
// otherwise).
func (r *run) account(e *Engine, g *scan.Group, prev, now int, removed []string) {
	r.still += prev - len(removed)
	r.after += now
	for _, loc := range removed {
		if why, ok := e.leftOut(&g.Left, loc); ok {
			r.dropped.Add(why)
		}
	}
}

// leftOut looks up a URL a group listed before among the pages its read
// left out. A URL under another base than base_url (base_url changed
// since) is the page whose URL ends the same way: with a wrong base_url,
// the pages dropped are the ones it lists under the right one.
func (e *Engine) leftOut(left *scan.LeftOut, loc string) (tree.Reason, bool) {
	if why, ok := left.Locs[loc]; ok || len(left.Locs) == 0 || strings.HasPrefix(loc, e.cfg.BaseURL) {
		return why, ok
	}
	u, err := url.Parse(loc)
	if err != nil {
		return tree.Listed, false
	}
	// The longest tail that is a page's path below base_url: each tail
	// after a slash of the path, from the first.
	p := u.EscapedPath()
	for i := 0; i < len(p); i++ {
		if p[i] == '/' {
			if why, ok := left.Locs[e.cfg.BaseURL+p[i+1:]]; ok {
				return why, true
			}
		}
	}
	return tree.Listed, false
}

// guarded reports whether the shrink guard is on.
func (e *Engine) guarded() bool { return e.cfg.ShrinkGuard && !e.force }

// guard returns the publish's ShrinkError, if the guard refuses it.
func (e *Engine) guard(r *run) *ShrinkError {
	if !e.guarded() {
		return nil
	}
	still, after := r.still, r.after
	for dir, g := range e.groups {
		// Groups this publish leaves as they are (after a full walk, the
		// ones it met: the others are gone).
		if _, published := r.staged[dir]; !published && g.urls > 0 && (!r.full || r.seen[dir]) {
			still += g.urls
			after += g.urls
		}
	}
	dropped := r.dropped.Total()
	pages := after + r.left.Tally.Total()
	before := still + dropped
	refuse := dropped > 0 && 2*dropped > before
	if after == 0 && r.left.Tally.Total() > 0 {
		refuse = true
	}
	if !refuse {
		return nil
	}
	why := r.dropped
	if dropped == 0 {
		why = r.left.Tally
	}
	return &ShrinkError{Before: before, After: after, Dropped: r.dropped, Pages: pages, Cause: e.cause(why.Top(), &r.left, pages)}
}

// cause says in words why pages were left out for reason why, out of
// pages read.
func (e *Engine) cause(why tree.Reason, left *scan.LeftOut, pages int) string {
	n := left.Tally[why]
	switch why {
	case tree.Canonical:
		if base, m := topBase(left); m > 0 {
			return fmt.Sprintf("%d of %d pages name a canonical URL under %s, not under base_url %s", m, pages, base, e.cfg.BaseURL)
		}
		return fmt.Sprintf("%d of %d pages name another page as canonical", n, pages)
	case tree.Robots:
		return fmt.Sprintf("%d of %d pages are disallowed by robots.txt for user agent %q", n, pages, e.cfg.Pages.RobotsAgent)
	case tree.NoIndex:
		return fmt.Sprintf("%d of %d pages say noindex in their head", n, pages)
	case tree.Redirect:
		return fmt.Sprintf("%d of %d pages redirect elsewhere at once (meta refresh)", n, pages)
	case tree.Excluded:
		return fmt.Sprintf("%d of %d pages match pages.exclude", n, pages)
	case tree.ErrorPage:
		return fmt.Sprintf("%d of %d pages match pages.error_pages", n, pages)
	case tree.TooLong:
		return fmt.Sprintf("%d of %d pages have URLs longer than the protocol allows (is base_url right?)", n, pages)
	}
	return fmt.Sprintf("%d of %d pages are left out (%s)", left.Tally.Total(), pages, left.Tally.String())
}

// topBase is the base URL most canonicals that point away from base_url
// are under, and how many.
func topBase(left *scan.LeftOut) (string, int) {
	best, n := "", 0
	for _, base := range slices.Sorted(maps.Keys(left.Elsewhere)) {
		if c := left.Elsewhere[base]; c > n {
			best, n = base, c
		}
	}
	return best, n
}

// refuse abandons a publish the guard refused: no file of it lands, and
// the engine's groups are as they were before it, so that it knows what is
// published. Only what was read is reported.
func (e *Engine) refuse(r *run, err *ShrinkError) (*Report, error) {
	e.abort(r)
	if e.dry != nil {
		e.dry.refuse()
	}
	e.restore(r)
	if r.full {
		e.refused = err
	}
	return &Report{LeftOut: r.left.Tally, Duration: e.now().Sub(r.start)}, err
}

// restore puts the engine's state back as it was before an abandoned run.
func (e *Engine) restore(r *run) {
	e.restoreURLFiles(r)
	for dir, prev := range r.saved {
		if prev == nil {
			delete(e.groups, dir)
		} else {
			e.groups[dir] = prev
		}
	}
}

// Refused returns the refusal of the last full build, until a full build
// succeeds: while it stands, the published sitemaps are older than the
// tree.
func (e *Engine) Refused() error {
	if e.refused == nil {
		return nil
	}
	return e.refused
}

// warnCanonicals warns, after the first full build, when most pages'
// canonical URLs are under another base URL than base_url: the pages are
// left out, and base_url is likely wrong.
func (e *Engine) warnCanonicals(left *scan.LeftOut) {
	base, n := topBase(left)
	if n == 0 || 2*n <= left.Canonicals {
		return
	}
	e.log.Warn("most pages name a canonical URL under another base URL than base_url: is base_url right?",
		zap.String("base_url", e.cfg.BaseURL), zap.String("canonical_base", base),
		zap.Int("pages", n), zap.Int("pages_with_canonical", left.Canonicals))
}
