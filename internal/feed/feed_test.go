package feed

import (
	"bytes"
	"encoding/xml"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/sitemap"
)

var update = flag.Bool("update", false, "rewrite the golden files")

var site = Site{BaseURL: "https://www.sitemapd.test/docs/", Self: "https://www.sitemapd.test/docs/changes.atom"}

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

// sample is a feed's worth of entries with the cases that matter: ties in
// the same second (sub-second times cut away), names that need escaping
// and decoding, and one that must stay encoded.
func sample() []Entry {
	var es []Entry
	for _, p := range []struct{ loc, t string }{
		{"https://www.sitemapd.test/docs/", "2026-03-01T12:00:00Z"},
		{"https://www.sitemapd.test/docs/b.html", "2026-03-02T12:00:00.9Z"},
		{"https://www.sitemapd.test/docs/a.html", "2026-03-02T12:00:00.1Z"},
		{"https://www.sitemapd.test/docs/caf%C3%A9%20&%20cr%C3%A8me.html", "2026-03-03T13:00:00+01:00"},
		{"https://www.sitemapd.test/docs/caf%E9.html", "2025-01-01T00:00:00Z"},
		{"https://www.sitemapd.test/docs/a%3Cb%3E'%22.html?q=1&r=2", "2024-06-01T00:00:00Z"},
	} {
		e, ok := NewEntry(p.loc, at(p.t))
		if !ok {
			panic(p.loc)
		}
		es = append(es, e)
	}
	return es
}

// TestGolden checks the bytes of a feed against testdata (refresh with
// -update after a deliberate change), and that they do not depend on the
// order the entries came in.
func TestGolden(t *testing.T) {
	es := sample()
	got := Encode(site, Top(es, 100))
	golden := filepath.Join("testdata", "feed.atom")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("feed differs from %s:\n%s", golden, got)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		r.Shuffle(len(es), func(i, j int) { es[i], es[j] = es[j], es[i] })
		if again := Encode(site, Top(es, 100)); !bytes.Equal(again, got) {
			t.Fatalf("entries in another order give other bytes:\n%s", again)
		}
	}
	if !sitemap.HasMarker(got[:200]) {
		t.Error("the feed does not carry sitemapd's marker near its start")
	}
	if err := xml.Unmarshal(got, new(struct{})); err != nil {
		t.Errorf("not well-formed XML: %v", err)
	}
}

func TestNoLastModNoEntry(t *testing.T) {
	if _, ok := NewEntry("https://www.sitemapd.test/docs/x.html", time.Time{}); ok {
		t.Error("a page without a lastmod has an entry")
	}
}

// TestSelectorIsTop checks the bounded selection against sorting all
// entries, on random times with many ties.
func TestSelectorIsTop(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 7, 100} {
		for _, size := range []int{0, 1, n, 2*n + 1, 1000} {
			var all []Entry
			s := NewSelector(n)
			for i := range size {
				e := Entry{URL: fmt.Sprintf("https://h.test/p%04d", i), Updated: time.Unix(int64(r.IntN(50)), 0).UTC()}
				all = append(all, e)
				s.Add(e)
			}
			slices.SortFunc(all, func(a, b Entry) int {
				if !a.Updated.Equal(b.Updated) {
					return b.Updated.Compare(a.Updated)
				}
				if a.URL < b.URL {
					return -1
				}
				return 1
			})
			want := all[:min(n, len(all))]
			if got := s.Entries(); !slices.Equal(got, want) {
				t.Errorf("n=%d size=%d: selector kept %v, want %v", n, size, got, want)
			}
		}
	}
}

// TestMergeIsTopOfAll checks Merge, which stops reading a list early,
// against sorting all the lists' entries together.
func TestMergeIsTopOfAll(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{1, 3, 10} {
		for range 50 {
			var lists [][]Entry
			var all []Entry
			for g := range r.IntN(8) {
				var l []Entry
				for i := range r.IntN(3 * n) {
					l = append(l, Entry{URL: fmt.Sprintf("https://h.test/g%d/p%d", g, i), Updated: time.Unix(int64(r.IntN(20)), 0).UTC()})
				}
				l = Top(l, n) // as the engine keeps a group's
				lists = append(lists, l)
				all = append(all, l...)
			}
			if got, want := Merge(lists, n), Top(all, n); !slices.Equal(got, want) {
				t.Fatalf("n=%d: Merge = %v, want %v", n, got, want)
			}
		}
	}
}

func TestMergeKeepsOneOfEachURL(t *testing.T) {
	a := []Entry{{URL: "https://h.test/a", Updated: time.Unix(10, 0)}}
	b := []Entry{{URL: "https://h.test/a", Updated: time.Unix(20, 0)}, {URL: "https://h.test/b", Updated: time.Unix(5, 0)}}
	got := Merge([][]Entry{a, b}, 10)
	want := []Entry{{URL: "https://h.test/a", Updated: time.Unix(20, 0)}, {URL: "https://h.test/b", Updated: time.Unix(5, 0)}}
	if !slices.Equal(got, want) {
		t.Errorf("Merge = %v, want %v", got, want)
	}
}

func TestTitle(t *testing.T) {
	for _, tc := range []struct{ loc, want string }{
		{"https://h.test/", "/"},
		{"https://h.test", "/"},
		{"https://h.test/blog/first%20post.html", "/blog/first post.html"},
		{"https://h.test/caf%C3%A9.html", "/café.html"},
		{"https://h.test/caf%E9.html", "/caf%E9.html"},         // not UTF-8
		{"https://h.test/a%01b.html", "/a%01b.html"},           // a control character
		{"https://h.test/a%EF%BF%BE.html", "/a%EF%BF%BE.html"}, // U+FFFE, not XML text
		{"https://h.test/a%2Fb.html", "/a/b.html"},
	} {
		if got := Title(tc.loc); got != tc.want {
			t.Errorf("Title(%q) = %q, want %q", tc.loc, got, tc.want)
		}
	}
}
