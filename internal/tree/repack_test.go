package tree

import (
	"fmt"
	"reflect"
	"runtime"
	"testing"
	"unsafe"
	"weak"
)

// repackSite is a Memory of two groups at depth 1 (a, b), an empty one
// (c), and a root group, over directories of every kind of page: hidden,
// with alternates, images, news, dated, and none at all; a chunk holds
// only part of it (repackChunk).
func repackSite() (*Memory, map[string]func() *Listing) {
	page := func(d string, i int) Page {
		p := Page{Name: fmt.Sprintf("%s-page-%05d.html", d, i), Time: int64(i) * 1000, Stamp: Stamp(int64(i), 3, int64(i), 9), Sum: uint64(i) + 1, Print: uint64(i) << 8}
		switch i % 7 {
		case 1:
			p.Head.Out = NoIndex
		case 2:
			p.Head.Alts = "de\x00https://static.test/de/" + p.Name + "\x00"
		case 3:
			p.Head.Images = "https://static.test/i.png\x00"
		case 4:
			p.Head.News = "news of " + p.Name
		case 5:
			p.Dated = true
		}
		return p
	}
	makers := map[string]func() *Listing{}
	dirs := map[string]int{"": 3, "a": 5000, "a/x": 40, "a/y": 0, "b": 300, "b/z/w": 7}
	for d, n := range dirs {
		makers[d] = func() *Listing {
			pages := make([]Page, n)
			for i := range pages {
				pages[i] = page(d, i)
			}
			return NewListing(pages, KeepStamps|KeepSums|KeepPrints, []string{d + "/s1", d + "/s2"}, DirID{Dev: 1, Ino: uint64(len(d))})
		}
	}
	m := NewMemory(1)
	for _, g := range []string{"", "a", "b"} {
		set := map[string]*Listing{}
		for d, mk := range makers {
			if Depth(1).GroupOf(d) == g {
				set[d] = mk()
			}
		}
		m.Apply(g, WholeUpdate(set, false))
	}
	m.Apply("c", WholeUpdate(nil, false))
	return m, makers
}

// TestRepack: the repacked memory holds listings equal to what the
// directories' pages make, in the same groups, tells each one's move, and
// keeps nothing of the originals alive (the point of it: their spans
// free).
func TestRepack(t *testing.T) {
	m, makers := repackSite()
	var alive []func() bool // one for each of the originals' allocations
	was := map[string]*Listing{}
	m.Each(func(d string, l *Listing) {
		was[d] = l
		alive = append(alive, weakOf(unsafe.Slice(l, 1)), weakOf(l.times), weakOf(l.words), weakOf(l.out), weakOf(l.alts),
			weakOf(l.images), weakOf(l.news), weakOf(l.subdirs), weakOf(unsafe.Slice(unsafe.StringData(l.names), len(l.names))))
		if len(l.news) > 0 {
			alive = append(alive, weakOf(unsafe.Slice(unsafe.StringData(l.news[0].packed), len(l.news[0].packed))))
		}
		if d != "" { // the root's subdirectories' paths are constants
			alive = append(alive, weakOf(unsafe.Slice(unsafe.StringData(l.subdirs[0]), len(l.subdirs[0]))))
		}
	})
	moves := 0
	m.Repack(func(dir string, w, now *Listing) {
		moves++
		if was[dir] != w || w == now {
			t.Errorf("%q: moved from %p to %p, memory held %p", dir, w, now, was[dir])
		}
	})
	if moves != len(makers) {
		t.Errorf("%d moves, want %d", moves, len(makers))
	}
	was = nil
	for d, mk := range makers {
		if got := m.Dir(d); !reflect.DeepEqual(got, mk()) {
			t.Errorf("%q: repacked listing differs from its pages'", d)
		}
	}
	for g, want := range map[string][]string{"": {""}, "a": {"a", "a/x", "a/y"}, "b": {"b", "b/z/w"}, "c": nil} {
		if !m.Remembers(g) || len(m.Listings(g)) != len(want) {
			t.Errorf("group %q: remembered %v, %d directories, want %d", g, m.Remembers(g), len(m.Listings(g)), len(want))
		}
		for _, d := range want {
			if m.Listings(g)[d] != m.Dir(d) {
				t.Errorf("group %q lacks %q", g, d)
			}
		}
	}
	runtime.GC()
	for i, p := range alive {
		if p() {
			t.Errorf("original allocation %d still alive", i)
		}
	}
	runtime.KeepAlive(m) // what holds the copies
}

// weakOf tells whether s's array is still alive, by a weak pointer to
// it; false for an empty s.
func weakOf[T any](s []T) func() bool {
	if len(s) == 0 {
		return func() bool { return false }
	}
	w := weak.Make(&s[0])
	return func() bool { return w.Value() != nil }
}

// TestRepackThenApply: memory repacked takes updates as before, and a
// listing read again with the same names still has SameNames.
func TestRepackThenApply(t *testing.T) {
	m, makers := repackSite()
	m.Repack(nil)
	fresh := makers["b/z/w"]()
	if !m.Dir("b/z/w").SameNames(fresh) {
		t.Error("repacked listing has other names than its pages'")
	}
	m.Apply("b", &Update{Forget: []string{"b/z"}, Set: map[string]*Listing{"b/q": fresh}, View: map[string]*Listing{}})
	if m.Dir("b/z/w") != nil || m.Dir("b/q") != fresh || len(m.Listings("b")) != 2 {
		t.Errorf("after an update: b/z/w %v, b/q %v, group b %d directories", m.Dir("b/z/w") != nil, m.Dir("b/q") == fresh, len(m.Listings("b")))
	}
	m.Forget("a")
	if m.Dir("a/x") != nil || m.Remembers("a") {
		t.Error("group a still remembered after Forget")
	}
}

// TestRepackFreesAsItGoes: the originals of a chunk packed are free
// before the repack ends, so that it never holds the listings twice.
func TestRepackFreesAsItGoes(t *testing.T) {
	m, _ := repackSite()
	first := weakOf(unsafe.Slice(m.Dir(""), 1)) // the root's: first of the first chunk
	sawA, checked := false, false
	m.Repack(func(dir string, was, now *Listing) {
		if dir == "a" {
			sawA = true
			return
		}
		if dir == "b/z/w" { // the last directory, in a later chunk
			runtime.GC()
			if first() {
				t.Error("the first chunk's originals still alive as the last chunk is packed")
			}
			checked = true
		}
	})
	if !sawA || !checked {
		t.Fatal("the site's directories were not all moved")
	}
	if m.Dir("") == nil {
		t.Fatal("root no longer remembered")
	}
}
