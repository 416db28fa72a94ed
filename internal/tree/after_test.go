package tree

import (
	"reflect"
	"testing"
	"unsafe"
)

// TestNewListingAfter: a directory read again with the same names in the
// same order shares its names with what was known of it; any other
// reading packs its own; either way the listing holds what NewListing
// would make of its pages.
func TestNewListingAfter(t *testing.T) {
	page := func(name string, tm int64, pr uint64) Page {
		return Page{Name: name, Time: tm, Stamp: Stamp(tm, 7, tm, 1), Sum: uint64(tm) + 1, Print: pr, Head: Head{}}
	}
	a, b, c := page("a.html", 10, 0), page("b c.html", 20, 0), page("c.html", 30, 0)
	keep := KeepStamps | KeepSums | KeepPrints
	was := NewListing([]Page{a, b, c}, keep, nil, DirID{Dev: 1, Ino: 2})
	printed := []Page{page("a.html", 10, 11<<8), page("b c.html", 20, 12<<8), page("c.html", 30, 13<<8)}
	for _, tc := range []struct {
		name   string
		was    *Listing
		pages  []Page
		shared bool
		// sameTimes: shared, the times are too
		sameTimes bool
	}{
		{"same names, new prints", was, printed, true, true},
		{"same names, a time moved", was, []Page{printed[0], page("b c.html", 21, 0), printed[2]}, true, false},
		{"nothing known", nil, printed, false, false},
		{"one removed", was, printed[:2], false, false},
		{"one added", was, append(printed[:3:3], page("d.html", 40, 0)), false, false},
		{"another order", was, []Page{printed[1], printed[0], printed[2]}, false, false},
		{"a name that is another's prefix", was, []Page{printed[0], page("b", 20, 0), printed[2]}, false, false},
		{"renamed", was, []Page{printed[0], printed[1], page("c.htm", 30, 0)}, false, false},
		{"empty", NewListing(nil, keep, nil, DirID{}), nil, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := NewListingAfter(tc.was, tc.pages, keep, []string{"x/sub"}, DirID{Dev: 1, Ino: 3})
			want := NewListing(tc.pages, keep, []string{"x/sub"}, DirID{Dev: 1, Ino: 3})
			if !reflect.DeepEqual(got, want) {
				t.Errorf("listing %+v, want %+v", got, want)
			}
			shared := tc.was != nil && len(got.names) > 0 && unsafe.StringData(got.names) == unsafe.StringData(tc.was.names)
			if shared != tc.shared {
				t.Errorf("names shared %v, want %v", shared, tc.shared)
			}
			sameTimes := shared && len(got.times) > 0 && &got.times[0] == &tc.was.times[0]
			if sameTimes != (tc.shared && tc.sameTimes) {
				t.Errorf("times shared %v, want %v", sameTimes, tc.shared && tc.sameTimes)
			}
		})
	}
}
