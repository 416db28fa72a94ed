package scan

import "github.com/sitemapd/sitemapd/internal/tree"

// busy handles a page the watcher says is still being written
// (WalkOptions.Busy): what its file holds now may be half of it (a cp or
// an rsync --inplace over a live tree, cut by watch.max_delay), and taken
// as a version it would move the page's lastmod twice, or to a time its
// content never had. A page known keeps what is known of it, with
// NoStamp so that it is read again once quiet; a page not known yet is
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
	p.Stamp = tree.NoStamp
	p.Time, p.Sum, p.Print, p.Parts, p.Head = k.Time, k.Sum, k.Print, k.Parts, k.Head
	if p.Head.Hidden() {
		w.leave(g, p.Head.Out, loc(), rel, "")
	}
	return true, false
}
