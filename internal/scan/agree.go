package scan

import "github.com/sitemapd/sitemapd/internal/tree"

// Agreer decides a page's time with the other servers of a fleet
// (package fleet): given the page's root-relative path, the hash of its
// bytes, the hash of the bytes known of it before (0: none) and the time
// this server decided, it returns the time to publish: the fleet's for
// these bytes if another server recorded them first, else local. It must
// not block (walks call it from their goroutines, once a page).
type Agreer interface {
	Agree(rel string, sum, prev uint64, local int64) int64
}

// agree sets the time of page p, at rel, to the one its fleet agreed for
// its bytes (prev: the hash known of it before, 0 for none). Pages
// without a hash (pages.lastmod: mtime, a file not read) have nothing to
// agree on; a fleet's configuration forbids the first.
func (w *Walk) agree(rel string, p *tree.Page, prev uint64) {
	if a := w.s.agree; a != nil && p.Sum != 0 {
		p.Time = a.Agree(rel, p.Sum, prev, p.Time)
	}
}
