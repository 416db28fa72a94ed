package significant

import (
	"slices"
	"sync"
)

// Learner learns a site's Model from a sample of its pages: Add each (a
// few hundred, spread over the site, each once), then Model. Add is safe
// for concurrent use; the model does not depend on the order of Adds.
type Learner struct {
	mu    sync.Mutex
	base  *Model
	pages []*Page
}

// NewLearner is a learner of a new model (base nil) or of base extended:
// the model it makes keeps every verdict of base, judges regions base
// never saw by the new sample, and names regions with base's tokens, so
// that Prints under base and under the extended model are the same for
// every page whose regions base knew.
func NewLearner(base *Model) *Learner { return &Learner{base: base} }

// Add adds a page to the sample. The learner keeps it until Model.
func (l *Learner) Add(p *Page) {
	l.mu.Lock()
	l.pages = append(l.pages, p)
	l.mu.Unlock()
}

// Len is how many pages were added.
func (l *Learner) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.pages)
}

// The learning thresholds.
const (
	// A page's content root is the deepest element that holds at least
	// rootShare percent of the text, links and images it alone has in
	// the sample (by length).
	rootShare = 75
	// A region is a content root when the pages it is the root of hold
	// twice the unique content of those it is on but neither the root nor
	// around it.
	// A region inside a content root repeats when half its content (by
	// length) is on more than one page, and it is on templatePages pages.
	templatePages = 3
)

// Model learns the model from the pages added.
func (l *Learner) Model() *Model {
	l.mu.Lock()
	pages := slices.Clone(l.pages)
	l.mu.Unlock()

	m := &Model{pages: len(pages)}
	if l.base != nil {
		m.tokens = l.base.tokens
		m.pages += l.base.pages
	} else {
		m.tokens = stableTokens(pages)
	}

	// Each page's nodes' keys.
	ks := make([][]uint64, len(pages))
	for i, p := range pages {
		ks[i] = keys(p, &m.tokens, nil)
	}
	keyOf := func(pi int, n int32) uint64 {
		if n < 0 {
			return rootSeed
		}
		return ks[pi][n]
	}

	// On how many pages each block is, in its region.
	type count struct{ pages, last int32 }
	rep := map[[2]uint64]count{}
	for pi, p := range pages {
		for _, b := range p.blocks {
			id := [2]uint64{keyOf(pi, b.node), b.hash}
			c := rep[id]
			if c.last != int32(pi+1) {
				c.pages++
				c.last = int32(pi + 1)
			}
			rep[id] = c
		}
	}

	type stat struct {
		pages, last    int32
		w, r           int64 // weight of the blocks under it, of those repeated
		votes, against int64 // unique weight of pages it is the root of, it is on but not around the root
		voted          int32
	}
	stats := map[uint64]*stat{}
	var uw, tw, rw []int64
	var first, next []int32
	for pi, p := range pages {
		n := len(p.nodes)
		uw, tw, rw = resize(uw, n), resize(tw, n), resize(rw, n)
		var total int64
		for _, b := range p.blocks {
			w := int64(b.weight)
			repeated := rep[[2]uint64{keyOf(pi, b.node), b.hash}].pages >= 2
			if !repeated {
				total += w
			}
			if b.node < 0 {
				continue
			}
			tw[b.node] += w
			if repeated {
				rw[b.node] += w
			} else {
				uw[b.node] += w
			}
		}
		for i := n - 1; i >= 0; i-- {
			if par := p.nodes[i].parent; par >= 0 {
				uw[par] += uw[i]
				tw[par] += tw[i]
				rw[par] += rw[i]
			}
		}
		for i, k := range ks[pi] {
			s := stats[k]
			if s == nil {
				s = &stat{}
				stats[k] = s
			}
			if s.last != int32(pi+1) {
				s.last = int32(pi + 1)
				s.pages++
			}
			s.w += tw[i]
			s.r += rw[i]
		}
		if total == 0 {
			continue
		}
		// The content root: down from the top, into the child holding the
		// most unique content while it holds rootShare of the page's.
		first, next = children(p, first, next)
		cur := int32(-1)
		for {
			best, bw := int32(-1), int64(-1)
			c := first[cur+1]
			for ; c >= 0; c = next[c] {
				if uw[c] > bw {
					best, bw = c, uw[c]
				}
			}
			if best < 0 || bw*100 < total*rootShare {
				break
			}
			cur = best
		}
		// A region is for being this page's root, and against it when it
		// is on the page but neither the root nor around it.
		onPath := map[uint64]bool{}
		for a := cur; a >= 0; a = p.nodes[a].parent {
			onPath[ks[pi][a]] = true
		}
		if cur >= 0 {
			stats[ks[pi][cur]].votes += total
		}
		for _, k := range ks[pi] {
			s := stats[k]
			if s.voted != int32(pi+1) && !onPath[k] {
				s.voted = int32(pi + 1)
				s.against += total
			}
		}
	}

	var roots []uint64
	isRoot := map[uint64]bool{}
	for k, s := range stats {
		if s.votes > 0 && s.votes >= 2*s.against {
			roots = append(roots, k)
			isRoot[k] = true
		}
	}
	// Regions that repeat (not roots): inside a root, what does not count
	// of it; outside, what a page of a layout without a root does not
	// count.
	var templates []uint64
	for k, s := range stats {
		if !isRoot[k] && s.pages >= templatePages && s.w > 0 && 2*s.r >= s.w {
			templates = append(templates, k)
		}
	}
	seen := make([]uint64, 0, len(stats))
	for k := range stats {
		seen = append(seen, k)
	}
	if b := l.base; b != nil {
		// Sticky: only regions base never saw get a verdict of this sample.
		roots = slices.DeleteFunc(roots, b.seen.has)
		templates = slices.DeleteFunc(templates, b.seen.has)
		roots = append(roots, b.roots.keys...)
		templates = append(templates, b.templates.keys...)
		seen = append(seen, b.seen.keys...)
	}
	m.roots, m.templates, m.seen = newSet(roots), newSet(templates), newSet(seen)
	return m
}

func resize(s []int64, n int) []int64 {
	if cap(s) < n {
		return make([]int64, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// children links each node's children: first[n+1] is node n's first
// (first[0] the top's), next[c] the sibling after c; -1 for none.
func children(p *Page, first, next []int32) ([]int32, []int32) {
	n := len(p.nodes)
	first, next = first[:0], next[:0]
	for range n + 1 {
		first = append(first, -1)
	}
	for range n {
		next = append(next, -1)
	}
	for i := n - 1; i >= 0; i-- {
		par := p.nodes[i].parent
		next[i] = first[par+1]
		first[par+1] = int32(i)
	}
	return first, next
}

// stableTokens are the class and id tokens that name regions on this
// site: those on at least two pages and a quarter of the sample. A post's
// id ("post-123"), a section's slug, a tag's class are on too few.
func stableTokens(pages []*Page) set {
	counts := map[uint64]int{}
	var toks []uint64
	for _, p := range pages {
		toks = append(toks[:0], p.toks...)
		slices.Sort(toks)
		for _, t := range slices.Compact(toks) {
			counts[t]++
		}
	}
	var stable []uint64
	for t, c := range counts {
		if c >= 2 && 4*c >= len(pages) {
			stable = append(stable, t)
		}
	}
	return newSet(stable)
}
