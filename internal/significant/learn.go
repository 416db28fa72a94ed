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

// Model learns the model from the pages added, in steps: each page's
// regions named (sample), the blocks that repeat across pages (repeats),
// per region what it weighs and whether pages vote it their content root
// (tally), then the verdicts (verdicts).
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
	stats := newSample(pages, &m.tokens).tally()
	roots, templates, seen := verdicts(stats)
	if b := l.base; b != nil {
		// Sticky: only regions base never saw get a verdict of this sample.
		roots = slices.DeleteFunc(roots, b.seen.has)
		templates = slices.DeleteFunc(templates, b.seen.has)
		roots = append(roots, b.roots.keys...)
		templates = append(templates, b.templates.keys...)
		seen = append(seen, b.seen.keys...)
	}
	m.roots, m.templates, m.seen = newSet(roots), newSet(templates), newSet(seen)
	m.anchors = anchors(stats, roots, l.base)
	return m
}

// sample is the pages learned from, each node named by its region's key.
type sample struct {
	pages  []*Page
	tokens *set
	keys   [][]uint64
	// rep is on how many pages each block is, in its region.
	rep map[[2]uint64]int32
}

func newSample(pages []*Page, tokens *set) *sample {
	s := &sample{pages: pages, tokens: tokens, keys: make([][]uint64, len(pages))}
	for i, p := range pages {
		s.keys[i] = keys(p, tokens, nil)
	}
	s.rep = s.repeats()
	return s
}

// key is the region key of page pi's node n (the page's top for -1).
func (s *sample) key(pi int, n int32) uint64 {
	if n < 0 {
		return rootSeed
	}
	return s.keys[pi][n]
}

// blockID names a block of page pi: its region and its hash.
func (s *sample) blockID(pi int, b block) [2]uint64 {
	return [2]uint64{s.key(pi, b.node), b.hash}
}

// repeats counts on how many pages each block is, in its region.
func (s *sample) repeats() map[[2]uint64]int32 {
	type count struct{ pages, last int32 }
	rep := map[[2]uint64]count{}
	for pi, p := range s.pages {
		for _, b := range p.blocks {
			id := s.blockID(pi, b)
			c := rep[id]
			if c.last != int32(pi+1) {
				c.pages++
				c.last = int32(pi + 1)
			}
			rep[id] = c
		}
	}
	out := make(map[[2]uint64]int32, len(rep))
	for id, c := range rep {
		out[id] = c.pages
	}
	return out
}

// region is what the sample says of one region.
type region struct {
	pages, last    int32
	w, r           int64 // weight of the blocks under it, of those repeated
	votes, against int64 // unique weight of pages it is the root of, it is on but not around the root
	voted          int32
	// out, in: how many pages have it outside their root (neither under
	// it nor around it), and under it; around: how many have it around
	// their root (above it).
	out, in, around int32
	// local: the signatures of a node of it over 1 and 2 levels (the
	// same for all: its key holds them); shared: on a page it was the
	// root of, another node had the same.
	local  [anchorDepth]uint64
	shared [anchorDepth]bool
}

// tally goes through the pages once, counting each region's pages and
// weights and the votes of the pages for and against it as their root.
func (s *sample) tally() map[uint64]*region {
	stats := map[uint64]*region{}
	var w weights
	for pi, p := range s.pages {
		total := w.of(s, pi)
		for i, k := range s.keys[pi] {
			r := stats[k]
			if r == nil {
				r = &region{}
				stats[k] = r
			}
			if r.last != int32(pi+1) {
				r.last = int32(pi + 1)
				r.pages++
			}
			r.w += w.total[i]
			r.r += w.repeated[i]
		}
		if total > 0 {
			s.vote(stats, pi, w.root(p, total), total)
		}
	}
	return stats
}

// vote counts page pi's unique weight for its content root, and against
// each region on it that is neither the root nor around it; and which
// regions the page has under its root, and which outside it.
func (s *sample) vote(stats map[uint64]*region, pi int, root int32, total int64) {
	p := s.pages[pi]
	onPath := map[uint64]bool{}
	for a := root; a >= 0; a = p.nodes[a].parent {
		onPath[s.keys[pi][a]] = true
	}
	if root >= 0 {
		k := s.keys[pi][root]
		stats[k].votes += total
		s.local(pi, root, stats[k])
		delete(onPath, k)
		for a := range onPath {
			stats[a].around++
		}
		onPath[k] = true
	}
	for _, k := range s.keys[pi] {
		r := stats[k]
		if r.voted != int32(pi+1) && !onPath[k] {
			r.voted = int32(pi + 1)
			r.against += total
		}
	}
	// Where each region is on this page: under the root (one node of it
	// is enough), or outside it (neither under it nor on the way to it).
	where := map[uint64]bool{}
	under := make([]bool, len(p.nodes))
	for i, nd := range p.nodes {
		par := nd.parent
		under[i] = root < 0 || par >= 0 && (par == root || under[par])
		k := s.keys[pi][i]
		if !onPath[k] || under[i] {
			where[k] = where[k] || under[i]
		}
	}
	for k, in := range where {
		if in {
			stats[k].in++
		} else {
			stats[k].out++
		}
	}
}

// anchors are the roots (of this sample: base's are kept) that a page
// may be re-anchored to (Model.reanchor): those whose node was, on every
// page it was the root of, the only one of its own signature there.
func anchors(stats map[uint64]*region, roots []uint64, base *Model) set {
	var out []uint64
	if base != nil {
		out = slices.Clone(base.anchors.keys)
	}
	for _, k := range roots {
		r := stats[k]
		if r == nil || r.votes == 0 || base != nil && base.seen.has(k) {
			continue
		}
		for d, l := range r.local {
			if l != 0 && !r.shared[d] {
				out = append(out, anchor(l, k))
			}
		}
	}
	return newSet(out)
}

// local notes the signatures of page pi's root n in its region r, and
// whether another node of the page has the same.
func (s *sample) local(pi int, n int32, r *region) {
	all := localSigs(s.pages[pi], s.tokens)
	for d, sigs := range all {
		r.local[d] = sigs[n]
		for i, l := range sigs {
			if int32(i) != n && l == sigs[n] {
				r.shared[d] = true
			}
		}
	}
}

// verdicts are the regions that are content roots, those that repeat
// (not roots: inside a root, what does not count of it; outside, what a
// page of a layout without a root does not count), and every region seen.
func verdicts(stats map[uint64]*region) (roots, templates, seen []uint64) {
	seen = make([]uint64, 0, len(stats))
	for k, r := range stats {
		seen = append(seen, k)
		switch {
		case r.votes > 0 && r.votes >= 2*r.against:
			roots = append(roots, k)
			if r.around >= templatePages {
				// A root around other pages' roots (an index's, a
				// search page's, a list's: pages with little of their
				// own): a wrapper. It is in both sets, which no region
				// is otherwise: Model.judge takes a region new
				// directly in it for template (a menu item the theme
				// adds beside the other pages' content).
				templates = append(templates, k)
			}
		case r.pages >= templatePages && r.w > 0 && 2*r.r >= r.w:
			templates = append(templates, k)
		case r.in > 0 && r.out >= templatePages && r.out >= 2*r.in:
			// Template by its place: most pages have it outside their
			// content root, and a few (an index, a search page, an
			// empty list: pages with little of their own, whose root is
			// a wrapper around other pages' roots) under theirs, where
			// it is the same header, menu or pager, not their content.
			templates = append(templates, k)
		}
	}
	return roots, templates, seen
}

// weights are one page's weights of the blocks under each node (those on
// this page alone, all, those repeated), and its children's links; kept
// from page to page to reuse their memory.
type weights struct {
	unique, total, repeated []int64
	first, next             []int32
}

// of fills the weights of page pi and returns the weight of the blocks
// on it alone.
func (w *weights) of(s *sample, pi int) (total int64) {
	p := s.pages[pi]
	n := len(p.nodes)
	w.unique, w.total, w.repeated = resize(w.unique, n), resize(w.total, n), resize(w.repeated, n)
	for _, b := range p.blocks {
		bw := int64(b.weight)
		repeated := s.rep[s.blockID(pi, b)] >= 2
		if !repeated {
			total += bw
		}
		if b.node < 0 {
			continue
		}
		w.total[b.node] += bw
		if repeated {
			w.repeated[b.node] += bw
		} else {
			w.unique[b.node] += bw
		}
	}
	for i := n - 1; i >= 0; i-- {
		if par := p.nodes[i].parent; par >= 0 {
			w.unique[par] += w.unique[i]
			w.total[par] += w.total[i]
			w.repeated[par] += w.repeated[i]
		}
	}
	return total
}

// root is the page's content root: down from the top, into the child
// holding the most unique content while it holds rootShare of the page's.
func (w *weights) root(p *Page, total int64) int32 {
	w.first, w.next = children(p, w.first, w.next)
	cur := int32(-1)
	for {
		best, bw := int32(-1), int64(-1)
		for c := w.first[cur+1]; c >= 0; c = w.next[c] {
			if w.unique[c] > bw {
				best, bw = c, w.unique[c]
			}
		}
		if best < 0 || bw*100 < total*rootShare {
			return cur
		}
		cur = best
	}
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
