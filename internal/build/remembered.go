package build

import (
	"slices"

	"github.com/sitemapd/sitemapd/internal/scan"
)

// asRemembered is the groups record's shortcut (unchanged.go) for a
// daemon's full build, which has its memory instead of a record: a group
// whose listings give the URL entries its remembered ones gave (the same
// digest: every page's name, time and head), not failed, with no page
// still to come, and whose parts are on disk as they landed, keeps them
// (Engine.keepGroup) without its URLs computed or its parts encoded and
// compared. The page prints build that follows a daemon's first publish
// reads every page for its print and moves no lastmod, and a rescan
// mostly finds what is known: a group's URLs, some 200 bytes a page, were
// most of what such a build held beyond the listings, old and new, and
// their encoding most of its CPU after the reads. It returns what is
// known of the group's files, as the record would say it.
func (ps *pageCache) asRemembered(m *published, full bool, g *scan.Group) (groupRecord, bool) {
	cur := m.groups[g.Dir]
	if ps.mem == nil || !full || cur == nil || cur.failed || cur.due != 0 || len(cur.textParts) > 0 ||
		!slices.Equal(partNames(cur.published), cur.parts) {
		return groupRecord{}, false
	}
	before := m.remembered(g.Dir)
	if len(before) == 0 {
		return groupRecord{}, false
	}
	digest := groupDigest(g.Listings)
	if groupDigest(before) != digest {
		return groupRecord{}, false
	}
	rec, ok := recordOf(cur, digest)
	if !ok || !ps.keepable(g, rec) {
		return groupRecord{}, false
	}
	return rec, true
}
