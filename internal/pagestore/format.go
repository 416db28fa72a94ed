package pagestore

import (
	"encoding/binary"
	"hash/crc32"
	"slices"

	"github.com/sitemapd/sitemapd/internal/tree"
)

// A block is the uvarint length of its payload, the payload and its
// CRC-32C (little-endian). A payload is what a Listing keeps (tree.Kept,
// one byte), the directory, the number of pages and each page: its name,
// time (varint), stamp and sum (8 bytes each, little-endian, if kept), why
// its head hides it (a tree.Reason), its packed alternates and (from
// version 4 on) its packed images. From version 5 on, a listing that keeps
// prints has each page's print and parts (8 bytes each) after its sum.
// From version 6 on, each page ends with its packed news article. From
// version 7 on, the byte of why its head hides it has its top bit set
// when the page's time is the date its head states (tree.Page.Dated):
// no byte more a page (a Reason is far below 0x80).

// datedBit marks, in a page's head byte (version 7 on), a page whose
// time is the date its head states.
const datedBit = 0x80

// modelBlock is the first byte of the payload of a block that holds the
// template model (version 5 on), where a listing's block has its Kept:
// no Kept has every bit set.
const modelBlock = 0xff

// appendModelBlock appends the block of a template model to b.
func appendModelBlock(b []byte, model []byte) []byte {
	p := append([]byte{modelBlock}, model...)
	b = binary.AppendUvarint(b, uint64(len(p)))
	b = append(b, p...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(p, castagnoli))
}

// appendBlock appends the block of a directory's listing to b.
func appendBlock(b []byte, dir string, l *tree.Listing) []byte {
	p := appendListingPayload(nil, dir, l)
	b = binary.AppendUvarint(b, uint64(len(p)))
	b = append(b, p...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(p, castagnoli))
}

// appendListingPayload appends the payload of a directory's listing to p.
func appendListingPayload(p []byte, dir string, l *tree.Listing) []byte {
	kept := l.Kept()
	// Sized for pages without alternates or images, so that the block of
	// a directory of 30,000 pages is not grown twenty times over.
	per := binary.MaxVarintLen64 + 4 // time; name's and head's lengths; Out
	if kept&tree.KeepStamps != 0 {
		per += 8
	}
	if kept&tree.KeepSums != 0 {
		per += 8
	}
	if kept&tree.KeepPrints != 0 {
		per += 16
	}
	p = slices.Grow(p, 32+len(dir)+l.NameBytes()+l.Len()*per)
	p = append(p, byte(kept))
	p = appendString(p, dir)
	p = binary.AppendUvarint(p, uint64(l.Len()))
	l.All(func(i int, name string) {
		h := l.Head(i)
		p = appendString(p, name)
		p = binary.AppendVarint(p, l.Time(i))
		if kept&tree.KeepStamps != 0 {
			p = binary.LittleEndian.AppendUint64(p, l.Stamp(i))
		}
		if kept&tree.KeepSums != 0 {
			p = binary.LittleEndian.AppendUint64(p, l.Sum(i))
		}
		if kept&tree.KeepPrints != 0 {
			pr, parts := l.Print(i)
			p = binary.LittleEndian.AppendUint64(p, pr)
			p = binary.LittleEndian.AppendUint64(p, parts)
		}
		out := byte(h.Out)
		if l.Dated(i) {
			out |= datedBit
		}
		p = append(p, out)
		p = appendString(p, h.Alts)
		p = appendString(p, h.Images)
		p = appendString(p, h.News)
	})
	return p
}

// readBlock checks the block at off and returns its payload and where the
// next block begins, or errCorrupt.
func readBlock(b []byte, off int) (payload []byte, next int, err error) {
	n, off, err := readUvarint(b, off)
	if err != nil || n > uint64(len(b)-off) || len(b)-off-int(n) < 4 {
		return nil, 0, errCorrupt
	}
	payload = b[off : off+int(n)]
	if crc32.Checksum(payload, castagnoli) != binary.LittleEndian.Uint32(b[off+int(n):]) {
		return nil, 0, errCorrupt
	}
	return payload, off + int(n) + 4, nil
}

// payloadDir is the directory of a payload that Open checked.
func payloadDir(payload []byte) []byte {
	d, _, _ := readBytes(payload, 1)
	return d
}

// decodeListing decodes a payload of a store of version v. With noStamps
// the pages' stamps are NoStamp (their heads are not to be trusted).
func decodeListing(b []byte, v version, noStamps bool) (*tree.Listing, error) {
	var pages []tree.Page
	kept, err := scanPayload(b, v, func(n int) { pages = make([]tree.Page, 0, n) }, func(name, alts, images, art []byte, p *tree.Page) {
		p.Name, p.Head.Alts, p.Head.Images, p.Head.News = string(name), string(alts), string(images), string(art)
		if noStamps {
			p.Stamp = tree.NoStamp
		}
		pages = append(pages, *p)
	})
	if err != nil {
		return nil, err
	}
	return tree.NewListing(pages, kept, nil, tree.DirID{}), nil
}

// scanPayload checks a payload of a store of version v and, if page is
// not nil, hands it each page (without name, alternates, images and
// article, given as bytes), after start with their number. Checking alone
// allocates nothing.
func scanPayload(b []byte, v version, start func(n int), page func(name, alts, images, art []byte, p *tree.Page)) (tree.Kept, error) {
	if len(b) == 0 {
		return 0, errCorrupt
	}
	kept := tree.Kept(b[0])
	known := tree.KeepStamps | tree.KeepSums
	if v >= 5 {
		known |= tree.KeepPrints
	}
	if kept&^known != 0 {
		return 0, errCorrupt
	}
	_, off, err := readBytes(b, 1)
	if err != nil {
		return 0, err
	}
	n, off, err := readUvarint(b, off)
	if err != nil || n > uint64(len(b)) {
		return 0, errCorrupt
	}
	if page != nil {
		start(int(n))
	}
	for range n {
		var r pageRecord
		if r, off, err = readPage(b, off, v, kept); err != nil {
			return 0, err
		}
		if page != nil {
			page(r.name, r.alts, r.images, r.art, &r.page)
		}
	}
	if off != len(b) {
		return 0, errCorrupt
	}
	return kept, nil
}

// pageRecord is one page of a payload: its fields, and its name, alternates,
// images and article metadata still encoded.
type pageRecord struct {
	page                    tree.Page
	name, alts, images, art []byte
}

// readPage reads the page at off of a payload of version v whose pages
// keep kept, and returns it and the offset after it.
func readPage(b []byte, off int, v version, kept tree.Kept) (r pageRecord, _ int, err error) {
	p := &r.page
	if r.name, off, err = readBytes(b, off); err != nil {
		return r, 0, err
	}
	if p.Time, off, err = readVarint(b, off); err != nil {
		return r, 0, err
	}
	if kept&tree.KeepStamps != 0 {
		if p.Stamp, off, err = readUint64(b, off); err != nil {
			return r, 0, err
		}
	}
	if kept&tree.KeepSums != 0 {
		if p.Sum, off, err = readUint64(b, off); err != nil {
			return r, 0, err
		}
	}
	if kept&tree.KeepPrints != 0 {
		if p.Print, off, err = readUint64(b, off); err != nil {
			return r, 0, err
		}
		if p.Parts, off, err = readUint64(b, off); err != nil {
			return r, 0, err
		}
	}
	if off >= len(b) {
		return r, 0, errCorrupt
	}
	out := b[off]
	if v >= 7 {
		p.Dated, out = out&datedBit != 0, out&^datedBit
	}
	if p.Head.Out, off = tree.Reason(out), off+1; !storable(p.Head.Out) {
		return r, 0, errCorrupt
	}
	if r.alts, off, err = readBytes(b, off); err != nil {
		return r, 0, err
	}
	if v >= 4 {
		if r.images, off, err = readBytes(b, off); err != nil {
			return r, 0, err
		}
	}
	if v >= 6 {
		if r.art, off, err = readBytes(b, off); err != nil {
			return r, 0, err
		}
	}
	return r, off, nil
}

// storable reports whether a head may hide its page for r: a reason
// a head gives, or none.
func storable(r tree.Reason) bool { return r == tree.Listed || r.FromHead() }

func readUvarint(b []byte, off int) (uint64, int, error) {
	if off >= len(b) {
		return 0, 0, errCorrupt
	}
	v, n := binary.Uvarint(b[off:])
	if n <= 0 {
		return 0, 0, errCorrupt
	}
	return v, off + n, nil
}

func readVarint(b []byte, off int) (int64, int, error) {
	if off >= len(b) {
		return 0, 0, errCorrupt
	}
	v, n := binary.Varint(b[off:])
	if n <= 0 {
		return 0, 0, errCorrupt
	}
	return v, off + n, nil
}

func readUint64(b []byte, off int) (uint64, int, error) {
	if len(b)-off < 8 {
		return 0, 0, errCorrupt
	}
	return binary.LittleEndian.Uint64(b[off:]), off + 8, nil
}

func readBytes(b []byte, off int) ([]byte, int, error) {
	n, off, err := readUvarint(b, off)
	if err != nil || n > uint64(len(b)-off) {
		return nil, 0, errCorrupt
	}
	return b[off : off+int(n)], off + int(n), nil
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}
