package tree

import "testing"

// TestDigest: a listing's digest moves with what its pages' URL entries
// depend on, and with nothing else.
func TestDigest(t *testing.T) {
	base := func() []Page {
		return []Page{
			{Name: "a.html", Time: 100, Stamp: 1, Sum: 11},
			{Name: "b.html", Time: 200, Stamp: 2, Sum: 22, Head: Head{Alts: "de\x00https://x.test/de/\x00"}},
			{Name: "c d.html", Time: 300, Stamp: 3, Sum: 33, Head: Head{Out: NoIndex}},
		}
	}
	kept := func(p []Page) *Listing { return NewListing(p, KeepStamps|KeepSums, nil, DirID{}) }
	want := kept(base()).Digest("docs")
	for _, tc := range []struct {
		name string
		dir  string                  // "": docs
		edit func(p []Page) []Page   // nil: none
		list func(p []Page) *Listing // nil: kept
		same bool
	}{
		{name: "the same pages", same: true},
		{name: "in another order", same: true, edit: func(p []Page) []Page { return []Page{p[2], p[0], p[1]} }},
		{name: "other stamps and sums", same: true, edit: func(p []Page) []Page { p[0].Stamp, p[1].Sum = 9, 99; return p }},
		{name: "none kept", same: true, list: func(p []Page) *Listing { return NewListing(p, 0, nil, DirID{}) }},
		{name: "with subdirectories, read from another inode", same: true,
			list: func(p []Page) *Listing { return NewListing(p, KeepStamps, []string{"docs/x"}, DirID{Dev: 1, Ino: 2}) }},
		{name: "another directory", dir: "blog"},
		{name: "a name", edit: func(p []Page) []Page { p[0].Name = "a2.html"; return p }},
		{name: "a time", edit: func(p []Page) []Page { p[1].Time++; return p }},
		{name: "a reason", edit: func(p []Page) []Page { p[2].Head.Out = Canonical; return p }},
		{name: "listed again", edit: func(p []Page) []Page { p[2].Head.Out = Listed; return p }},
		{name: "an alternate", edit: func(p []Page) []Page { p[1].Head.Alts = "fr\x00https://x.test/fr/\x00"; return p }},
		{name: "an image", edit: func(p []Page) []Page { p[0].Head.Images = "https://x.test/i.png\x00"; return p }},
		{name: "alternates become images", edit: func(p []Page) []Page { p[1].Head.Images, p[1].Head.Alts = p[1].Head.Alts, ""; return p }},
		{name: "a page less", edit: func(p []Page) []Page { return p[:2] }},
		{name: "a page more", edit: func(p []Page) []Page { return append(p, Page{Name: "e.html", Time: 1}) }},
		{name: "no page", edit: func(p []Page) []Page { return nil }},
	} {
		dir, pages, list := "docs", base(), kept
		if tc.dir != "" {
			dir = tc.dir
		}
		if tc.edit != nil {
			pages = tc.edit(pages)
		}
		if tc.list != nil {
			list = tc.list
		}
		got := list(pages).Digest(dir)
		if (got == want) != tc.same {
			t.Errorf("%s: digest %x, the base's %x: want the same: %v", tc.name, got, want, tc.same)
		}
	}
}
