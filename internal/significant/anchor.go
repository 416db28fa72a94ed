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
	// The longer signature first: it says more of where the node is.
	for depth := anchorDepth; depth >= 1; depth-- {
		sigs := localSigs(p, &m.tokens, depth)
		counts := make(map[uint64]int, len(sigs))
		for _, l := range sigs {
			counts[l]++
		}
		at, root, many := int32(-1), uint64(0), false
		for i, l := range sigs {
			if l == 0 || counts[l] != 1 || m.seen.has(ks[i]) {
				continue // not unique; or where the model saw it, it is what it was
			}
			for _, r := range m.roots.keys {
				if m.anchors.has(anchor(l, r)) {
					many = many || at >= 0
					at, root = int32(i), r
				}
			}
		}
		if many {
			return false
		}
		if at >= 0 {
			rekey(p, ks, at, root, &m.tokens)
			return true
		}
	}
	return false
}

// anchorDepth: a root is anchored by its own signature, and by its own
// and its parent's (a root that is a plain <section> in a <div
// class=body>).
const anchorDepth = 2

// localSigs are the signatures of the page's nodes over depth levels
// (the node's own, and its ancestors' up to depth); 0 for a node with
// fewer ancestors, or whose levels say nothing of it but their tags (a
// bare <p> is anywhere).
func localSigs(p *Page, tokens *set, depth int) []uint64 {
	sigs := make([]uint64, len(p.nodes))
	for i := range p.nodes {
		chain := []int32{int32(i)}
		for len(chain) < depth && p.nodes[chain[len(chain)-1]].parent >= 0 {
			chain = append(chain, p.nodes[chain[len(chain)-1]].parent)
		}
		if len(chain) < depth {
			continue
		}
		l, named := uint64(localSeed), false
		for j := len(chain) - 1; j >= 0; j-- {
			l = step(l, p, chain[j], tokens)
			named = named || isNamed(p, chain[j], tokens)
		}
		if named {
			sigs[i] = l
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
