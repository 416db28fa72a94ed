package tree

// A page's print (pages.lastmod: significant) is kept in one word a page:
// the top 24 bits of the hash of what the page says (Page.Print) and an
// 8-bit short hash of each of its five parts (Page.Parts, 12 bits a part
// as the scanner packs them, of which the low 8 are kept). Equal prints
// are told from different ones by both together: a change to one part
// goes unseen only if its part's short hash and the 24 bits of the whole
// print's hash both stay the same, one change in 2^32, as often as the
// part's own 32-bit hash stays the same (significant.Print). Which part
// changed is told right for all but one change in 256. Two words a page
// (a full 64-bit hash and 12-bit parts) cost a daemon 8 bytes a page more
// for no truer lastmod: 6 MiB at 1,000,000 files.

const (
	printLow  = 40                    // low bits of Page.Print not kept
	partBits  = 12                    // bits a part takes in Page.Parts, as packed
	partKept  = 8                     // of which kept
	partCount = 5                     // parts of a print
	partLow   = 1<<partKept - 1       // one part's kept bits
	partsMask = 0x0ff0ff0ff0ff0ff     // the kept bits of Page.Parts' five parts
	somePrint = uint64(1) << printLow // a print whose kept bits are all 0: 0 means none

	printMask uint64 = 1<<64 - 1<<printLow // the kept bits of Page.Print
)

// ShortPrint is the print and parts a Listing keeps of a page's
// (Page.Print, Page.Parts): what a page's print is compared as. Applied
// twice it changes nothing. A print of 0 (none known) stays 0.
func ShortPrint(print, parts uint64) (uint64, uint64) {
	if print == 0 {
		return 0, 0
	}
	if print &= printMask; print == 0 {
		print = somePrint
	}
	return print, parts & partsMask
}

// packPrint is a print and its parts in one word, as a Listing keeps
// them; unpackPrint undoes it for what ShortPrint returns.
func packPrint(print, parts uint64) uint64 {
	print, parts = ShortPrint(print, parts)
	w := print
	for i := range partCount {
		w |= (parts >> (i * partBits) & partLow) << (i * partKept)
	}
	return w
}

func unpackPrint(w uint64) (print, parts uint64) {
	if w == 0 {
		return 0, 0
	}
	for i := range partCount {
		parts |= (w >> (i * partKept) & partLow) << (i * partBits)
	}
	return w & printMask, parts
}
