package changeset

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/sitemap"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// TestCompareInStepIsByName: for listings of the same pages in the same
// order (an edit), Compare's changes, found index by index, are those of
// the page-by-page rule (listed on one side only: added or removed; listed
// on both with another lastmod: changed), and those found by name when
// the same pages come in another order.
func TestCompareInStepIsByName(t *testing.T) {
	now := time.Unix(10, 0)
	loc := func(dir, name string) string { return dir + "/" + name }
	r := rand.New(rand.NewPCG(7, 8))
	times := []int64{1e9, 2e9, 2e9 + 1, 20e9} // 2e9 and 2e9+1 share a lastmod; 20e9 is to come
	for round := range 500 {
		var was, edited []tree.Page
		var want Changes
		for i := range r.IntN(10) {
			a := tree.Page{Name: fmt.Sprintf("p%d.html", i), Time: times[r.IntN(len(times))]}
			if r.IntN(4) == 0 {
				a.Head.Out = tree.NoIndex
			}
			b := a
			if r.IntN(2) == 0 {
				b.Time, b.Head.Out = times[r.IntN(len(times))], tree.Listed
				if r.IntN(4) == 0 {
					b.Head.Out = tree.Redirect
				}
			}
			was, edited = append(was, a), append(edited, b)
			switch wasListed, isListed := !a.Head.Hidden(), !b.Head.Hidden(); {
			case isListed && !wasListed:
				want.Added = append(want.Added, loc("d", a.Name))
			case wasListed && !isListed:
				want.Removed = append(want.Removed, loc("d", a.Name))
			case wasListed && !tree.LastMod(a.Time, now).Equal(tree.LastMod(b.Time, now)):
				want.Changed = append(want.Changed, loc("d", a.Name))
			}
		}
		slices.Sort(want.Added)
		slices.Sort(want.Changed)
		slices.Sort(want.Removed)
		old := map[string]*tree.Listing{"d": tree.NewListing(was, 0, nil, tree.DirID{})}
		for _, order := range []string{"in step", "by name"} {
			if order == "by name" {
				slices.Reverse(edited)
			}
			cur := map[string]*tree.Listing{"d": tree.NewListing(edited, 0, nil, tree.DirID{})}
			got := Compare(old, cur, now, loc)
			if !slices.Equal(got.Added, want.Added) || !slices.Equal(got.Changed, want.Changed) || !slices.Equal(got.Removed, want.Removed) {
				t.Fatalf("round %d, %s: %+v, want %+v", round, order, got, want)
			}
		}
	}
}

// TestDiff: what sitemap files listed (lastmod as written, W3C Datetime
// in UTC) against the URLs that replace them: a URL on one side only is
// added or removed, on both with another lastmod changed; a URL without
// a lastmod matches one written without.
func TestDiff(t *testing.T) {
	at := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	for _, c := range []struct {
		name      string
		published map[string]string
		cur       []sitemap.URL
		want      Changes
	}{
		{"nothing", nil, nil, Changes{}},
		{"all new", nil, []sitemap.URL{{Loc: "a"}, {Loc: "b", LastMod: at}}, Changes{Added: []string{"a", "b"}}},
		{"all gone", map[string]string{"b": "", "a": "2024-05-06T07:08:09Z"}, nil, Changes{Removed: []string{"a", "b"}}},
		{
			"same and other lastmods",
			map[string]string{"a": "2024-05-06T07:08:09Z", "b": "2024-05-06T07:08:08Z", "c": "", "d": "", "e": "2024-05-06T07:08:09Z"},
			[]sitemap.URL{{Loc: "a", LastMod: at}, {Loc: "b", LastMod: at}, {Loc: "c"}, {Loc: "d", LastMod: at}, {Loc: "e"}},
			Changes{Changed: []string{"b", "d", "e"}},
		},
		{
			"interleaved",
			map[string]string{"b": "", "d": ""},
			[]sitemap.URL{{Loc: "a"}, {Loc: "b"}, {Loc: "c"}},
			Changes{Added: []string{"a", "c"}, Removed: []string{"d"}},
		},
		{
			"another time zone, the same instant",
			map[string]string{"a": "2024-05-06T07:08:09Z"},
			[]sitemap.URL{{Loc: "a", LastMod: at.In(time.FixedZone("X", 3600))}},
			Changes{},
		},
	} {
		got := Diff(c.published, c.cur)
		if !slices.Equal(got.Added, c.want.Added) || !slices.Equal(got.Changed, c.want.Changed) || !slices.Equal(got.Removed, c.want.Removed) {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

// TestCounts: Counted keeps the counts without the URLs, Merge adds both
// kinds, Empty is true of nothing counted or listed.
func TestCounts(t *testing.T) {
	a := Changes{Added: []string{"a1", "a2"}, Changed: []string{"c"}, Removed: []string{"r"}, Dated: 2}
	counted := a.Counted()
	if counted.Added != nil || counted.Changed != nil || counted.Removed != nil || counted.Dated != 0 {
		t.Errorf("Counted kept URLs: %+v", counted)
	}
	if got, want := counted.Counts(), (Counts{Added: 2, Changed: 1, Removed: 1, Dated: 2}); got != want {
		t.Errorf("Counted().Counts() = %+v, want %+v", got, want)
	}
	var m Changes
	if !m.Empty() {
		t.Error("the zero Changes is not Empty")
	}
	m.Merge(a)
	m.Merge(counted)
	m.Merge(Changes{Removed: []string{"r2"}})
	if got, want := m.Counts(), (Counts{Added: 4, Changed: 2, Removed: 3, Dated: 4}); got != want {
		t.Errorf("merged Counts() = %+v, want %+v", got, want)
	}
	if !slices.Equal(m.Added, []string{"a1", "a2"}) || !slices.Equal(m.Removed, []string{"r", "r2"}) || m.Empty() || counted.Empty() {
		t.Errorf("merged %+v; counted empty %v", m, counted.Empty())
	}
}
