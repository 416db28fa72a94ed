package tree

import (
	"fmt"
	"testing"
)

// TestDated: which pages' times are their heads' dates is kept a bit a
// page, whatever else the listing keeps (no column, or every column),
// past a word of 64 pages; an amended listing takes each edited page's
// bit from its new version (a date lost, a date gained) and keeps the
// others'; CountDated counts only the pages listed; a listing with none
// keeps no bits.
func TestDated(t *testing.T) {
	for _, keep := range []Kept{0, KeepStamps, KeepStamps | KeepSums | KeepPrints} {
		t.Run(fmt.Sprint(keep), func(t *testing.T) {
			pages := make([]Page, 130)
			want := 0
			for i := range pages {
				pages[i] = Page{Name: fmt.Sprintf("p%03d.html", i), Time: int64(i), Stamp: uint64(i + 1), Sum: uint64(i + 2),
					Print: uint64(i+3) << 44, Parts: uint64(i+4) * 0x1001001, Dated: i%7 == 0 || i == 129}
				if i%10 == 3 {
					pages[i].Head.Out = NoIndex // 3, 13, …: of the dated, 63 only
				}
				if pages[i].Dated && pages[i].Head.Out == Listed {
					want++
				}
			}
			l := NewListing(pages, keep, nil, DirID{})
			for i, p := range pages {
				if l.Dated(i) != p.Dated || l.Time(i) != p.Time {
					t.Errorf("page %d: dated %v time %d, want %v %d", i, l.Dated(i), l.Time(i), p.Dated, p.Time)
				}
				if keep&KeepStamps != 0 && l.Stamp(i) != p.Stamp {
					t.Errorf("page %d: stamp %d, want %d: the bits overlap a column", i, l.Stamp(i), p.Stamp)
				}
				if pr, parts := l.Print(i); keep&KeepPrints != 0 {
					if wp, wparts := ShortPrint(p.Print, p.Parts); pr != wp || parts != wparts {
						t.Errorf("page %d: print %x %x, want %x %x", i, pr, parts, wp, wparts)
					}
				}
			}
			if got := l.CountDated(); got != want {
				t.Errorf("CountDated %d, want %d", got, want)
			}

			// Page 7 loses its date, page 8 gains one, page 140 is added
			// with one, page 129 removed: as many as before.
			lost, gained := pages[7], pages[8]
			lost.Dated, gained.Dated = false, true
			added := Page{Name: "p140.html", Time: 140, Dated: true}
			a := l.Amend(keep, map[string]*Page{"p007.html": &lost, "p008.html": &gained, "p129.html": nil}, []Page{added}, nil)
			if a.Dated(7) || !a.Dated(8) || !a.Dated(0) || !a.Dated(a.Len()-1) || a.CountDated() != want {
				t.Errorf("amended: dated 7 %v, 8 %v, 0 %v, added %v, count %d; want false, true, true, true, %d",
					a.Dated(7), a.Dated(8), a.Dated(0), a.Dated(a.Len()-1), a.CountDated(), want)
			}
			if e := a.entry(8); !e.Dated {
				t.Error("the entry of a dated page does not say so")
			}

			for i := range pages {
				pages[i].Dated = false
			}
			if l := NewListing(pages, keep, nil, DirID{}); len(l.words) != wordsPerPage(keep)*len(pages) || l.CountDated() != 0 {
				t.Errorf("no page dated: %d words, want %d", len(l.words), wordsPerPage(keep)*len(pages))
			}
		})
	}
}
