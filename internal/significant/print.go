package significant

import (
	"encoding/binary"
	"strings"
)

// Print is a page's fingerprint under a model: a hash of each part of what
// the page says. Two versions of a page say the same (in substance) when
// their Prints are equal under the same model. A part a page does not
// have is 0. 20 bytes; Bytes and PrintFromBytes are its stored form.
type Print struct {
	Title  uint32 // the <title>'s text
	Text   uint32 // the content's text, in order
	Links  uint32 // the content's links: each target and text, in order
	Images uint32 // the content's images: each source and alt text, in order
	Data   uint32 // JSON-LD (anywhere in the page) and the content's microdata values
}

// PrintSize is the length of Print.Bytes.
const PrintSize = 20

// Sum is the Print in one number, for a caller that keeps one: equal
// Prints have equal Sums (and different ones different Sums, but for
// hash collisions).
func (a Print) Sum() uint64 {
	h := mix(mix(mix(mix(mix(0x243F6A8885A308D3, uint64(a.Title)), uint64(a.Text)), uint64(a.Links)), uint64(a.Images)), uint64(a.Data))
	return h
}

// Bytes is the Print's stored form: its five parts, little-endian.
func (a Print) Bytes() [PrintSize]byte {
	var b [PrintSize]byte
	for i, v := range [...]uint32{a.Title, a.Text, a.Links, a.Images, a.Data} {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return b
}

// PrintFromBytes reads a Print's stored form.
func PrintFromBytes(b [PrintSize]byte) Print {
	u := func(i int) uint32 { return binary.LittleEndian.Uint32(b[4*i:]) }
	return Print{u(0), u(1), u(2), u(3), u(4)}
}

// Diff is the parts in which a and b differ: why a lastmod moved.
func (a Print) Diff(b Print) Parts {
	var p Parts
	if a.Title != b.Title {
		p |= Title
	}
	if a.Text != b.Text {
		p |= Text
	}
	if a.Links != b.Links {
		p |= Links
	}
	if a.Images != b.Images {
		p |= Images
	}
	if a.Data != b.Data {
		p |= Data
	}
	return p
}

// Parts is a set of a Print's parts.
type Parts uint8

// The parts of a Print.
const (
	Title Parts = 1 << iota
	Text
	Links
	Images
	Data
)

var partNames = [...]string{"title", "text", "links", "images", "data"}

// String names the parts, "title, text"; "none" for none.
func (p Parts) String() string {
	if p == 0 {
		return "none"
	}
	var names []string
	for i, name := range partNames {
		if p&(1<<i) != 0 {
			names = append(names, name)
		}
	}
	return strings.Join(names, ", ")
}

// fold is a part's 64-bit hash in 32 bits; 0 only for no part at all.
func fold(h uint64, any bool) uint32 {
	if !any {
		return 0
	}
	v := uint32(h ^ h>>32)
	if v == 0 {
		v = 1
	}
	return v
}

// printer sums the parts of a Print from the blocks that count.
type printer struct {
	h   [4]uint64 // by block kind
	any [4]bool
}

func (pr *printer) add(b *block) {
	pr.h[b.kind] = mix(pr.h[b.kind], b.hash)
	pr.any[b.kind] = true
}

func (pr *printer) print(p *Page) Print {
	data, anyData := pr.h[kData], pr.any[kData]
	for _, d := range p.data {
		data = mix(data, d)
		anyData = true
	}
	return Print{
		Title:  fold(p.title, p.title != 0),
		Text:   fold(pr.h[kText], pr.any[kText]),
		Links:  fold(pr.h[kLink], pr.any[kLink]),
		Images: fold(pr.h[kImage], pr.any[kImage]),
		Data:   fold(data, anyData),
	}
}
