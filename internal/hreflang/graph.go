package hreflang

import (
	"slices"

	"github.com/sitemapd/sitemapd/internal/sitemap"
)

// node is a listed page that names alternates: its group, and what it
// names: how many times itself, a URL on a host not the site's (foreign)
// or on one pages.hreflang_hosts names (allowed), and the keys of the
// other URLs on the site's host, in its group's arena. A page of a
// three-language site keeps 2 keys and a map entry: some 60 bytes.
type node struct {
	grp                    *groupPages
	off, n                 uint32 // its others: grp.others[off:off+n]
	self, foreign, allowed uint8  // counts, saturating (no page names itself 255 times)
}

// groupPages are a group's pages in the graph, and their other targets,
// page after page, in one array.
type groupPages struct {
	name   string
	keys   []Key
	others []Key
}

// others are the keys of the URLs on the site's host a page names, but
// itself.
func (n node) others() []Key { return n.grp.others[n.off : n.off+n.n] }

// targets are all a page names, as decide takes them (in no order).
func (n node) targets(self Key) []Key {
	t := make([]Key, 0, int(n.self)+int(n.foreign)+int(n.allowed)+int(n.n))
	for range n.self {
		t = append(t, self)
	}
	for range n.foreign {
		t = append(t, foreign)
	}
	for range n.allowed {
		t = append(t, allowed)
	}
	return append(t, n.others()...)
}

// same reports whether two nodes name the same.
func (n node) same(o node) bool {
	return n.self == o.self && n.foreign == o.foreign && n.allowed == o.allowed && slices.Equal(n.others(), o.others())
}

func inc(c *uint8) {
	if *c < 255 {
		*c++
	}
}

// Graph is the site's pages that name alternates, as last published. It
// is not safe for concurrent use.
type Graph struct {
	hosts  Hosts
	pages  map[Key]node
	groups map[string]*groupPages
	tally  Tally // what the rule makes of every alternate, as of the last commit
}

// NewGraph returns an empty graph of a site whose hosts are hosts.
func NewGraph(hosts Hosts) *Graph {
	return &Graph{hosts: hosts, pages: map[Key]node{}, groups: map[string]*groupPages{}}
}

// Hosts are the hosts the graph tells apart.
func (g *Graph) Hosts() Hosts { return g.hosts }

// Tally counts what the rule makes of every alternate of the site's
// listed pages, as of the last commit.
func (g *Graph) Tally() Tally { return g.tally }

// Pages is the number of pages the graph holds.
func (g *Graph) Pages() int { return len(g.pages) }

// Page is what a group's page contributes to a stage: its key and the
// keys of what it names (PageOf).
type Page struct {
	Self    Key
	Targets []Key
}

// PageOf returns the Page of a listed page at loc that names alts.
func (h Hosts) PageOf(loc string, alts []sitemap.Alternate) Page {
	p := Page{Self: h.Key(loc), Targets: make([]Key, len(alts))}
	for i, a := range alts {
		p.Targets[i] = h.Key(a.Href)
	}
	return p
}

// Stage is a publish's picture of the graph: the graph, with the groups
// the publish read replaced by what it found (all of them, for a full
// build).
type Stage struct {
	g      *Graph
	full   bool // the stage replaces the whole graph
	pages  map[Key]node
	groups map[string]*groupPages // the groups staged, each with its pages (maybe none)
}

// Stage begins a publish's stage; full for one that reads every group
// (a group it does not stage is gone, or Keep keeps it).
func (g *Graph) Stage(full bool) *Stage {
	return &Stage{g: g, full: full, pages: map[Key]node{}, groups: map[string]*groupPages{}}
}

// Set stages a group's pages that name alternates, replacing what the
// graph or the stage held of it.
func (s *Stage) Set(group string, pages []Page) {
	if old := s.groups[group]; old != nil {
		for _, k := range old.keys {
			delete(s.pages, k)
		}
	}
	n := 0
	for _, p := range pages {
		n += len(p.Targets)
	}
	gp := &groupPages{name: group, keys: make([]Key, 0, len(pages)), others: make([]Key, 0, n)}
	for _, p := range pages {
		if _, dup := s.pages[p.Self]; dup {
			continue
		}
		nd := node{grp: gp, off: uint32(len(gp.others))}
		for _, t := range p.Targets {
			switch t {
			case p.Self:
				inc(&nd.self)
			case foreign:
				inc(&nd.foreign)
			case allowed:
				inc(&nd.allowed)
			default:
				gp.others = append(gp.others, t)
			}
		}
		nd.n = uint32(len(gp.others)) - nd.off
		s.pages[p.Self] = nd
		gp.keys = append(gp.keys, p.Self)
	}
	gp.others = slices.Clip(gp.others)
	s.groups[group] = gp
}

// Keep stages a group as the graph holds it: a full build's group that
// could not be read keeps its published sitemap, and what it said.
func (s *Stage) Keep(group string) {
	gp := s.g.groups[group]
	if gp == nil {
		s.groups[group] = &groupPages{name: group}
		return
	}
	for _, k := range gp.keys {
		s.pages[k] = s.g.pages[k]
	}
	s.groups[group] = gp
}

// Staged reports whether a group is staged.
func (s *Stage) Staged(group string) bool {
	_, ok := s.groups[group]
	return ok
}

// stagedOver reports whether the graph's node n is of a group the stage
// replaces.
func (s *Stage) stagedOver(n node) bool { return s.Staged(n.grp.name) }

// find returns the targets of the page at k, as the stage sees the site.
func (s *Stage) find(k Key) ([]Key, bool) {
	if n, ok := s.pages[k]; ok {
		return n.others(), true
	}
	if s.full {
		return nil, false
	}
	if n, ok := s.g.pages[k]; ok && !s.stagedOver(n) {
		return n.others(), true
	}
	return nil, false
}

// each calls f for every page as the stage sees the site.
func (s *Stage) each(f func(self Key, n node)) {
	for k, n := range s.pages {
		f(k, n)
	}
	if s.full {
		return
	}
	for k, n := range s.g.pages {
		if !s.stagedOver(n) {
			f(k, n)
		}
	}
}

// Filter returns, in place, those of the alternates of the listed page at
// loc that its entry lists, as the stage sees the site.
func (s *Stage) Filter(loc string, alts []sitemap.Alternate) []sitemap.Alternate {
	if len(alts) == 0 {
		return alts
	}
	var kb [8]Key
	var rb [8]Reason
	targets, out := kb[:0], rb[:0]
	if len(alts) > len(kb) {
		targets, out = make([]Key, 0, len(alts)), make([]Reason, 0, len(alts))
	}
	for _, a := range alts {
		targets = append(targets, s.g.hosts.Key(a.Href))
	}
	out = out[:len(alts)]
	decide(s.g.hosts.Key(loc), targets, s.find, out)
	kept := alts[:0]
	for i, a := range alts {
		if out[i] == Kept {
			kept = append(kept, a)
		}
	}
	if len(kept) == 0 {
		return nil
	}
	return kept
}

// Changed returns the pages whose node the stage adds, removes or changes.
func (s *Stage) Changed() map[Key]bool {
	ch := map[Key]bool{}
	for group, gp := range s.groups {
		if old := s.g.groups[group]; old != nil {
			for _, k := range old.keys {
				if n, ok := s.pages[k]; !ok || !n.same(s.g.pages[k]) {
					ch[k] = true
				}
			}
		}
		for _, k := range gp.keys {
			if n, ok := s.g.pages[k]; !ok || n.grp.name != group {
				ch[k] = true
			}
		}
	}
	return ch
}

// Referrers returns, sorted, the groups holding a page (as the stage sees
// the site) that names one of changed: their entries may change with
// them.
func (s *Stage) Referrers(changed map[Key]bool) []string {
	if len(changed) == 0 {
		return nil
	}
	set := map[string]bool{}
	s.each(func(self Key, n node) {
		if set[n.grp.name] {
			return
		}
		if changed[self] && n.self > 0 {
			set[n.grp.name] = true // it names itself
			return
		}
		for _, t := range n.others() {
			if changed[t] {
				set[n.grp.name] = true
				return
			}
		}
	})
	out := make([]string, 0, len(set))
	for g := range set {
		out = append(out, g)
	}
	slices.Sort(out)
	return out
}

// Tally counts what the rule makes of every alternate, as the stage sees
// the site.
func (s *Stage) Tally() Tally {
	var t Tally
	var out []Reason
	s.each(func(self Key, n node) {
		targets := n.targets(self)
		out = slices.Grow(out[:0], len(targets))[:len(targets)]
		decide(self, targets, s.find, out)
		for _, r := range out {
			t[r]++
		}
	})
	return t
}

// Commit makes the stage the graph's picture, as its publish commits.
func (s *Stage) Commit() {
	g := s.g
	if len(s.groups) == 0 && !s.full {
		return
	}
	g.tally = s.Tally()
	if s.full {
		g.pages, g.groups = s.pages, s.groups
		for group, gp := range g.groups {
			if len(gp.keys) == 0 {
				delete(g.groups, group)
			}
		}
		return
	}
	for group, gp := range s.groups {
		if old := g.groups[group]; old != nil {
			for _, k := range old.keys {
				if g.pages[k].grp == old {
					delete(g.pages, k)
				}
			}
		}
		for _, k := range gp.keys {
			g.pages[k] = s.pages[k]
		}
		if len(gp.keys) == 0 {
			delete(g.groups, group)
		} else {
			g.groups[group] = gp
		}
	}
}

// Hosts are the hosts the stage's graph tells apart.
func (s *Stage) Hosts() Hosts { return s.g.hosts }
