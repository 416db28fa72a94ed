package tree

import (
	"encoding/binary"

	"github.com/cespare/xxhash/v2"
)

// Digest is a hash of what the URL entries of a directory's pages depend
// on: each page's name, time and head. It leaves out their stamps and
// sums (how a time was learnt, not what it is) and the subdirectories.
// Under one configuration, and as long as no page's time is still to
// come, two listings of one directory with the same digest give the same
// URL entries. It does not depend on the pages' order, which a directory
// read gives as the file system keeps its entries (tmpfs, for one, lists
// the newest first): a redeploy that writes the same pages in another
// order has the same digest.
func (l *Listing) Digest(dir string) uint64 {
	var sum uint64
	var d xxhash.Digest
	var b [17]byte
	l.All(func(i int, name string) {
		h := l.Head(i)
		d.Reset()
		d.WriteString(name)
		// After the name, a NUL (never in a name: the name ends here),
		// the time, why the head keeps the page out, and where the
		// alternates end and the images begin; then where the images
		// end and the article begins.
		b[0] = 0
		binary.LittleEndian.PutUint64(b[1:], uint64(l.times[i]))
		binary.LittleEndian.PutUint64(b[9:], uint64(h.Out)<<56|uint64(len(h.Alts)))
		d.Write(b[:])
		d.WriteString(h.Alts)
		d.WriteString(h.Images)
		if h.News != "" {
			binary.LittleEndian.PutUint64(b[1:], uint64(len(h.Images)))
			d.Write(b[:9])
			d.WriteString(h.News)
		}
		sum += d.Sum64()
	})
	// The directory and the number of pages bind the sum to this listing.
	d.Reset()
	d.WriteString(dir)
	binary.LittleEndian.PutUint64(b[1:], sum)
	binary.LittleEndian.PutUint64(b[9:], uint64(l.Len()))
	d.Write(b[:])
	return d.Sum64()
}
