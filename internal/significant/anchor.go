package significant

// Anchors: a content root found again by its own signature when a theme
// option adds or drops a wrapper above it, so that the region keys, which
// are chains from the top of the page, no longer name it.

// localSeed starts a node's own signature (step from it): its tag, role
// and tokens, whatever is above it.
const localSeed = 0x2545f4914f6cdd1d

// anchor is the key under which the model keeps that a content root
// region (key root) is recognised by its own signature (local).
func anchor(local, root uint64) uint64 { return mix(mix(localSeed, local), root) }

// reanchor finds, on a page with no node in a root region but wrappers,
// the node that stands for one: in a region the model never saw, the
// only node of the page with the signature of its own (tag, role,
// tokens), or else of its own and its parent's, of a root the model
// anchors. It gives it that root's key, and its subtree the keys they
// would have under it, so that what the model knows inside the root
// applies: a theme option that adds or drops a wrapper above the content
// moves no page. It reports whether it found one.
func (m *Model) reanchor(p *Page, ks []uint64) bool {
	if len(m.anchors.keys) == 0 {
		return false
	}
	sigs := localSigs(p, &m.tokens)
	// The longer signature first: it says more of where the node is.
	for d := anchorDepth - 1; d >= 0; d-- {
		at, root, ok := m.anchored(sigs[d], ks)
		if !ok {
			return false // more than one node stands for a root
		}
		if at >= 0 {
			rekey(p, ks, at, root, &m.tokens)
			return true
		}
	}
	return false
}

// anchored finds, among a page's nodes of signatures sigs (and keys ks),
// the one node in a region the model never saw whose signature, the only
// one of it on the page, the model anchors to a root: its index and that
// root, or -1. ok is false when more than one does. It costs a pass over
// the nodes and one over those anchored: a hostile page of many nodes of
// one anchored signature is not counted again for each.
func (m *Model) anchored(sigs, ks []uint64) (at int32, root uint64, ok bool) {
	type candidate struct {
		at   int32
		root uint64
	}
	var cands []candidate
	for i, l := range sigs {
		if l == 0 || m.seen.has(ks[i]) {
			continue // says nothing of itself; or where the model saw it, it is what it was
		}
		for _, r := range m.roots.keys {
			if m.anchors.has(anchor(l, r)) {
				cands = append(cands, candidate{int32(i), r})
			}
		}
	}
	if len(cands) == 0 {
		return -1, 0, true
	}
	counts := make(map[uint64]int, len(cands))
	for _, c := range cands {
		counts[sigs[c.at]] = 0
	}
	for _, l := range sigs {
		if n, ok := counts[l]; ok {
			counts[l] = n + 1
		}
	}
	at = -1
	for _, c := range cands {
		if counts[sigs[c.at]] != 1 {
			continue
		}
		if at >= 0 {
			return -1, 0, false
		}
		at, root = c.at, c.root
	}
	return at, root, true
}

// anchorDepth: a root is anchored by its own signature, and by its own
// and its parent's (a root that is a plain <section> in a <div
// class=body>).
const anchorDepth = 2

// localSigs are the signatures of the page's nodes over one level (the
// node's own: sigs[0]) and two (its parent's and its own: sigs[1]); 0
// for a node with no parent (at two levels), or whose levels say nothing
// of it but their tags (a bare <p> is anywhere). One pass: nodes come
// after their parents.
func localSigs(p *Page, tokens *set) (sigs [anchorDepth][]uint64) {
	n := len(p.nodes)
	own := make([]uint64, n) // the node's own signature, named or not
	named := make([]bool, n)
	sigs[0], sigs[1] = make([]uint64, n), make([]uint64, n)
	for i := range p.nodes {
		own[i] = step(localSeed, p, int32(i), tokens)
		named[i] = isNamed(p, int32(i), tokens)
		if named[i] {
			sigs[0][i] = own[i]
		}
		if par := p.nodes[i].parent; par >= 0 && (named[i] || named[par]) {
			sigs[1][i] = step(own[par], p, int32(i), tokens)
		}
	}
	return sigs
}

// isNamed reports whether node n says more than its tag: a token the set
// holds, a role, or main or article.
func isNamed(p *Page, n int32, tokens *set) bool {
	nd := &p.nodes[n]
	switch {
	case nd.tag == tMain || nd.tag == tArticle:
		return true
	case nd.role != 0 && nd.tag != tOther && nd.tag < tFirstPlain && nd.tag != tH:
		return true // the role slot holds a role, not the tag's name
	}
	for _, tok := range p.toks[nd.tok0 : nd.tok0+int32(nd.ntok)] {
		if tokens.has(tok) {
			return true
		}
	}
	return false
}

// rekey gives node at the key root, and its subtree the keys under it.
func rekey(p *Page, ks []uint64, at int32, root uint64, tokens *set) {
	ks[at] = root
	// Nodes come after their parents: one pass re-keys the subtree.
	in := map[int32]bool{at: true}
	for i := at + 1; i < int32(len(p.nodes)); i++ {
		if par := p.nodes[i].parent; in[par] {
			in[i] = true
			ks[i] = step(ks[par], p, i, tokens)
		}
	}
}
