package build

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/sitemap"
)

// denseURLs are n URLs like a dense site's, in walk order (by directory,
// then by name as the directory lists them), some of them twice.
func denseURLs(n int) []sitemap.URL {
	r := rand.New(rand.NewPCG(1, 2))
	odd := []string{"", "", "a%20b-", "caf%C3%A9-", "%E6%97%A5%E6%9C%AC-", "x%26y-"}
	urls := make([]sitemap.URL, n)
	for i := range urls {
		urls[i] = sitemap.URL{
			Loc:     fmt.Sprintf("https://bench.example/%sguide-%d/%snews-%d/%spage-%d.html", odd[i/5000%len(odd)], i/5000, odd[i/500%len(odd)], i/500, odd[r.IntN(len(odd))], r.IntN(1e6)),
			LastMod: time.Unix(int64(r.IntN(1e9)), 0),
		}
		if i > 0 && r.IntN(100) == 0 {
			urls[i].Loc = urls[i-1].Loc
		}
	}
	return urls
}

// TestSortURLs: sortURLs orders by Loc and keeps one URL of each Loc, as
// a sort of the whole entries and a compaction do.
func TestSortURLs(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 17, 1000, 30000} {
		urls := denseURLs(n)
		entries := map[string][]time.Time{} // each Loc's entries
		for _, u := range urls {
			entries[u.Loc] = append(entries[u.Loc], u.LastMod)
		}
		want := slices.Clone(urls)
		slices.SortStableFunc(want, func(a, b sitemap.URL) int { return strings.Compare(a.Loc, b.Loc) })
		want = slices.CompactFunc(want, func(a, b sitemap.URL) bool { return a.Loc == b.Loc })
		got := sortURLs(urls)
		if len(got) != len(want) {
			t.Fatalf("%d URLs: %d after, want %d", n, len(got), len(want))
		}
		for i := range got {
			// Of two entries with one Loc, either may stay: compare Locs,
			// and each entry with one of its Loc.
			if got[i].Loc != want[i].Loc || !slices.Contains(entries[got[i].Loc], got[i].LastMod) {
				t.Fatalf("%d URLs: [%d] %q %v, want %q with one of %v", n, i, got[i].Loc, got[i].LastMod, want[i].Loc, entries[want[i].Loc])
			}
		}
	}
}

// BenchmarkSortURLs: a group of 80,000 URLs, the largest of the 1M-file
// dense tree, sorted as a full build sorts it.
func BenchmarkSortURLs(b *testing.B) {
	urls := denseURLs(80000)
	work := make([]sitemap.URL, len(urls))
	b.ReportAllocs()
	for b.Loop() {
		copy(work, urls)
		sortURLs(work)
	}
}
