package pagestore

import (
	"fmt"
	"testing"

	"github.com/sitemapd/sitemapd/internal/tree"
)

// BenchmarkAppendBlock: the block the daemon appends after a change in a
// directory of 30,000 pages (the largest of the 1M-file dense tree).
func BenchmarkAppendBlock(b *testing.B) {
	pages := make([]tree.Page, 30000)
	for i := range pages {
		pages[i] = tree.Page{Name: fmt.Sprintf("page %d café.html", i), Time: int64(i) * 1e9, Stamp: uint64(i) + 1, Sum: uint64(i) * 7}
	}
	l := tree.NewListing(pages, tree.KeepStamps|tree.KeepSums, nil, tree.DirID{})
	b.ReportAllocs()
	for b.Loop() {
		appendBlock(nil, "a b/media中文-12/news#-3409", l)
	}
}
