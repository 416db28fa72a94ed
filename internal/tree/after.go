package tree

import "slices"

// NewListingAfter is NewListing for a directory read again whose listing
// was was (nil: none): when its pages have was's names, in was's order,
// and those are a large allocation, the new listing shares them instead
// of packing a copy, and its times too when they are the same. A full
// build holds every directory's published listing and its new one until
// it commits; the names are some 40% of a listing, and a directory read
// again mostly has the same ones (the daemon's page prints build, a
// rescan: all of them). Only large ones (sharedFrom): a small object
// shared keeps its span, made amid the walk before's garbage, from being
// freed with the rest of its listing, and the daemon at rest holds the
// difference (at 1M files, sharing every directory's names and times cut
// the page prints build's live heap peak from 104 to 83 MB, and left 11
// MB more resident after it). Sharing also makes SameNames true without
// reading the names.
func NewListingAfter(was *Listing, pages []Page, keep Kept, subdirs []string, id DirID) *Listing {
	if was == nil || len(was.names) < sharedFrom || !sameNamesAs(was.names, pages) {
		return NewListing(pages, keep, subdirs, id)
	}
	b := newBuilder(keep, len(pages), 0)
	b.shared = was.names
	for i := range pages {
		b.add(&pages[i])
	}
	l := b.finish(subdirs, id)
	if len(l.times)*8 >= sharedFrom && slices.Equal(l.times, was.times) {
		l.times = was.times // a listing is never changed once made
	}
	return l
}

// sharedFrom is the size from which Go allocates an object in a span of
// its own (its allocator's largest size class is 32 KiB).
const sharedFrom = 32 << 10

// sameNamesAs reports whether names (a listing's, each ended by a NUL)
// are those of pages, in order.
func sameNamesAs(names string, pages []Page) bool {
	if names == "" {
		return false // no page, or another listing's: nothing to share
	}
	for i := range pages {
		n := pages[i].Name
		if len(names) <= len(n) || names[len(n)] != 0 || names[:len(n)] != n {
			return false
		}
		names = names[len(n)+1:]
	}
	return names == ""
}
