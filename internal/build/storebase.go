package build

import (
	"github.com/sitemapd/sitemapd/internal/pagestore"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// What the page store holds of each directory, for the daemon's appends:
// a directory the store holds as this engine last wrote it is appended as
// the pages that differ (pagestore.Entry.Base, an amend block), not its
// whole listing. One page edited in a directory of 30,000 files appended
// and synced 670 KB, and every third such change wrote the whole store
// again, inside the change's publish: the change latency's tail at 100k
// (bench/README.md).
//
// storeBases maps a directory to the listing the store holds of it, by
// pointer: the listings memory holds, so it costs a map entry a
// directory. Only the daemon keeps it (an engine without memory would
// keep every listing alive with it). An entry is set only where this
// engine wrote the listing (a full build's new store, an append) and goes
// where it is unsure: a missing entry costs a whole listing appended, a
// wrong one a restart that knows pages wrongly.
type storeBases struct {
	bases   map[string]*tree.Listing // of the store on disk
	pending map[string]*tree.Listing // of a full build's new store, until it commits
}

// startStore starts recording what a full build's new store holds; nil
// for an engine without memory.
func (ps *pageCache) startStore() {
	ps.stored.pending = nil
	if ps.mem != nil {
		ps.stored.pending = map[string]*tree.Listing{}
	}
}

// addToStore adds a directory's listing to a full build's new store w.
func (ps *pageCache) addToStore(w *pagestore.Writer, dir string, l *tree.Listing) {
	w.Add(dir, l)
	if ps.stored.pending != nil && pagestore.Stored(l) {
		ps.stored.pending[dir] = l
	}
}

// storeCommitted notes a full build's new store in place (ok) or not.
func (ps *pageCache) storeCommitted(ok bool) {
	ps.stored.bases = nil
	if ok {
		ps.stored.bases = ps.stored.pending
	}
	ps.stored.pending = nil
}

// entries are what a rebuild read, to append, each with the listing the
// store holds of its directory, if known.
func (ps *pageCache) entries(dirs []string, read func(dir string) *tree.Listing) []pagestore.Entry {
	out := make([]pagestore.Entry, 0, len(dirs))
	for _, d := range dirs {
		out = append(out, pagestore.Entry{Dir: d, Listing: read(d), Base: ps.stored.bases[d]})
	}
	return out
}

// appended notes entries appended (ok) or an append failed, after which
// nothing is appended until the next full build. Directories forgotten
// (removed, or re-read whole and in entries again) are first unknown: the
// store still holds what it knew of them, but nothing needs it.
func (ps *pageCache) appended(entries []pagestore.Entry, forgotten []string, ok bool) {
	if ps.stored.bases == nil {
		return
	}
	if !ok {
		ps.stored.bases = nil
		return
	}
	for _, d := range forgotten {
		delete(ps.stored.bases, d)
	}
	for _, e := range entries {
		if pagestore.Stored(e.Listing) {
			ps.stored.bases[e.Dir] = e.Listing
		} else {
			delete(ps.stored.bases, e.Dir)
		}
	}
}
