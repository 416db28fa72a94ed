package scan

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/sitemap"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// BenchmarkURLsIn: the URLs of one part's span (1,000 URLs) in the
// largest directory of the 1M-file dense tree (30,000 pages, 40% of names
// with spaces, &, %, accents, CJK or emoji), as a change there computes
// them.
func BenchmarkURLsIn(b *testing.B) {
	s := spanScanner(b, "")
	odd := []string{"", "", "", " & ", "100% ", "café-", "日本語", "😀"}
	pages := make([]tree.Page, 30000)
	for i := range pages {
		pages[i] = tree.Page{Name: fmt.Sprintf("%sguide-%d.html", odd[i%len(odd)], i*7919%100000), Time: int64(i) * 1e9}
	}
	dirs := map[string]*tree.Listing{"a b/media中文-12/news#-3409": tree.NewListing(pages, 0, nil, tree.DirID{})}
	now := time.Now()
	all, _ := s.AppendURLs(nil, dirs, now)
	slices.SortFunc(all, func(a, b sitemap.URL) int { return strings.Compare(a.Loc, b.Loc) })
	sp := Span{After: all[14000].Loc, Through: all[15000].Loc}
	b.ReportAllocs()
	for b.Loop() {
		if n := len(s.URLsIn(dirs, sp, now)); n != 1000 {
			b.Fatalf("%d URLs", n)
		}
	}
}
