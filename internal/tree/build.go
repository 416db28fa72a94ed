package tree

import (
	"slices"
	"strings"
)

// builder packs pages into a Listing one at a time, from Pages or from
// another listing's entries: NewListing and Amend make listings the same
// way.
type builder struct {
	l      *Listing
	names  strings.Builder
	shared string   // the names, when they are another listing's: names stays empty
	n      int      // pages expected: the size of every per-page slice
	dated  []uint64 // the Dated pages' bits, nil until one is: appended to words at finish
}

func newBuilder(keep Kept, n, nameBytes int) *builder {
	b := &builder{l: &Listing{kept: keep}, n: n}
	b.names.Grow(nameBytes)
	// Exact sizes: a daemon keeps a listing per directory for as long as
	// it runs. Stamps and sums share one allocation (stamps first): each
	// slice costs a header and a size class's rounding.
	if n > 0 {
		b.l.times = make([]int64, 0, n)
		if w := wordsPerPage(keep); w > 0 {
			b.l.words = make([]uint64, w*n)
		}
	}
	return b
}

// add appends page p.
func (b *builder) add(p *Page) {
	b.put(p.Name, p.Time, [3]uint64{p.Stamp, p.Sum, packPrint(p.Print, p.Parts)}, p.Dated, p.Head)
}

// addFrom appends page i of l, named name.
func (b *builder) addFrom(l *Listing, i int, name string) {
	b.put(name, l.times[i], [3]uint64{l.Stamp(i), l.Sum(i), l.word(2, i)}, l.datedAt(i), l.Head(i))
}

// put appends a page; words are its Stamp, Sum, and Print with its Parts
// (packPrint), each kept if its column is.
func (b *builder) put(name string, t int64, words [3]uint64, dated bool, h Head) {
	l := b.l
	i := len(l.times)
	if b.shared == "" {
		b.names.WriteString(name)
		b.names.WriteByte(0)
	}
	l.times = append(l.times, t)
	for col, w := range words {
		if j := column(l.kept, b.n, col, i); j >= 0 {
			l.words[j] = w
		}
	}
	if dated {
		if b.dated == nil {
			b.dated = make([]uint64, (b.n+63)/64)
		}
		b.dated[i/64] |= 1 << (i % 64)
	}
	// The per-page head slices exist only once some page needs them.
	if h.Hidden() {
		if l.out == nil {
			l.out = make([]Reason, i, b.n)
		}
	} else {
		l.latest = max(l.latest, t)
	}
	if l.out != nil {
		l.out = append(l.out, h.Out)
	}
	if h.Alts != "" && l.alts == nil {
		l.alts = make([]string, i, b.n)
	}
	if l.alts != nil {
		l.alts = append(l.alts, h.Alts)
	}
	if h.Images != "" && l.images == nil {
		l.images = make([]string, i, b.n)
	}
	if l.images != nil {
		l.images = append(l.images, h.Images)
	}
	if h.News != "" {
		l.news = append(l.news, article{i, h.News})
	}
}

func (b *builder) finish(subdirs []string, id DirID) *Listing {
	l := b.l
	if len(l.times) != b.n {
		panic("tree: listing built with another number of pages than announced")
	}
	if cap(l.news) > len(l.news) {
		l.news = slices.Clone(l.news) // kept for as long as the daemon runs
	}
	if b.dated != nil {
		// One allocation of the exact size, the bits after the columns.
		l.words = slices.Concat(l.words, b.dated)
	}
	l.names = b.names.String()
	if b.shared != "" {
		l.names = b.shared
	}
	l.id = id
	if len(subdirs) > 0 {
		l.subdirs = append(make([]string, 0, len(subdirs)), subdirs...)
	}
	return l
}

// Amend returns a listing of the same directory, keeping what keep says,
// in which the pages named in edit are replaced, each at its place, by
// the page edit holds for them, or removed where it holds nil, and the
// pages of add are appended in order; every other page is kept as l
// remembers it, in its order. A change to a few files of a large
// directory so costs a copy of its listing, not a Page for each of its
// files, and an edit leaves its names as they were (SameNames), which
// pairs the listings index by index. Each page of edit has the name it is
// held under; a name that l does not have is ignored. add must not name a
// page l keeps.
func (l *Listing) Amend(keep Kept, edit map[string]*Page, add []Page, subdirs []string) *Listing {
	n, nameBytes := l.Len()+len(add), len(l.names)
	l.All(func(i int, name string) {
		if p, ok := edit[name]; ok {
			if p == nil {
				n--
				nameBytes -= len(name) + 1
			}
		}
	})
	for i := range add {
		nameBytes += len(add[i].Name) + 1
	}
	same := n == l.Len() && len(add) == 0
	if same {
		nameBytes = 0
	}
	b := newBuilder(keep, n, nameBytes)
	if same {
		// No page removed or added: the same names, which SameNames then
		// compares without reading them.
		b.shared = l.names
	}
	l.All(func(i int, name string) {
		p, ok := edit[name]
		switch {
		case !ok:
			b.addFrom(l, i, name)
		case p != nil:
			b.add(p)
		}
	})
	for i := range add {
		b.add(&add[i])
	}
	return b.finish(subdirs, l.id)
}

// Find returns the index of the page named name, or ok false: a scan of
// the names, cheaper than a map when only a few are looked up.
func (l *Listing) Find(name string) (i int, ok bool) {
	if name == "" || strings.IndexByte(name, 0) >= 0 {
		return 0, false // no page's name
	}
	at := 0
	if !strings.HasPrefix(l.names, name+"\x00") {
		j := strings.Index(l.names, "\x00"+name+"\x00")
		if j < 0 {
			return 0, false
		}
		at = j + 1
	}
	return strings.Count(l.names[:at], "\x00"), true
}
