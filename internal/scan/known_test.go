package scan

import (
	"testing"

	"github.com/sitemapd/sitemapd/internal/tree"
)

// TestKnownLookup: what known answers does not depend on the order the
// names are asked in (in the listing's order, which a cursor answers,
// or out of it, which a map does), nor on names it does not know.
func TestKnownLookup(t *testing.T) {
	pages := []tree.Page{
		{Name: "b.html", Time: 2, Stamp: 20, Sum: 200},
		{Name: "a.html", Time: 1, Stamp: 10, Sum: 100},
		{Name: "c d.html", Time: 3, Stamp: 30, Sum: 300},
	}
	l := tree.NewListing(pages, tree.KeepStamps|tree.KeepSums, nil, tree.DirID{})
	want := map[string]tree.Page{}
	for _, p := range pages {
		want[p.Name] = p
	}
	for _, order := range [][]string{
		{"b.html", "a.html", "c d.html"},             // the listing's order
		{"a.html", "b.html", "c d.html"},             // out of step at once
		{"b.html", "new.html", "a.html", "c d.html"}, // a new file between
		{"b.html", "a.html", "c d.html", "zz.html"},  // one past the end
		{"c d.html", "c d.html", "b.html"},           // asked twice
		{"b.html", "b.html", "a.html", "c d.html"},   // asked twice in step (a page with other names)
	} {
		kn := &known{l: l}
		for _, name := range order {
			got, ok := kn.lookup(name)
			w, known := want[name]
			if ok != known || (ok && (got.Time != w.Time || got.Stamp != w.Stamp || got.Sum != w.Sum)) {
				t.Errorf("order %q: lookup(%q) = %+v, %v; want %+v, %v", order, name, got, ok, w, known)
			}
		}
	}
	var none *known
	if _, ok := none.lookup("a.html"); ok {
		t.Error("a nil known knows a page")
	}
}
