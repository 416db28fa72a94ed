package build

import (
	"maps"

	"github.com/sitemapd/sitemapd/internal/tree"
)

// repack packs the daemon's memory anew (tree.Memory.Repack) once a full
// build has committed: its listings were made amid the walk's garbage and
// sit scattered over spans that, the garbage gone, cannot be given back
// (the daemon's memory at rest, issue 22). Only after a full build (the
// first, the page prints build, a rescan): a change's publish reads a few
// directories and pays nothing for this. The page store's bases
// (storebase.go), held by pointer, follow their listings to the copies.
func (ps *pageCache) repack() {
	mem := ps.mem
	if mem == nil {
		return
	}
	// A map anew, under the copies' paths: an entry set again keeps its
	// old key, and the key its span.
	bases := ps.stored.bases
	moved := make(map[string]*tree.Listing, len(bases))
	mem.Repack(func(dir string, was, now *tree.Listing) {
		if l, ok := bases[dir]; ok && l == was {
			moved[dir] = now
			// Let go of the original now, as memory does: Repack frees
			// the listings a chunk at a time only if nothing else keeps
			// them to its end.
			delete(bases, dir)
		}
	})
	// What is left of bases is not in memory's groups (pagestate.go's held).
	maps.Copy(moved, bases)
	if bases != nil {
		ps.stored.bases = moved
	}
}
