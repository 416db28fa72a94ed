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
func (w *Walk) busy(g *Group, p *tree.Page, rel string, kn *known, loc func() string) (handled, gone bool) {
	if w.o.Busy == nil || !w.o.Busy(rel) {
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
