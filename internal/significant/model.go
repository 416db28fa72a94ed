package significant

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// Model is what is template on one site, learnt from a sample of its pages
// (Learner): the regions where its pages' content is (content roots), the
// regions inside them that repeat from page to page all the same (a
// post's footer, a "Note" label), the class and id tokens that name
// regions on this site (those on enough pages: not a post's id), and
// every region it saw. It is immutable, safe for concurrent use, and
// small (some 8 bytes a region seen; MarshalBinary). A nil *Model is the
// model of a site not learnt yet (see Print).
type Model struct {
	tokens, roots, templates, seen set
	// anchors: content roots that a page's node with the same signature
	// of its own, the only one on the page, stands for when no node of
	// the page is in a root region (a wrapper above it added or dropped
	// by a theme option); each as anchor(signature, root).
	anchors set
	pages   int
}

// rootSeed is the key above the top of every page.
const rootSeed = 0x9b05688c2b3e6c1f

// keys are the page's nodes' region keys under the token set: each node's
// key is its parent's with its tag, role and the tokens the set holds.
// Class order does not count: tokens are summed.
func keys(p *Page, tokens *set, out []uint64) []uint64 {
	n := len(p.nodes)
	out = slices.Grow(out[:0], n)[:n]
	for i := range p.nodes {
		k := uint64(rootSeed)
		if par := p.nodes[i].parent; par >= 0 {
			k = out[par]
		}
		out[i] = step(k, p, int32(i), tokens)
	}
	return out
}

// step is the key of page p's node n under its parent's key k: k with
// the node's tag, role and the tokens the set holds.
func step(k uint64, p *Page, n int32, tokens *set) uint64 {
	nd := &p.nodes[n]
	var t uint64
	if nd.ntok > 0 {
		for _, tok := range p.toks[nd.tok0 : nd.tok0+int32(nd.ntok)] {
			if tokens.has(tok) {
				t += mix(0, tok)
			}
		}
	}
	return mix(mix(mix(k, uint64(nd.tag)), nd.role), t)
}

var scratch = sync.Pool{New: func() any { s := make([]uint64, 0, 256); return &s }}

// Verdicts of a node under a model.
const (
	outside = iota // in no content root: template
	content        // under a content root
	inert          // under a content root, in a region that repeats
	repeats        // in no content root, in a region that repeats
)

// What judge notes of a node besides its key: a root is below it
// (1), it is the page's root, or the page's root and a wrapper (a root
// region around other pages' roots: in both the roots and templates).
const (
	rootHere    = 2
	wrapperHere = 3
)

// Print is the page's fingerprint under the model: its title, its JSON-LD,
// and the text, links, images and microdata of its content.
//
// Which blocks are content: with Options.Main matched, those under it.
// Else, under a model, those under one of its content roots and in no
// region inside it that repeats; a region the model never saw is judged
// by its nearest ancestor it knows (a new paragraph in an article is
// content, a new entry in a menu is not). A page with no block under a
// content root (a layout the model has not seen) counts what the
// landmark rule counts and the model does not know to repeat. Under a
// nil model, a page is judged by the landmark rule: everything but navigation,
// headers, footers and sidebars (nav, aside, header and footer outside
// an article, roles navigation, banner, contentinfo, complementary,
// search), and, when the page has a <main> (or role=main), only what is
// in it.
func (m *Model) Print(p *Page) Print {
	var pr printer
	switch {
	case p.main:
		for i := range p.blocks {
			b := &p.blocks[i]
			if b.node >= 0 && p.nodes[b.node].flags&fMain != 0 {
				pr.add(b)
			}
		}
	case m == nil:
		landmarkRule(p, &pr)
	default:
		sp := scratch.Get().(*[]uint64)
		defer scratch.Put(sp)
		st := m.judge(p, sp)
		// Content blocks, as they come; when there is none under a root
		// (content or inert), the page is judged by the landmark rule.
		any := false
		for i := range p.blocks {
			b := &p.blocks[i]
			if b.node < 0 {
				continue
			}
			switch st[b.node] {
			case content:
				pr.add(b)
				any = true
			case inert:
				any = true
			}
		}
		if !any {
			for i := range p.blocks {
				b := &p.blocks[i]
				var v uint64 = outside
				if b.node >= 0 {
					v = st[b.node]
				}
				if v != repeats && landmark(p, b) {
					pr.add(b)
				}
			}
		}
	}
	return pr.print(p)
}

func landmarkRule(p *Page, pr *printer) {
	for i := range p.blocks {
		if landmark(p, &p.blocks[i]) {
			pr.add(&p.blocks[i])
		}
	}
}

// landmark reports whether the landmark rule counts a block.
func landmark(p *Page, b *block) bool {
	var f uint8
	if b.node >= 0 {
		f = p.nodes[b.node].flags
	}
	return f&fLandmark == 0 && (!p.landmk || f&fMainLM != 0)
}

// judge is the verdict of each of the page's nodes, in *sp (its keys
// first, then reused for the verdicts). A page's content root is the
// deepest instance of a root region: Hugo's list pages have their content
// in the region around a post's, where a post has its breadcrumbs and
// its previous and next links; each kind of page has its own.
func (m *Model) judge(p *Page, sp *[]uint64) []uint64 {
	n := len(p.nodes)
	ks := keys(p, &m.tokens, slices.Grow((*sp)[:0], 2*n))
	// Beyond the keys: a root's flag, then whether one is below.
	ks = ks[:2*n]
	below := ks[n:]
	clear(below)
	ks = ks[:n]
	nodes := p.nodes[:n]
	if !m.markRoots(nodes, ks, below) && m.reanchor(p, ks) {
		clear(below)
		m.markRoots(nodes, ks, below)
	}
	for i := range nodes {
		v := uint64(outside)
		par := nodes[i].parent
		if par >= 0 {
			v = ks[par] // already a verdict: parents come first
		}
		switch v {
		case outside, repeats:
			if below[i] >= rootHere {
				v = content
			} else if v == outside && m.templates.has(ks[i]) {
				v = repeats
			}
		case content:
			if m.templates.has(ks[i]) || par >= 0 && below[par] == wrapperHere && !m.seen.has(ks[i]) {
				// A region that repeats; or one new directly in a
				// wrapper root, beside where other pages' roots are:
				// what a theme adds to every page.
				v = inert
			}
		}
		ks[i] = v
	}
	*sp = ks
	return ks
}

// markRoots notes in below, for each node, whether a root is below it
// (1), or it is the page's root (rootHere, or wrapperHere for a wrapper
// root), and reports whether the page has a root that is not a wrapper.
func (m *Model) markRoots(nodes []node, ks, below []uint64) bool {
	found := false
	for i := len(nodes) - 1; i >= 0; i-- {
		isRoot := m.roots.has(ks[i])
		if par := nodes[i].parent; par >= 0 && (isRoot || below[i] != 0) {
			below[par] = 1
		}
		if isRoot && below[i] == 0 {
			below[i] = rootHere
			if m.templates.has(ks[i]) {
				below[i] = wrapperHere
			} else {
				found = true
			}
		}
	}
	return found
}

// Known is how many of the page's blocks are in regions the model saw,
// of how many: a page of a layout the model does not know, or a site
// whose theme changed since it was learnt, has few. The caller may
// extend the model (NewLearner(model)) or learn a new one; a nil model
// knows none.
func (m *Model) Known(p *Page) (known, total int) {
	if m == nil {
		return 0, len(p.blocks)
	}
	sp := scratch.Get().(*[]uint64)
	defer scratch.Put(sp)
	ks := keys(p, &m.tokens, *sp)
	*sp = ks
	for _, b := range p.blocks {
		if b.node >= 0 && m.seen.has(ks[b.node]) {
			known++
		}
	}
	return known, len(p.blocks)
}

// Pages is how many pages the model was learnt from (all its samples').
func (m *Model) Pages() int {
	if m == nil {
		return 0
	}
	return m.pages
}

// Regions is how many regions the model saw, and of them how many are
// content roots and how many repeat inside one: for logs.
func (m *Model) Regions() (seen, roots, templates int) {
	if m == nil {
		return 0, 0, 0
	}
	return len(m.seen.keys), len(m.roots.keys), len(m.templates.keys)
}

// The stored form: "SIGM", a version byte, the page count, then the sets
// (tokens, roots, templates, seen, and from version 2 anchors), each as a
// count and its sorted keys' deltas, all uvarints. The same model is
// always the same bytes. A model of version 1 (no anchors) is read as it
// was: its prints do not move.
const (
	magic   = "SIGM"
	version = 2
)

// MarshalBinary is the model's stored form, for the caller's state
// directory.
func (m *Model) MarshalBinary() ([]byte, error) {
	if m == nil {
		return nil, errors.New("significant: no model to marshal")
	}
	n := len(m.tokens.keys) + len(m.roots.keys) + len(m.templates.keys) + len(m.seen.keys) + len(m.anchors.keys)
	b := make([]byte, 0, 16+9*n)
	b = append(b, magic...)
	b = append(b, version)
	b = binary.AppendUvarint(b, uint64(m.pages))
	for _, s := range []*set{&m.tokens, &m.roots, &m.templates, &m.seen, &m.anchors} {
		b = binary.AppendUvarint(b, uint64(len(s.keys)))
		var prev uint64
		for _, k := range s.keys {
			b = binary.AppendUvarint(b, k-prev)
			prev = k
		}
	}
	return b, nil
}

// UnmarshalBinary reads a model's stored form.
func (m *Model) UnmarshalBinary(b []byte) error {
	if len(b) < len(magic)+1 || string(b[:len(magic)]) != magic {
		return errors.New("significant: not a stored model")
	}
	v := b[len(magic)]
	if v < 1 || v > version {
		return fmt.Errorf("significant: stored model of version %d, not 1 to %d", v, version)
	}
	b = b[len(magic)+1:]
	next := func() (uint64, error) {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, errors.New("significant: stored model truncated")
		}
		b = b[n:]
		return v, nil
	}
	pages, err := next()
	if err != nil {
		return err
	}
	var sets [5]set
	n := len(sets)
	if v == 1 {
		n = 4 // no anchors
	}
	for i := range sets[:n] {
		if sets[i], err = readSet(next, len(b)); err != nil {
			return err
		}
	}
	if len(b) != 0 {
		return errors.New("significant: stored model has trailing bytes")
	}
	*m = Model{tokens: sets[0], roots: sets[1], templates: sets[2], seen: sets[3], anchors: sets[4], pages: int(min(pages, 1<<31))}
	return nil
}

// readSet reads a stored set: a count (at most max: each key takes a
// byte at least), then its sorted keys' deltas.
func readSet(next func() (uint64, error), max int) (set, error) {
	count, err := next()
	if err != nil {
		return set{}, err
	}
	if count > uint64(max) {
		return set{}, errors.New("significant: stored model truncated")
	}
	keys := make([]uint64, 0, count)
	var prev uint64
	for j := uint64(0); j < count; j++ {
		d, err := next()
		if err != nil {
			return set{}, err
		}
		if j > 0 && d == 0 {
			return set{}, errors.New("significant: stored model corrupt (keys out of order)")
		}
		prev += d
		keys = append(keys, prev)
	}
	return newSet(keys), nil
}

// set is a set of keys (hashes): sorted, for its stored form, and an open
// addressing table, for lookups of a few nanoseconds.
type set struct {
	keys  []uint64
	table []uint64
	mask  uint64
}

// newSet makes a set of keys, sorted and without duplicates.
func newSet(keys []uint64) set {
	slices.Sort(keys)
	keys = slices.Compact(keys)
	s := set{keys: keys}
	if len(keys) == 0 {
		return s
	}
	size := 8
	for size < 2*len(keys) {
		size *= 2
	}
	s.table, s.mask = make([]uint64, size), uint64(size-1)
	for _, k := range keys {
		k = slot(k)
		for i := k & s.mask; ; i = (i + 1) & s.mask {
			if s.table[i] == 0 {
				s.table[i] = k
				break
			}
		}
	}
	return s
}

// slot is a key as the table holds it: never 0, which is an empty slot.
func slot(k uint64) uint64 {
	k = mix(k, 0x5851F42D4C957F2D)
	if k == 0 {
		k = 1
	}
	return k
}

func (s *set) has(k uint64) bool {
	if s.table == nil {
		return false
	}
	k = slot(k)
	for i := k & s.mask; ; i = (i + 1) & s.mask {
		switch s.table[i] {
		case k:
			return true
		case 0:
			return false
		}
	}
}
