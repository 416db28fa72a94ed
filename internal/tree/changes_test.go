package tree

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
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
		var was, edited []Page
		var want Changes
		for i := range r.IntN(10) {
			a := Page{Name: fmt.Sprintf("p%d.html", i), Time: times[r.IntN(len(times))]}
			if r.IntN(4) == 0 {
				a.Head.Out = NoIndex
			}
			b := a
			if r.IntN(2) == 0 {
				b.Time, b.Head.Out = times[r.IntN(len(times))], Listed
				if r.IntN(4) == 0 {
					b.Head.Out = Redirect
				}
			}
			was, edited = append(was, a), append(edited, b)
			switch wasListed, isListed := !a.Head.Hidden(), !b.Head.Hidden(); {
			case isListed && !wasListed:
				want.Added = append(want.Added, loc("d", a.Name))
			case wasListed && !isListed:
				want.Removed = append(want.Removed, loc("d", a.Name))
			case wasListed && !LastMod(a.Time, now).Equal(LastMod(b.Time, now)):
				want.Changed = append(want.Changed, loc("d", a.Name))
			}
		}
		slices.Sort(want.Added)
		slices.Sort(want.Changed)
		slices.Sort(want.Removed)
		old := map[string]*Listing{"d": NewListing(was, 0, nil, DirID{})}
		for _, order := range []string{"in step", "by name"} {
			if order == "by name" {
				slices.Reverse(edited)
			}
			cur := map[string]*Listing{"d": NewListing(edited, 0, nil, DirID{})}
			got := Compare(old, cur, now, loc)
			if !slices.Equal(got.Added, want.Added) || !slices.Equal(got.Changed, want.Changed) || !slices.Equal(got.Removed, want.Removed) {
				t.Fatalf("round %d, %s: %+v, want %+v", round, order, got, want)
			}
		}
	}
}
