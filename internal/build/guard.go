package build

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/scan"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// ShrinkError is a publish the shrink guard refused: of the pages listed
// before, it would have stopped listing more than half, because a rule now
// leaves them out or because their files are gone (deleted, a volume not
// mounted, a root emptied, replaced or pointed at another tree), or it
// would have listed nothing while there are pages. Such a shrink is most
// often a mistake (a wrong base_url, a robots.txt or template change that
// shuts out the site, a deploy or mount gone wrong), and once published,
// search engines drop the pages: so the sitemaps stay as they were, and
// nothing is owed, until one is forced.
type ShrinkError struct {
	Before  int        // pages listed before
	After   int        // pages the publish would list
	Dropped tree.Tally // pages listed before and now left out, by reason
	Gone    int        // pages listed before whose files are gone
	Pages   int        // pages read (listed or left out)
	Cause   string     // the likely cause, in words
}

func (e *ShrinkError) Error() string {
	var what string
	switch n := e.Dropped.Total(); {
	case n > 0 || e.Gone > 0:
		what = fmt.Sprintf("it would stop listing %d of the %d pages listed before", n+e.Gone, e.Before)
		if n > 0 {
			what += fmt.Sprintf(" (left out: %s)", e.Dropped.String())
		}
		if e.Gone > 0 {
			what += fmt.Sprintf(" (gone from the document root: %d)", e.Gone)
		}
	default:
		what = fmt.Sprintf("it would list no page, while %d pages are there", e.Pages)
	}
	return fmt.Sprintf("publish refused, the sitemaps stay as they were and nothing is sent: %s; likely cause: %s. "+
		"If this is meant, stop the daemon and run `sitemapd build -force` once, or set shrink_guard: false", what, e.Cause)
}

// account counts a group's publish for the shrink guard: it listed prev
// URLs and will list now; removed are the URLs it stops listing, which
// were dropped by a rule when the read left their pages out (and deleted
// otherwise).
func (r *run) account(baseURL string, g *scan.Group, prev, now int, removed []string) {
	r.still += prev - len(removed)
	r.after += now
	for _, loc := range removed {
		if why, ok := leftOut(&g.Left, baseURL, loc); ok {
			r.dropped.Add(why)
		} else {
			r.noteDeleted(loc)
		}
	}
}

func (r *run) noteDeleted(loc string) {
	if r.deleted == nil {
		r.deleted = map[string]bool{}
	}
	r.deleted[loc] = true
}

// unseenListed notes, after a full walk, the pages listed before in the
// groups it did not meet as deleted: those memory held (the daemon's), and
// those of the directories the page store remembers (a build's, or the
// daemon's first). A URL is counted once, however many places say it was
// listed: a directory moved within the root carries its sitemaps, which
// list the old URLs too. Directories the configuration now excludes are
// left out on purpose, not gone.
func (e *Engine) unseenListed(r *run) {
	if !r.full {
		return
	}
	note := func(dir string, l *tree.Listing) {
		if e.scan.SkipDir(dir) {
			return
		}
		l.All(func(i int, name string) {
			if !l.Head(i).Hidden() {
				r.noteDeleted(e.scan.PageLoc(dir, name))
			}
		})
	}
	mem := e.model.mem
	if mem != nil {
		mem.Groups(func(g string) {
			if !r.seen[g] {
				for dir, l := range mem.Listings(g) {
					note(dir, l)
				}
			}
		})
	}
	if e.pages.old != nil {
		e.pages.old.Each(func(dir string, l *tree.Listing) {
			if g := e.opts.depth.GroupOf(dir); !r.seen[g] && (mem == nil || mem.Listings(g) == nil) {
				note(dir, l)
			}
		})
	}
}

// leftOut looks up a URL a group listed before among the pages its read
// left out. A URL under another base than base_url (base_url changed
// since) is the page whose URL ends the same way: with a wrong base_url,
// the pages dropped are the ones it lists under the right one (baseURL).
func leftOut(left *scan.LeftOut, baseURL, loc string) (tree.Reason, bool) {
	if why, ok := left.Locs[loc]; ok || len(left.Locs) == 0 || strings.HasPrefix(loc, baseURL) {
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
			if why, ok := left.Locs[baseURL+p[i+1:]]; ok {
				return why, true
			}
		}
	}
	return tree.Listed, false
}

// minShared is the fewest pages listed before for which a publish that
// keeps a tenth of them or less is taken for another tree.
const minShared = 10

// guarded reports whether the shrink guard is on.
func (e *Engine) guarded() bool { return e.cfg.ShrinkGuard && !e.opts.force }

// guard returns the publish's ShrinkError, if the guard refuses it.
func (e *Engine) guard(r *run) *ShrinkError {
	if !e.guarded() {
		return nil
	}
	still, after := r.still, r.after
	for dir, g := range e.model.groups {
		// Groups this publish leaves as they are (after a full walk, the
		// ones it met: the others are gone).
		if _, published := r.staged[dir]; !published && g.urls > 0 && (!r.full || r.seen[dir]) {
			still += g.urls
			after += g.urls
		}
	}
	e.unseenListed(r)
	dropped, gone := r.dropped.Total(), len(r.deleted)
	pages := after + r.left.Tally.Total()
	before := still + dropped + gone
	// Pages still there that a rule now leaves out: more than half of
	// them. Pages gone: a publish that would list fewer than half the
	// pages listed before, or none at all (a move, which adds what it
	// removes, is no shrink); or one that shares almost nothing with what
	// was listed (a root pointed at another tree), on a site large enough
	// for the share to mean something.
	refuse := 2*dropped > still+dropped ||
		(gone > 0 && 2*after < before) ||
		(before >= minShared && 10*gone >= 9*before) ||
		(after == 0 && r.left.Tally.Total() > 0)
	if !refuse {
		return nil
	}
	err := &ShrinkError{Before: before, After: after, Dropped: r.dropped, Gone: gone, Pages: pages}
	switch why := r.dropped; {
	case gone > dropped:
		err.Cause = fmt.Sprintf("%d of the %d pages listed before are gone from the document root %s (a deploy that deleted them, a volume not mounted, root emptied or pointed at another tree?)",
			gone, before, e.cfg.Root)
	case dropped == 0:
		err.Cause = cause(e.cfg, r.left.Tally.Top(), &r.left, pages)
	default:
		err.Cause = cause(e.cfg, why.Top(), &r.left, pages)
	}
	return err
}

// cause says in words why pages were left out for reason why, out of
// pages read, under cfg.
func cause(cfg *config.Config, why tree.Reason, left *scan.LeftOut, pages int) string {
	n := left.Tally[why]
	switch why {
	case tree.Canonical:
		if base, m := topBase(left); m > 0 {
			return fmt.Sprintf("%d of %d pages name a canonical URL under %s, not under base_url %s", m, pages, base, cfg.BaseURL)
		}
		return fmt.Sprintf("%d of %d pages name another page as canonical", n, pages)
	case tree.Robots:
		return fmt.Sprintf("%d of %d pages are disallowed by robots.txt for user agent %q", n, pages, cfg.Pages.RobotsAgent)
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
// the engine's model of what is published stays as it was (it takes a
// run's groups only at the commit), so that it knows what is published.
// Only what was read is reported.
func (e *Engine) refuse(r *run, err *ShrinkError) (*Report, error) {
	e.abort(r)
	e.out.refused()
	e.model.refused = err
	if e.out.lands() {
		// The daemon retries the groups, with its backoff, until the
		// shrink is over (a volume mounted again, a deploy finished) or
		// forced.
		e.failRun(r)
	}
	return &Report{LeftOut: r.left.Tally, Duration: e.opts.now().Sub(r.start)}, err
}

// Refused returns the last refusal, until a full build succeeds or every
// group it marked failed is published: while it stands, the published
// sitemaps are older than the tree.
func (e *Engine) Refused() error {
	if e.model.refused == nil {
		return nil
	}
	return e.model.refused
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
