package tree

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestAmend: an amended listing holds the pages it should (replaced at
// their place, removed, appended), each with everything kept of it, in the
// order the daemon's pairing relies on; an edit keeps the names as they
// were.
func TestAmend(t *testing.T) {
	page := func(name string, tm int64, h Head) Page {
		return Page{Name: name, Time: tm, Stamp: Stamp(tm, 7, tm, 1), Sum: uint64(tm) + 1, Head: h}
	}
	a := page("a.html", 10, Head{})
	b := page("b c.html", 20, Head{Out: NoIndex})
	c := page("c.html", 30, Head{Alts: "en\x00https://x/\x00"})
	d := page("d.html", 40, Head{Images: "https://x/i.png\x00"})
	keep := KeepStamps | KeepSums
	old := NewListing([]Page{a, b, c, d}, keep, []string{"x/sub"}, DirID{Dev: 1, Ino: 2})
	a2 := page("a.html", 50, Head{Out: Redirect})
	c2 := page("c.html", 60, Head{})
	e := page("e.html", 5, Head{Images: "https://x/j.png\x00"})
	for _, tc := range []struct {
		name      string
		edit      map[string]*Page
		add       []Page
		want      []Page
		sameNames bool
	}{
		{"nothing", nil, nil, []Page{a, b, c, d}, true},
		{"edits in place", map[string]*Page{"a.html": &a2, "c.html": &c2}, nil, []Page{a2, b, c2, d}, true},
		{"removed", map[string]*Page{"b c.html": nil, "d.html": nil}, nil, []Page{a, c}, false},
		{"added at the end", nil, []Page{e}, []Page{a, b, c, d, e}, false},
		{"everything", map[string]*Page{"a.html": nil, "c.html": &c2, "zz.html": nil}, []Page{e}, []Page{b, c2, d, e}, false},
		{"all gone", map[string]*Page{"a.html": nil, "b c.html": nil, "c.html": nil, "d.html": nil}, nil, []Page{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := old.Amend(keep, tc.edit, tc.add, []string{"x/new"})
			if ps := got.Pages(); !reflect.DeepEqual(ps, tc.want) {
				t.Errorf("pages %+v, want %+v", ps, tc.want)
			}
			if got.SameNames(old) != tc.sameNames {
				t.Errorf("SameNames %v, want %v", !tc.sameNames, tc.sameNames)
			}
			// Everything derived from the pages is as a listing made of
			// them says: an oracle built the other way.
			want := NewListing(tc.want, keep, []string{"x/new"}, old.ID())
			if got.Latest() != want.Latest() || got.ID() != want.ID() || !slices.Equal(got.Subdirs(), want.Subdirs()) {
				t.Errorf("latest %d id %v subdirs %v, want %d %v %v", got.Latest(), got.ID(), got.Subdirs(), want.Latest(), want.ID(), want.Subdirs())
			}
		})
	}
	// What keep does not keep is dropped.
	if got := old.Amend(0, nil, nil, nil); got.Stamp(0) != NoStamp || got.Sum(0) != 0 || got.Time(0) != 10 {
		t.Errorf("keep 0: stamp %d sum %d time %d", got.Stamp(0), got.Sum(0), got.Time(0))
	}
}

func TestFind(t *testing.T) {
	l := NewListing([]Page{{Name: "ab"}, {Name: "a"}, {Name: "b a"}, {Name: "b"}}, 0, nil, DirID{})
	for name, want := range map[string]int{"ab": 0, "a": 1, "b a": 2, "b": 3, "": -1, "c": -1, "ab\x00a": -1, " a": -1} {
		i, ok := l.Find(name)
		if !ok {
			i = -1
		}
		if i != want {
			t.Errorf("Find(%q) = %d, want %d", name, i, want)
		}
	}
}

// TestPairIsByName: whatever the order of two listings of a directory
// (the same with a few pages edited, removed, added at the end or in the
// middle, moved, or renamed; or shuffled), Pair reports each name whose
// entry a pairing by name says differs, once, with its entries; and a directory gone or new has its pages
// paired with nothing.
func TestPairIsByName(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	mutate := []func(ps []Page) []Page{
		func(ps []Page) []Page { // edit
			if len(ps) > 0 {
				i := r.IntN(len(ps))
				ps[i].Time++
				if r.IntN(3) == 0 {
					ps[i].Head.Out = NoIndex - ps[i].Head.Out // hide, or show again
				}
			}
			return ps
		},
		func(ps []Page) []Page { // remove
			if len(ps) == 0 {
				return ps
			}
			i := r.IntN(len(ps))
			return slices.Delete(ps, i, i+1)
		},
		func(ps []Page) []Page { // add at the end
			return append(ps, Page{Name: fmt.Sprintf("new%d", r.Uint32()), Time: 1})
		},
		func(ps []Page) []Page { // add in the middle (a whole read's order)
			return slices.Insert(ps, r.IntN(len(ps)+1), Page{Name: fmt.Sprintf("mid%d", r.Uint32()), Time: 1})
		},
		func(ps []Page) []Page { // move a page elsewhere
			if len(ps) < 2 {
				return ps
			}
			i := r.IntN(len(ps))
			p := ps[i]
			ps = slices.Delete(ps, i, i+1)
			return slices.Insert(ps, r.IntN(len(ps)+1), p)
		},
		func(ps []Page) []Page { // rename in place
			if len(ps) > 0 {
				ps[r.IntN(len(ps))].Name = fmt.Sprintf("ren%d", r.Uint32())
			}
			return ps
		},
		func(ps []Page) []Page { // another order altogether
			r.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
			return ps
		},
	}
	for round := range 3000 {
		var was []Page
		for i := range r.IntN(stepBudget * 3) {
			p := Page{Name: fmt.Sprintf("p%d", i), Time: int64(r.IntN(3))}
			if r.IntN(5) == 0 {
				p.Head.Out = NoIndex
			}
			was = append(was, p)
		}
		is := slices.Clone(was)
		steps := 1 + r.IntN(4)
		if r.IntN(10) == 0 {
			steps = stepBudget + r.IntN(stepBudget) // past the budget: by name
		}
		for range steps {
			is = mutate[r.IntN(len(mutate))](is)
		}
		ol, cl := NewListing(was, 0, nil, DirID{}), NewListing(is, 0, nil, DirID{})
		// The oracle: each name's entries on both sides, where they differ.
		want := map[string][2]Entry{}
		for _, p := range was {
			if !p.Head.Hidden() {
				want[p.Name] = [2]Entry{{Listed: true, Time: p.Time}, {}}
			}
		}
		for _, p := range is {
			if !p.Head.Hidden() {
				e := want[p.Name]
				e[1] = Entry{Listed: true, Time: p.Time}
				want[p.Name] = e
			} else if e, ok := want[p.Name]; ok {
				e[1] = Entry{}
				want[p.Name] = e
			}
		}
		maps.DeleteFunc(want, func(_ string, e [2]Entry) bool { return e[0] == e[1] })
		// A directory gone and one new are paired with nothing.
		gone, added := Page{Name: "g", Time: 1}, Page{Name: "n", Time: 2}
		want["gone/g"] = [2]Entry{{Listed: true, Time: 1}, {}}
		want["new/n"] = [2]Entry{{}, {Listed: true, Time: 2}}
		old := map[string]*Listing{"d": ol, "gone": NewListing([]Page{gone}, 0, nil, DirID{})}
		cur := map[string]*Listing{"d": cl, "new": NewListing([]Page{added}, 0, nil, DirID{})}
		got := map[string][2]Entry{}
		Pair(old, cur, func(dir, name string, was, is Entry) {
			key := name
			if dir != "d" {
				key = dir + "/" + name
			}
			if _, twice := got[key]; twice {
				t.Fatalf("round %d: %s/%s paired twice", round, dir, name)
			}
			got[key] = [2]Entry{was, is}
		})
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d:\nwas %v\nis  %v\ngot  %v\nwant %v", round, was, is, got, want)
		}
	}
}

// TestArticles: a listing keeps the news articles of the pages that are
// one, at their index, through an Amend that removes, edits and adds
// pages around them; Articles gives the listed ones, by name, in order.
func TestArticles(t *testing.T) {
	l := NewListing([]Page{
		{Name: "a.html"},
		{Name: "b.html", Head: Head{News: "B"}},
		{Name: "c.html"},
		{Name: "d.html", Head: Head{News: "D", Out: NoIndex}},
		{Name: "e.html", Head: Head{News: "E"}},
	}, KeepStamps, nil, DirID{})
	articles := func(l *Listing) string {
		var s []string
		l.Articles(func(name, packed string) { s = append(s, name+"="+packed) })
		return strings.Join(s, " ")
	}
	heads := func(l *Listing) string {
		var s []string
		l.All(func(i int, name string) { s = append(s, name+"="+l.Head(i).News) })
		return strings.Join(s, " ")
	}
	if got, want := articles(l), "b.html=B e.html=E"; got != want {
		t.Errorf("articles %q, want %q", got, want)
	}
	if got, want := heads(l), "a.html= b.html=B c.html= d.html=D e.html=E"; got != want {
		t.Errorf("heads %q, want %q", got, want)
	}
	m := l.Amend(KeepStamps, map[string]*Page{"a.html": nil, "c.html": {Name: "c.html", Head: Head{News: "C"}}, "e.html": {Name: "e.html"}},
		[]Page{{Name: "f.html", Head: Head{News: "F"}}}, nil)
	if got, want := heads(m), "b.html=B c.html=C d.html=D e.html= f.html=F"; got != want {
		t.Errorf("amended: heads %q, want %q", got, want)
	}
	if got, want := articles(m), "b.html=B c.html=C f.html=F"; got != want {
		t.Errorf("amended: articles %q, want %q", got, want)
	}
	if n := NewListing([]Page{{Name: "x.html"}}, KeepStamps, nil, DirID{}); n.news != nil {
		t.Error("a listing without articles keeps a slice for them")
	}
}
