package scan

import "github.com/sitemapd/sitemapd/internal/tree"

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
// In the daemon's publish of a batch (WalkOptions.Unseen set), a page
// known is busy too if its file changed (ctime) after Unseen: the events of that
// change are not in the batch, and will bring the page again (cp is
// going through a directory read whole now). And so is an empty file,
// named by the batch or not: no version of a page is empty. A file that
// cp is truncating shows its new size before its new times (the kernel
// sets them apart, and stat takes no lock; seen on ext4); and a writer
// that truncates a file and is held up longer than watch.settle before it
// writes (a busy machine's scheduler, a slow network copy) leaves it
// empty, and named, once the batch is made: its write brings the page
// again. (A page emptied on purpose keeps its last version until its
// next event or the next rescan.) A page not known is not held back so:
// in a directory just made, files written before its watch have no event
// to bring them again.
func (w *Walk) busy(g *Group, p *tree.Page, rel string, st fileStat, kn *known, loc func() string) (handled, gone bool) {
	k, ok := kn.lookup(p.Name)
	if !(w.o.Busy != nil && w.o.Busy(rel)) && !(ok && w.unannounced(rel, st)) {
		return false, false
	}
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

// unannounced reports whether the file st of a known page at rel changed
// in a way the batch being published does not hold: after it was made,
// or (empty, not named) truncated a moment ago.
func (w *Walk) unannounced(rel string, st fileStat) bool {
	if w.o.Unseen.IsZero() {
		return false
	}
	if st.ctime > w.o.Unseen.UnixNano() {
		return true
	}
	return st.size == 0
}
