package pagestore

import (
	"encoding/binary"
	"hash/crc32"

	"github.com/sitemapd/sitemapd/internal/tree"
)

// Amend blocks (version 8 on): what a publish appends for a directory the
// store holds already is the pages that differ from what it holds, not
// the directory's whole listing. One page edited in a directory of 30,000
// files appended (and synced) its 670 KB listing at every change, and the
// store, grown by its own size every few such changes, was written whole
// again in the middle of a change's publish: the change latency's tail
// (bench/README.md). Amended, a change appends some 100 bytes.
//
// An amend block's payload is amendBlock, the directory, the number of
// names removed and each name, then a listing's payload (format.go,
// with an empty directory) of the pages added or changed. It amends the
// listing of its directory that the blocks before it make (the last full
// block and the amend blocks after it, in order): pages of the names
// removed go, a page of a name the listing has replaces it in its place,
// the others are added at the end (tree.Listing.Amend). An amend block
// with no full block of its directory before it is not read: the
// directory is not known, and its pages are read again.

// amendBlock is the first byte of an amend block's payload (no Kept has
// it, nor is it modelBlock).
const amendBlock = 0xfe

// amendAt is the share of a listing's pages past which a delta is not
// worth it: the whole listing is appended instead, which ends the chain
// of amend blocks a reader applies.
const amendAt = 4 // a quarter

// appendAmendBlock appends to b the block that amends base, the listing
// the store holds of dir, into l (nothing if they are alike), and reports
// true; or appends nothing and reports false when the whole listing is
// the better block (nothing to amend from, other columns kept, or too
// much changed).
func appendAmendBlock(b []byte, dir string, base, l *tree.Listing) ([]byte, bool) {
	if base == nil || base.Kept() != l.Kept() || l.Kept() == 0 {
		return b, false
	}
	removed, changed, ok := listingDelta(base, l, max(1, l.Len()/amendAt))
	if !ok {
		return b, false
	}
	if len(removed)+len(changed) == 0 {
		return b, true // the store holds it as it is
	}
	p := []byte{amendBlock}
	p = appendString(p, dir)
	p = binary.AppendUvarint(p, uint64(len(removed)))
	for _, name := range removed {
		p = appendString(p, name)
	}
	p = appendListingPayload(p, "", tree.NewListing(changed, l.Kept(), nil, tree.DirID{}))
	b = binary.AppendUvarint(b, uint64(len(p)))
	b = append(b, p...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(p, castagnoli)), true
}

// listingDelta returns the names of base that l does not have, and the
// pages of l that base does not have as they are; ok is false when more
// than most of them differ.
func listingDelta(base, l *tree.Listing, most int) (removed []string, changed []tree.Page, ok bool) {
	if l.SameNames(base) {
		// The same names in the same order (an edit in place): compare
		// page by page, without a lookup.
		l.All(func(i int, name string) {
			if p := l.Page(i, name); len(changed) <= most && !samePage(p, base.Page(i, name)) {
				changed = append(changed, p)
			}
		})
		return nil, changed, len(changed) <= most
	}
	at := make(map[string]int, base.Len())
	base.All(func(i int, name string) { at[name] = i })
	l.All(func(i int, name string) {
		j, had := at[name]
		delete(at, name)
		if p := l.Page(i, name); len(changed) <= most && (!had || !samePage(p, base.Page(j, name))) {
			changed = append(changed, p)
		}
	})
	if len(changed)+len(at) > most {
		return nil, nil, false
	}
	base.All(func(_ int, name string) {
		if _, gone := at[name]; gone {
			removed = append(removed, name)
		}
	})
	return removed, changed, true
}

// samePage reports whether two pages are stored alike (their URLs are
// not stored).
func samePage(a, b tree.Page) bool {
	return a.Name == b.Name && a.Time == b.Time && a.Stamp == b.Stamp && a.Sum == b.Sum &&
		a.Print == b.Print && a.Parts == b.Parts && a.Dated == b.Dated && a.Head == b.Head
}

// isAmend reports whether a checked payload is an amend block's.
func isAmend(v version, payload []byte) bool {
	return v >= 8 && len(payload) > 0 && payload[0] == amendBlock
}

// applyAmend returns base amended by the amend block's payload b, of a
// store of version v (noStamps: as decodeListing).
func applyAmend(base *tree.Listing, b []byte, v version, noStamps bool) (*tree.Listing, error) {
	_, off, err := readBytes(b, 1) // the directory
	if err != nil {
		return nil, err
	}
	n, off, err := readUvarint(b, off)
	if err != nil || n > uint64(len(b)) {
		return nil, errCorrupt
	}
	edit := make(map[string]*tree.Page, n)
	for range n {
		var name []byte
		if name, off, err = readBytes(b, off); err != nil {
			return nil, err
		}
		edit[string(name)] = nil
	}
	l, err := decodeListing(b[off:], v, noStamps)
	if err != nil {
		return nil, err
	}
	if l.Kept() != base.Kept() {
		return nil, errCorrupt
	}
	pages := l.Pages()
	for i := range pages {
		edit[pages[i].Name] = &pages[i]
	}
	var add []tree.Page
	has := make(map[string]bool, len(pages))
	base.All(func(_ int, name string) {
		if _, ok := edit[name]; ok {
			has[name] = true
		}
	})
	for _, p := range pages {
		if !has[p.Name] {
			add = append(add, p)
		}
	}
	return base.Amend(base.Kept(), edit, add, nil), nil
}
