package tree

import (
	"math/rand/v2"
	"testing"
)

// TestShortPrint: a Listing keeps a print as ShortPrint says, in one word
// beside the page's stamp and sum, and gives back what it keeps; a print
// known stays known; what is kept of a print compares as the scanner's
// decision needs (a change to one part's short hash, or to the print's
// 24 top bits, is a change).
func TestShortPrint(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		print, parts := r.Uint64(), r.Uint64()&(1<<60-1)
		sp, sparts := ShortPrint(print, parts)
		if sp == 0 {
			t.Fatalf("ShortPrint(%x, …) lost the print: 0 means none", print)
		}
		if p2, parts2 := ShortPrint(sp, sparts); p2 != sp || parts2 != sparts {
			t.Fatalf("ShortPrint is not idempotent: %x %x, then %x %x", sp, sparts, p2, parts2)
		}
		if gp, gparts := unpackPrint(packPrint(print, parts)); gp != sp || gparts != sparts {
			t.Fatalf("packed and unpacked %x %x: %x %x, want %x %x", print, parts, gp, gparts, sp, sparts)
		}
		for part := range 5 {
			flipped := parts ^ 1<<(part*12) // the part's lowest bit: kept
			if _, fp := ShortPrint(print, flipped); fp == sparts {
				t.Fatalf("a change to part %d's kept bits is not seen", part)
			}
		}
		if hp, _ := ShortPrint(print^1<<63, parts); hp == sp {
			t.Fatalf("a change to the print's top bit is not seen")
		}
	}
	if p, parts := ShortPrint(0, 0xfff); p != 0 || parts != 0 {
		t.Errorf("ShortPrint of no print: %x %x, want 0 0", p, parts)
	}
	if p, _ := ShortPrint(1, 0); p == 0 {
		t.Errorf("a print whose kept bits are 0 became none")
	}
	l := NewListing([]Page{{Name: "a.html", Stamp: 3, Sum: 4, Print: 1<<63 | 5, Parts: 0xabc}}, KeepStamps|KeepSums|KeepPrints, nil, DirID{})
	if wordsPerPage(l.kept) != 3 || len(l.words) != 3 {
		t.Errorf("a page keeping stamp, sum and print takes %d words, want 3", len(l.words))
	}
	if p, parts := l.Print(0); p != 1<<63 || parts != 0xbc || l.Stamp(0) != 3 || l.Sum(0) != 4 {
		t.Errorf("listing kept print %x parts %x stamp %d sum %d, want %x %x 3 4", p, parts, l.Stamp(0), l.Sum(0), uint64(1<<63), 0xbc)
	}
}
