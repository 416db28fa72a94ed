package pagestore

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sitemapd/sitemapd/internal/tree"
)

// bigDir is a directory of n pages of every column, some with heads.
func bigDir(n int) *tree.Listing {
	ps := make([]tree.Page, n)
	for i := range ps {
		ps[i] = tree.Page{Name: fmt.Sprintf("p%05d.html", i), Time: int64(i), Stamp: uint64(i + 1), Sum: uint64(i + 2),
			Print: uint64(i + 3), Parts: 0x0102, Dated: i%7 == 0}
		if i%11 == 0 {
			ps[i].Head = tree.Head{Out: tree.NoIndex, Alts: "de\x00https://x.test/de/\x00", Images: "https://x.test/i.png\x00"}
		}
	}
	return tree.NewListing(ps, tree.KeepStamps|tree.KeepSums|tree.KeepPrints, nil, tree.DirID{})
}

// byName is a listing's pages by name: what a restart looks pages up by
// (a directory re-read whole may list them in another order than the
// amended listing does).
func byName(l *tree.Listing) map[string]tree.Page {
	m := map[string]tree.Page{}
	for _, p := range l.Pages() {
		m[p.Name] = p
	}
	return m
}

// TestAmendBlocks: a listing appended with the one the store holds as its
// Base is written as the pages that differ (a few bytes for one page of a
// large directory), and read back as the whole listing, after any number
// of amends; too many changes, other columns or no base write it whole.
func TestAmendBlocks(t *testing.T) {
	const n = 2000
	base := bigDir(n)
	edited := func(l *tree.Listing, name string, time int64) *tree.Listing {
		i, _ := l.Find(name)
		p := l.Page(i, name)
		p.Time, p.Stamp, p.Sum, p.Print = time, uint64(time)*3, uint64(time)*5, uint64(time)*7
		return l.Amend(l.Kept(), map[string]*tree.Page{name: &p}, nil, nil)
	}
	one := edited(base, "p00042.html", 1e9)
	added := one.Amend(one.Kept(), map[string]*tree.Page{"p00007.html": nil}, []tree.Page{{Name: "new page.html", Time: 5, Stamp: 6, Sum: 7}}, nil)
	i11, _ := added.Find("p00011.html")
	p11 := added.Page(i11, "p00011.html") // its head only: listed now, no alternates, no images
	p11.Head = tree.Head{}
	headed := added.Amend(added.Kept(), map[string]*tree.Page{"p00011.html": &p11}, nil, nil)
	reordered := tree.NewListing(reverse(headed.Pages()), headed.Kept(), nil, tree.DirID{})
	reordered = edited(reordered, "p01999.html", 2e9)
	most := tree.NewListing(bigDir(n).Pages()[:n/2], base.Kept(), nil, tree.DirID{})
	again := edited(most, "p00001.html", 3e9)
	lessKept := tree.NewListing(again.Pages(), tree.KeepStamps|tree.KeepSums, nil, tree.DirID{})

	path := filepath.Join(t.TempDir(), Name)
	writeStore(t, path, map[string]*tree.Listing{"big": base, "x/y": listings["x/y"]})
	held := base
	for _, step := range []struct {
		name   string
		next   *tree.Listing
		amends bool
	}{
		{"one page edited in place", one, true},
		{"one page removed, one added", added, true},
		{"a page's head", headed, true},
		{"the names in another order, one edited", reordered, true},
		{"half the pages removed", most, false},
		{"one edited after a whole block", again, true},
		{"other columns kept", lessKept, false},
	} {
		before, _ := os.Stat(path)
		if _, err := Append(path, testKeys, []Entry{{Dir: "big", Listing: step.next, Base: held}}); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(path)
		payload, _, err := readBlock(data, int(before.Size()))
		if err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if got := isAmend(8, payload); got != step.amends {
			t.Errorf("%s: amend block %v, want %v (%d bytes)", step.name, got, step.amends, len(payload))
		}
		if step.amends && len(payload) > 200 {
			t.Errorf("%s: %d bytes appended for a page or two", step.name, len(payload))
		}
		s, err := Open(path, testKeys)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Listing("big"); got == nil || !reflect.DeepEqual(byName(got), byName(step.next)) {
			t.Errorf("%s: read back another listing", step.name)
		}
		var each *tree.Listing
		s.Each(func(dir string, l *tree.Listing) {
			if dir == "big" {
				each = l
			}
		})
		if each == nil || !reflect.DeepEqual(byName(each), byName(step.next)) {
			t.Errorf("%s: Each gives another listing", step.name)
		}
		samePages(t, s, "x/y", listings["x/y"])
		s.Close()
		held = step.next
	}
}

func reverse(ps []tree.Page) []tree.Page {
	for i, j := 0, len(ps)-1; i < j; i, j = i+1, j-1 {
		ps[i], ps[j] = ps[j], ps[i]
	}
	return ps
}

// TestAmendCut: a store cut anywhere in an amend block reads as it was
// before it; an amend block of a directory the store has no full block of
// leaves the directory unknown (its pages are read again), never known
// from half of it; under other head rules an amended page has no stamp.
func TestAmendCut(t *testing.T) {
	path := filepath.Join(t.TempDir(), Name)
	base := bigDir(100)
	writeStore(t, path, map[string]*tree.Listing{"big": base})
	mid := base.Amend(base.Kept(), map[string]*tree.Page{"p00003.html": {Name: "p00003.html", Time: 9, Stamp: 9, Sum: 9}}, nil, nil)
	if _, err := Append(path, testKeys, []Entry{{Dir: "big", Listing: mid, Base: base}}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	last := mid.Amend(mid.Kept(), map[string]*tree.Page{"p00004.html": nil}, nil, nil)
	orphan := bigDir(3)
	if _, err := Append(path, testKeys, []Entry{{Dir: "big", Listing: last, Base: mid}, {Dir: "orphan", Listing: orphan, Base: bigDir(4)}}); err != nil {
		t.Fatal(err)
	}
	full, _ := os.ReadFile(path)
	s, err := Open(path, testKeys)
	if err != nil {
		t.Fatal(err)
	}
	samePages(t, s, "big", last)
	samePages(t, s, "orphan", nil)
	s.Close()
	for n := len(before); n < len(full); n++ {
		os.WriteFile(path, full[:n], 0o600)
		s, err := Open(path, testKeys)
		if err != nil {
			t.Fatalf("cut to %d of %d bytes: %v", n, len(full), err)
		}
		want := mid
		if lastBlockEnd(full[:n]) > len(before) {
			want = last
		}
		samePages(t, s, "big", want)
		s.Close()
	}
	os.WriteFile(path, full, 0o600)
	other := testKeys
	other.Heads[0]++
	s, err = Open(path, other)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, p := range s.Listing("big").Pages() {
		if p.Stamp != tree.NoStamp {
			t.Fatalf("under other heads, %s has stamp %d", p.Name, p.Stamp)
		}
	}
}

// TestAmendRandom appends random edits of a directory (pages edited,
// removed, added, the names reordered), each amending what the last
// append wrote, and reads the store back after each.
func TestAmendRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	path := filepath.Join(t.TempDir(), Name)
	held := bigDir(300)
	writeStore(t, path, map[string]*tree.Listing{"d": held})
	for step := range 60 {
		ps := held.Pages()
		for range 1 + r.IntN(5) {
			if len(ps) < 2 {
				break
			}
			i := r.IntN(len(ps))
			switch r.IntN(4) {
			case 0:
				ps = append(ps[:i], ps[i+1:]...)
			case 1:
				ps = append(ps, tree.Page{Name: fmt.Sprintf("n%d-%d.html", step, i), Time: int64(step), Stamp: uint64(i)})
			case 2:
				ps[i].Time, ps[i].Sum = int64(r.Uint32()), r.Uint64()
			default:
				r.Shuffle(len(ps), func(a, b int) { ps[a], ps[b] = ps[b], ps[a] })
			}
		}
		next := tree.NewListing(ps, held.Kept(), nil, tree.DirID{})
		if _, err := Append(path, testKeys, []Entry{{Dir: "d", Listing: next, Base: held}}); err != nil {
			t.Fatal(err)
		}
		s, err := Open(path, testKeys)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Listing("d"); got == nil || !reflect.DeepEqual(byName(got), byName(next)) {
			t.Fatalf("step %d: read back another listing", step)
		}
		s.Close()
		held = next
	}
}
