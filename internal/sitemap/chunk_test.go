package sitemap

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func sortedURLs(n int, r *rand.Rand) []URL {
	seen := map[string]bool{}
	var out []URL
	for len(out) < n {
		loc := fmt.Sprintf("https://example.com/%c/%d.html", 'a'+rune(r.IntN(26)), r.IntN(1<<30))
		if !seen[loc] {
			seen[loc] = true
			out = append(out, URL{Loc: loc})
		}
	}
	slices.SortFunc(out, func(a, b URL) int { return strings.Compare(a.Loc, b.Loc) })
	return out
}

func keys(cs []Chunk) map[string][]string {
	m := map[string][]string{}
	for _, c := range cs {
		var locs []string
		for _, u := range c.URLs {
			locs = append(locs, u.Loc)
		}
		m[c.Key] = locs
	}
	return m
}

// TestChunksCover: chunks cover the URLs in order, exactly once, within
// the bounds, with distinct keys and only the last one unkeyed.
func TestChunksCover(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct{ n, target int }{{0, 100}, {1, 100}, {30, 100}, {5000, 100}, {20000, 1000}, {3000, 0}} {
		urls := sortedURLs(tc.n, r)
		cs := Chunks(urls, tc.target)
		var all []URL
		seen := map[string]bool{}
		for i, c := range cs {
			all = append(all, c.URLs...)
			if (c.Key == "") != (i == len(cs)-1) {
				t.Errorf("n=%d target=%d: chunk %d of %d has key %q", tc.n, tc.target, i, len(cs), c.Key)
			}
			if seen[c.Key] {
				t.Errorf("n=%d: key %q twice", tc.n, c.Key)
			}
			seen[c.Key] = true
			if tc.target > 0 && (len(c.URLs) > 8*tc.target || c.Key != "" && len(c.URLs) < tc.target/4) {
				t.Errorf("n=%d target=%d: a chunk of %d URLs", tc.n, tc.target, len(c.URLs))
			}
		}
		if !slices.EqualFunc(all, urls, func(a, b URL) bool { return a.Loc == b.Loc }) {
			t.Errorf("n=%d target=%d: chunks do not cover the URLs in order", tc.n, tc.target)
		}
		if tc.target > 0 && tc.n >= 20*tc.target {
			if avg := tc.n / len(cs); avg < tc.target/2 || avg > 2*tc.target {
				t.Errorf("n=%d target=%d: %d chunks, %d URLs on average", tc.n, tc.target, len(cs), avg)
			}
		}
	}
}

// TestChunksAreLocal: adding or removing one URL anywhere changes at most
// two chunks (its own, and the next when it is or was a cut); every other
// chunk keeps its key and its URLs.
func TestChunksAreLocal(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	urls := sortedURLs(20000, r)
	before := keys(Chunks(urls, 500))
	for trial := range 200 {
		i := r.IntN(len(urls))
		var changed []URL
		if trial%2 == 0 {
			changed = slices.Delete(slices.Clone(urls), i, i+1)
		} else {
			extra := sortedURLs(1, r)[0]
			j, _ := slices.BinarySearchFunc(urls, extra, func(a, b URL) int { return strings.Compare(a.Loc, b.Loc) })
			changed = slices.Insert(slices.Clone(urls), j, extra)
		}
		after := keys(Chunks(changed, 500))
		differ := 0
		for k, locs := range after {
			if !slices.Equal(before[k], locs) {
				differ++
			}
		}
		for k := range before {
			if _, ok := after[k]; !ok {
				differ++
			}
		}
		if differ > 3 {
			t.Fatalf("trial %d: one URL changed %d chunks", trial, differ)
		}
	}
}

// TestChunksKeepWithinLimits: URLs long enough to fill MaxBytes are cut
// before a document could exceed it.
func TestChunksKeepWithinLimits(t *testing.T) {
	long := strings.Repeat("x", 2000)
	var urls []URL
	for i := range 6000 {
		urls = append(urls, URL{Loc: fmt.Sprintf("https://example.com/%05d/%s", i, long)})
	}
	for _, c := range Chunks(urls, 0) {
		var docs int
		if err := EncodeURLSet(c.URLs, func([]byte) error { docs++; return nil }); err != nil {
			t.Fatal(err)
		}
		if docs != 1 {
			t.Fatalf("a chunk of %d URLs encodes as %d documents", len(c.URLs), docs)
		}
	}
}

// TestChunksCountImages: URLs whose images fill MaxBytes are cut before
// a document could exceed it, though their locs are short.
func TestChunksCountImages(t *testing.T) {
	images := make([]string, MaxImages)
	for i := range images {
		images[i] = fmt.Sprintf("https://example.com/img/%04d/%s.jpg", i, strings.Repeat("x", 1000))
	}
	var urls []URL
	for i := range 60 { // some 62 MB of images in all
		urls = append(urls, URL{Loc: fmt.Sprintf("https://example.com/%02d.html", i), Images: images})
	}
	chunks := Chunks(urls, 0)
	if len(chunks) < 2 {
		t.Fatalf("%d chunks: the images' bytes were not counted", len(chunks))
	}
	for _, c := range chunks {
		var docs int
		if err := EncodeURLSet(c.URLs, func(b []byte) error {
			if docs++; len(b) > MaxBytes {
				t.Errorf("a document of %d bytes", len(b))
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if docs != 1 {
			t.Fatalf("a chunk of %d URLs encodes as %d documents", len(c.URLs), docs)
		}
	}
}
