package tree

import (
	"maps"
	"slices"
	"strings"
)

// Repack copies every listing memory holds, and the paths it holds them
// under, into a few large allocations made for them, in the order of the
// directories' paths, and calls moved (if not nil) for each listing
// replaced, so that whoever holds it by pointer can take its copy. A copy
// lists what its original does; memory drops the originals, a chunk's as
// soon as it is packed (moved should let go of them too).
//
// Why: a full build makes every directory's listing amid the garbage of
// its walk (pages read, directory entries, heads), in the same small size
// classes, so once that garbage is collected the listings are left
// scattered over spans that cannot be given back to the system. A copy
// made with ordinary allocations would fill those spans' free slots and
// leave the same holes behind; the copies are packed instead, a chunk of
// listings (repackChunk) into one string, one slice of times, of words,
// of strings and of Listings: objects above the allocator's largest size
// class (sharedFrom), on spans of their own, so that the spans the
// originals held free whole. A chunk lives while any of its listings
// does: a directory changed later leaves its old copy in its chunk, at
// most what the repack copied, until the next one. (At 1M files, the
// daemon at rest after its page prints build: 101 -> 91 MiB resident;
// at 300k, HeapInuse less HeapAlloc 9.8 -> 4.2 MB; bench/README.md.)
func (m *Memory) Repack(moved func(dir string, was, now *Listing)) {
	dirs := slices.Sorted(maps.Keys(m.dirs))
	into := make(map[string]*Listing, len(m.dirs))
	for len(dirs) > 0 {
		n, size := 0, 0
		for n < len(dirs) && size < repackChunk {
			size += len(dirs[n]) + m.dirs[dirs[n]].footprint()
			n++
		}
		packChunk(dirs[:n], m.dirs, into, moved)
		// The originals of a chunk packed go now, not once every copy is
		// made: held to the end, the repack's peak was the listings twice
		// (at 1M files the daemon's highest live heap, 101 MB, where a
		// chunk at a time holds them once and a chunk more).
		for _, d := range dirs[:n] {
			delete(m.dirs, d)
		}
		dirs = dirs[n:]
	}
	// The groups' sets anew, keyed by the packed paths (a group's name is
	// a prefix of its directories'): an old key would keep its span.
	groups := make(map[string]map[string]bool, len(m.groups))
	for g, ds := range m.groups {
		if len(ds) == 0 {
			groups[strings.Clone(g)] = map[string]bool{}
		}
	}
	for d := range into {
		g := m.depth.GroupOf(d)
		if groups[g] == nil {
			groups[g] = make(map[string]bool, len(m.groups[g]))
		}
		groups[g][d] = true
	}
	m.dirs, m.groups = into, groups
}

// repackChunk is the size of the listings Repack packs together: a few
// times the allocator's largest size class, so that every chunk's
// allocations but the last's are large ones.
const repackChunk = 8 * sharedFrom

// footprint is about the bytes a listing's copy takes.
func (l *Listing) footprint() int {
	n := len(l.names) + 8*(len(l.times)+len(l.words)) + 200
	for _, s := range l.subdirs {
		n += len(s) + 16
	}
	return n
}

// slab is one chunk's allocations, each made once at its size.
type slab struct {
	str   string
	times []int64
	words []uint64
	strs  []string
}

// packChunk copies the listings of dirs from old into into, under copies
// of their paths.
func packChunk(dirs []string, old, into map[string]*Listing, moved func(dir string, was, now *Listing)) {
	var nStr, nTimes, nWords, nStrs int
	for _, d := range dirs {
		l := old[d]
		nStr += len(d) + len(l.names)
		nTimes, nWords = nTimes+len(l.times), nWords+len(l.words)
		for _, ss := range [][]string{l.subdirs, l.alts, l.images} {
			nStrs += len(ss)
			for _, s := range ss {
				nStr += len(s)
			}
		}
	}
	var sb strings.Builder
	sb.Grow(nStr)
	s := slab{times: make([]int64, 0, nTimes), words: make([]uint64, 0, nWords), strs: make([]string, 0, nStrs)}
	ls := make([]Listing, len(dirs))
	for i, d := range dirs {
		l := old[d]
		sb.WriteString(d)
		sb.WriteString(l.names)
		for _, ss := range [][]string{l.subdirs, l.alts, l.images} {
			for _, x := range ss {
				sb.WriteString(x)
			}
		}
		ls[i] = *l
	}
	s.str = sb.String()
	for i, d := range dirs {
		l, c := old[d], &ls[i]
		key := s.take(len(d))
		c.names = s.take(len(l.names))
		c.times = tail(&s.times, l.times)
		c.words = tail(&s.words, l.words)
		c.subdirs, c.alts, c.images = s.strings(l.subdirs), s.strings(l.alts), s.strings(l.images)
		c.out = slices.Clone(l.out)
		c.news = cloneArticles(l.news)
		into[key] = c
		if moved != nil {
			moved(key, l, c)
		}
	}
}

// take is the next n bytes of the chunk's string.
func (s *slab) take(n int) string {
	t := s.str[:n]
	s.str = s.str[n:]
	return t
}

// strings copies ss into the chunk's strings, each a copy from its string
// (ss's strings were written there in order); nil stays nil.
func (s *slab) strings(ss []string) []string {
	if ss == nil {
		return nil
	}
	if len(ss) == 0 {
		return []string{}
	}
	a := len(s.strs)
	for _, x := range ss {
		s.strs = append(s.strs, s.take(len(x)))
	}
	return s.strs[a:len(s.strs):len(s.strs)]
}

// tail appends x to slab, whose capacity was made for it, and returns
// the part appended, capped. An empty x is nil or an empty slice of no
// array: one of x's would keep x's span.
func tail[T any](slab *[]T, x []T) []T {
	if x == nil {
		return nil
	}
	if len(x) == 0 {
		return []T{}
	}
	a := len(*slab)
	*slab = append(*slab, x...)
	return (*slab)[a:len(*slab):len(*slab)]
}

// cloneArticles copies a listing's articles (few listings have any).
func cloneArticles(as []article) []article {
	if as == nil {
		return nil
	}
	out := make([]article, len(as))
	for i, a := range as {
		out[i] = article{i: a.i, packed: strings.Clone(a.packed)}
	}
	return out
}
