package build

import (
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/sitemapd/sitemapd/internal/scan"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// GroupStatus is one published group as the status page shows it: what
// its sitemap lists and what its directories leave out.
type GroupStatus struct {
	Dir    string // the group's directory, relative to the root ("" for the root)
	URL    string // the URL of that directory (base_url for the root)
	Listed int    // URLs its published sitemap lists
	// Dated is how many of its listed pages have for lastmod the date
	// their head states (pages.head_dates; tree.Page.Dated); the
	// others' come from the configured pages.lastmod (content or mtime).
	Dated int
	// LeftOut counts its pages left out, by reason.
	LeftOut tree.Tally
	// Examples are, for each reason, URLs of pages it left out: at most
	// GroupExamples, the least in byte order, of at most one a directory
	// (what is kept of a directory: scan.DirLeft).
	Examples [len(tree.Tally{})][]string
}

// GroupExamples is how many example URLs a GroupStatus has at most for a
// reason.
const GroupExamples = 3

// Groups returns the groups published and what each lists and leaves out,
// sorted by directory. Unlike the rest of Engine it may be called from
// any goroutine, as a publish runs: the daemon's status page reads it per
// request. A group a publish did not read keeps what its last read
// found; a group whose files did not land, what it had before. The
// GroupStatus values are shared, made once as their group's publish
// landed: they must not be changed.
func (e *Engine) Groups() []*GroupStatus { return e.model.left.groups() }

// leftBook is what the published groups list and leave out, for the
// status page: per group, its URLs listed, and per directory of it that
// has pages left out, their count by reason and one example URL for each
// reason (scan.DirLeft). Nothing is kept per page: a site's million pages
// cost it nothing, its directories with pages left out some hundred bytes
// and a URL a reason each.
//
// A group read whole takes what the read found. A group a change
// refreshed (scan.Group.FromView) takes, for each directory read whole,
// what the read found; for one read for some entries only, what it had
// amended by those entries (scan.Amend); for the others, what it had; and
// forgets the directories it no longer has. The Engine stages a group's
// entry with its publish (next) and sets it when the group's files land
// (land), on its goroutine; the daemon reads it from others (groups),
// hence the lock. An entry is never changed once made, only replaced.
type leftBook struct {
	mu  sync.Mutex
	all map[string]*groupLeft
}

// groupLeft is what a leftBook keeps of one group.
type groupLeft struct {
	listed int
	dated  int                      // listed pages Dated (GroupStatus.Dated)
	dirs   map[string]*scan.DirLeft // only directories with pages left out
	st     *GroupStatus             // what Groups says of it, made as it lands
}

// next returns the entry a group takes once a publish of it lands: g as
// read (whole, or refreshed through u's View), listing urls URLs.
func (b *leftBook) next(g *scan.Group, u *tree.Update, urls int) *groupLeft {
	n := &groupLeft{listed: urls, dated: countDated(g, u)}
	if g.FromView && u != nil {
		b.mu.Lock()
		if old := b.all[g.Dir]; old != nil {
			for d, dl := range old.dirs {
				if _, still := u.View[d]; still {
					n.set(d, dl)
				}
			}
		}
		b.mu.Unlock()
		for d, a := range g.Left.Amended {
			if _, whole := g.Left.Dirs[d]; !whole {
				n.set(d, amended(n.dirs[d], a))
			}
		}
	}
	for d, dl := range g.Left.Dirs {
		n.set(d, dl)
	}
	return n
}

// countDated counts the listed pages of group g, as it will be published
// (the View of u, or what its read found), whose lastmod is the date
// their head states: from each directory's bits (tree.Listing.CountDated),
// a word for 64 pages, and the pages not recorded (g.DatedURLs). A
// listing read again is a listing made anew, so a page whose head lost
// its date is counted no more.
func countDated(g *scan.Group, u *tree.Update) int {
	dirs := g.Listings
	if u != nil && u.View != nil {
		dirs = u.View
	}
	n := len(g.DatedURLs)
	for _, l := range dirs {
		n += l.CountDated()
	}
	return n
}

// set keeps what directory d leaves out, or forgets it if that is nothing.
func (n *groupLeft) set(d string, dl *scan.DirLeft) {
	if dl == nil || dl.Tally.Total() == 0 {
		delete(n.dirs, d)
		return
	}
	if n.dirs == nil {
		n.dirs = map[string]*scan.DirLeft{}
	}
	n.dirs[d] = dl
}

// amended is what a directory leaves out after a read of some of its
// entries: what it left out before (nil for nothing), with the counts the
// read changed, less the examples among the entries read, plus those the
// read found. An example lost so (a page no longer left out, or left out
// for another reason) is found again at the directory's next whole read:
// until then the directory may show no example for a reason it counts.
func amended(was *scan.DirLeft, a *scan.Amend) *scan.DirLeft {
	n := &scan.DirLeft{}
	if was != nil {
		*n = *was
	}
	for i := range n.Tally {
		n.Tally[i] = max(0, n.Tally[i]+a.Tally[i])
		if n.Tally[i] == 0 || slices.Contains(a.Reread, n.Examples[i]) {
			n.Examples[i] = ""
		}
		if ex := a.Examples[i]; ex != "" && n.Tally[i] > 0 && (n.Examples[i] == "" || ex < n.Examples[i]) {
			n.Examples[i] = ex
		}
	}
	return n
}

// land sets a group's entry as its publish landed, url being its
// directory's URL; an entry of nothing (no URL listed, none left out) is
// forgotten.
func (b *leftBook) land(dir, url string, n *groupLeft) {
	if n == nil {
		return
	}
	n.st = n.status(dir, url)
	b.mu.Lock()
	defer b.mu.Unlock()
	if n.listed <= 0 && len(n.dirs) == 0 {
		delete(b.all, dir)
		return
	}
	if b.all == nil {
		b.all = map[string]*groupLeft{}
	}
	b.all[dir] = n
}

// keepOnly forgets the groups a full build did not meet.
func (b *leftBook) keepOnly(seen map[string]bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	maps.DeleteFunc(b.all, func(dir string, _ *groupLeft) bool { return !seen[dir] })
}

// groups is Engine.Groups.
func (b *leftBook) groups() []*GroupStatus {
	b.mu.Lock()
	out := make([]*GroupStatus, 0, len(b.all))
	for _, n := range b.all {
		out = append(out, n.st)
	}
	b.mu.Unlock()
	slices.SortFunc(out, func(a, b *GroupStatus) int { return strings.Compare(a.Dir, b.Dir) })
	return out
}

// status is what Groups says of a group: its directories' counts summed,
// and their examples, the least GroupExamples for each reason.
func (n *groupLeft) status(dir, url string) *GroupStatus {
	gs := &GroupStatus{Dir: dir, URL: url, Listed: max(0, n.listed), Dated: min(n.dated, max(0, n.listed))}
	for _, dl := range n.dirs {
		gs.LeftOut.Merge(dl.Tally)
		for i, ex := range dl.Examples {
			if ex != "" {
				gs.Examples[i] = append(gs.Examples[i], ex)
			}
		}
	}
	for i, exs := range gs.Examples {
		slices.Sort(exs)
		gs.Examples[i] = slices.Clip(exs[:min(len(exs), GroupExamples)])
	}
	return gs
}

// datedAmong counts, among the URLs of group g's pages in some lists
// (the URLs a Diff found added or changed, with nothing remembered to
// tell), those of pages whose lastmod is the date their head states;
// loc makes a page's URL (scan.Scanner.PageLoc). The directories
// without such pages cost a look at their bits, the others a URL made
// for each such page.
func datedAmong(g *scan.Group, loc func(dir, name string) string, lists ...[]string) int {
	set := map[string]bool{}
	for _, l := range lists {
		for _, loc := range l {
			set[loc] = true
		}
	}
	if len(set) == 0 {
		return 0
	}
	n := 0
	for _, loc := range g.DatedURLs {
		if set[loc] {
			n++
		}
	}
	for dir, l := range g.Listings {
		if l.CountDated() == 0 {
			continue
		}
		l.Each(func(i int, name string, _ int64) {
			if l.Dated(i) && set[loc(dir, name)] {
				n++
			}
		})
	}
	return n
}
