package scan

import (
	"time"

	"github.com/sitemapd/sitemapd/internal/tree"
)

// busy handles a page the watcher says is still being written
// (WalkOptions.Busy): what its file holds now may be half of it (a cp or
// an rsync --inplace over a live tree, cut by watch.max_delay), and taken
// as a version it would move the page's lastmod twice, or to a time its
// content never had. A page known keeps what is known of it, its stamp
// too: the file's own is another now (it is being written), so it is read
// again once quiet, and the stamp still names the version its other names
// (hard links) share, by which that read finds them (relinked: with
// NoStamp here, an edit through one name of a file with several, cut by
// max_delay, was never seen under the others). A page not known yet is
// left out of this publish (gone), to be listed once it is whole. handled
// is false for a page not busy.
//
// In a batch cut while files were being written, the pages the watcher
// did not name (WalkOptions.Named: read because their directory is read
// whole) may be being written too, their events still on their way (cp
// is going through the directory now). Such a page is busy if its inode
// changed (ctime) less than WalkOptions.Settle ago, or if its file is
// empty: a file that cp is truncating shows its new size before its new
// times (the kernel sets them apart, and stat takes no lock; seen on
// ext4), and no version of a page is empty. Its events bring it again.
// A ctime ahead of the clock (a clock stepped back) is not taken as busy.
// (A page emptied on purpose, in such a batch, keeps its last version
// until its next event or the next rescan.)
func (w *Walk) busy(g *Group, p *tree.Page, rel string, st fileStat, kn *known, loc func() string) (handled, gone bool) {
	if !w.isBusy(rel, st) {
		return false, false
	}
	k, ok := kn.lookup(p.Name)
	if !ok {
		return true, true
	}
	p.Stamp = k.Stamp
	keepKnown(p, k)
	if p.Head.Hidden() {
		w.leave(g, p.Head.Out, loc(), rel, "")
	}
	return true, false
}

// isBusy reports whether the page at rel, whose file is st, is being
// written (busy).
func (w *Walk) isBusy(rel string, st fileStat) bool {
	if w.o.Busy != nil && w.o.Busy(rel) {
		return true
	}
	if w.o.Named == nil || w.o.Named(rel) {
		return false
	}
	if st.size == 0 {
		return true
	}
	ago := time.Now().UnixNano() - st.ctime
	return ago >= 0 && ago < int64(w.o.Settle)
}
