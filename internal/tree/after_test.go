package tree

import (
	"fmt"
	"reflect"
	"testing"
	"unsafe"
)

// TestNewListingAfter: a directory read again with the same names in the
// same order shares them with what was known of it when they are a large
// allocation (and its times when those are the same too); any other
// reading, or a small directory, packs its own; either way the listing
// holds what NewListing would make of its pages.
func TestNewListingAfter(t *testing.T) {
	keep := KeepStamps | KeepSums | KeepPrints
	dir := func(n int, tm func(i int) int64, pr uint64) []Page {
		pages := make([]Page, n)
		for i := range pages {
			pages[i] = Page{Name: fmt.Sprintf("page-%08d.html", i), Time: tm(i), Stamp: Stamp(tm(i), 7, tm(i), 1), Sum: uint64(i) + 1, Print: pr << 8}
		}
		return pages
	}
	at := func(i int) int64 { return int64(i) * 1000 }
	large := 4096 // pages of 19-byte names: 80 KB of names, 32 KB of times
	was := NewListing(dir(large, at, 0), keep, nil, DirID{Dev: 1, Ino: 2})
	printed := dir(large, at, 11)
	moved := dir(large, func(i int) int64 { return at(i) + int64(i/4000) }, 11) // the last pages' times
	swapped := dir(large, at, 11)
	swapped[0], swapped[1] = swapped[1], swapped[0]
	prefix := dir(large, at, 11)
	prefix[5].Name = "page-0000000"
	small := dir(10, at, 0)
	smallWas := NewListing(small, keep, nil, DirID{})
	for _, tc := range []struct {
		name  string
		was   *Listing
		pages []Page
		// shared: the names are was's; times: so are the times
		shared, times bool
	}{
		{"same names, new prints", was, printed, true, true},
		{"same names, a time moved", was, moved, true, false},
		{"nothing known", nil, printed, false, false},
		{"one removed", was, printed[:large-1], false, false},
		{"one added", was, append(printed[:large:large], Page{Name: "z.html"}), false, false},
		{"another order", was, swapped, false, false},
		{"a name that is another's prefix", was, prefix, false, false},
		{"a small directory", smallWas, dir(10, at, 11), false, false},
		{"empty", NewListing(nil, keep, nil, DirID{}), nil, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := NewListingAfter(tc.was, tc.pages, keep, []string{"x/sub"}, DirID{Dev: 1, Ino: 3})
			want := NewListing(tc.pages, keep, []string{"x/sub"}, DirID{Dev: 1, Ino: 3})
			if !reflect.DeepEqual(got, want) {
				t.Error("listing differs from NewListing's")
			}
			shared := tc.was != nil && len(got.names) > 0 && unsafe.StringData(got.names) == unsafe.StringData(tc.was.names)
			if shared != tc.shared {
				t.Errorf("names shared %v, want %v", shared, tc.shared)
			}
			times := tc.was != nil && len(got.times) > 0 && &got.times[0] == &tc.was.times[0]
			if times != tc.times {
				t.Errorf("times shared %v, want %v", times, tc.times)
			}
		})
	}
}
