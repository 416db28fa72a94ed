package feed

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// entries returns n entries of random times in one year, as a large
// group's pages would have.
func entries(n int) []Entry {
	r := rand.New(rand.NewPCG(5, 6))
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	out := make([]Entry, n)
	for i := range out {
		out[i] = Entry{URL: fmt.Sprintf("https://www.sitemapd.test/section/page-%06d.html", i), Updated: t0.Add(time.Duration(r.Int64N(int64(365 * 24 * time.Hour)))).Truncate(time.Second)}
	}
	return out
}

// BenchmarkSelectGroup: a group of 100,000 pages gives its first 100 (the
// work of each publish of that group with the feed on).
func BenchmarkSelectGroup(b *testing.B) {
	es := entries(100_000)
	b.ReportAllocs()
	for b.Loop() {
		s := NewSelector(100)
		for _, e := range es {
			s.Add(e)
		}
		s.Entries()
	}
}

// BenchmarkMerge: the feed of 1,000 groups' first 100 (the work of each
// publish that changes a group's entries).
func BenchmarkMerge(b *testing.B) {
	es := entries(100_000)
	lists := make([][]Entry, 1000)
	for i := range lists {
		lists[i] = Top(es[i*100:(i+1)*100], 100)
	}
	b.ReportAllocs()
	for b.Loop() {
		Merge(lists, 100)
	}
}

// BenchmarkEncode: a feed of 100 entries.
func BenchmarkEncode(b *testing.B) {
	es := Top(entries(100), 100)
	site := Site{BaseURL: "https://www.sitemapd.test/", Self: "https://www.sitemapd.test/changes.atom"}
	b.ReportAllocs()
	for b.Loop() {
		Encode(site, es)
	}
}
