package build

import (
	"time"

	"github.com/sitemapd/sitemapd/internal/changeset"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// A release swapped in (current -> releases/N+1) holds none of sitemapd's
// files, and the engine that publishes it is new: neither its files nor
// its memory say what was published from the release before. The page
// store does: it never lags the sitemaps (it is written first), so it
// holds at least what they showed. What a publish owes is then computed
// against it, so only the pages added, changed and removed are owed.

// publishedBefore compares a group (u: its read) with what the page store
// says it published, when its files are not there to say it (old is
// empty). ok is false when the files are there, the store knows nothing
// of the group, or the group is not viewed as listings (it follows
// symlinks).
func (ps *pageCache) publishedBefore(dir string, u *tree.Update, old []string, now time.Time) (changeset.Changes, int, bool) {
	if len(old) > 0 || u == nil || u.View == nil {
		return changeset.Changes{}, 0, false
	}
	known := ps.knownOf(dir)
	if len(known) == 0 {
		return changeset.Changes{}, 0, false
	}
	return changeset.Compare(known, u.View, now, ps.scan.PageLoc), tree.CountListed(known), true
}

// goneSince returns the pages of the groups the store knows and a full
// walk did not meet (seen), nor memory holds (their removal is memory's
// to report): a release that drops a whole section. Only the store found
// at start is asked, so only the first full walk of an engine owes them.
func (ps *pageCache) goneSince(seen map[string]bool, now time.Time) changeset.Changes {
	byGroup := map[string]map[string]*tree.Listing{}
	ps.old.Each(func(d string, l *tree.Listing) {
		g := ps.depth.GroupOf(d)
		if seen[g] || ps.mem.Remembers(g) {
			return
		}
		if byGroup[g] == nil {
			byGroup[g] = map[string]*tree.Listing{}
		}
		byGroup[g][d] = l
	})
	var c changeset.Changes
	for _, listings := range byGroup {
		c.Merge(changeset.Compare(listings, nil, now, ps.scan.PageLoc))
	}
	return c
}
