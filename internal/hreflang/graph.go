package hreflang

import (
	"slices"

	"github.com/sitemapd/sitemapd/internal/sitemap"
)

// node is a listed page that names alternates: its group, and the keys of
// the URLs it names, in its head's order (itself among them, if it says
// so).
type node struct {
	group   string
	targets []Key
}

// Graph is the site's pages that name alternates, as last published. It
// is not safe for concurrent use.
type Graph struct {
	hosts  Hosts
	pages  map[Key]node
	groups map[string][]Key // each group's pages in pages
	tally  Tally            // what the rule makes of every alternate, as of the last commit
}

// NewGraph returns an empty graph of a site whose hosts are hosts.
func NewGraph(hosts Hosts) *Graph {
	return &Graph{hosts: hosts, pages: map[Key]node{}, groups: map[string][]Key{}}
}

// Hosts are the hosts the graph tells apart.
func (g *Graph) Hosts() Hosts { return g.hosts }

// Tally counts what the rule makes of every alternate of the site's
// listed pages, as of the last commit.
func (g *Graph) Tally() Tally { return g.tally }

// Pages is the number of pages the graph holds.
func (g *Graph) Pages() int { return len(g.pages) }

// Page is what a group's page contributes to a stage: its key and its
// targets' keys (NodeOf).
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
	groups map[string][]Key // the groups staged, each with its pages (maybe none)
}

// Stage begins a publish's stage; full for one that reads every group
// (a group it does not stage is gone, or Keep keeps it).
func (g *Graph) Stage(full bool) *Stage {
	return &Stage{g: g, full: full, pages: map[Key]node{}, groups: map[string][]Key{}}
}

// Set stages a group's pages that name alternates, replacing what the
// graph or the stage held of it.
func (s *Stage) Set(group string, pages []Page) {
	for _, k := range s.groups[group] {
		delete(s.pages, k)
	}
	keys := make([]Key, 0, len(pages))
	for _, p := range pages {
		if _, dup := s.pages[p.Self]; dup {
			continue
		}
		s.pages[p.Self] = node{group: group, targets: slices.Clip(p.Targets)}
		keys = append(keys, p.Self)
	}
	s.groups[group] = keys
}

// Keep stages a group as the graph holds it: a full build's group that
// could not be read keeps its published sitemap, and what it said.
func (s *Stage) Keep(group string) {
	var pages []Page
	for _, k := range s.g.groups[group] {
		pages = append(pages, Page{Self: k, Targets: s.g.pages[k].targets})
	}
	s.Set(group, pages)
}

// Staged reports whether a group is staged.
func (s *Stage) Staged(group string) bool {
	_, ok := s.groups[group]
	return ok
}

// find returns the targets of the page at k, as the stage sees the site.
func (s *Stage) find(k Key) ([]Key, bool) {
	if n, ok := s.pages[k]; ok {
		return n.targets, true
	}
	if s.full {
		return nil, false
	}
	if n, ok := s.g.pages[k]; ok && !s.Staged(n.group) {
		return n.targets, true
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
		if !s.Staged(n.group) {
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
	for group, keys := range s.groups {
		for _, k := range s.g.groups[group] {
			if n, ok := s.pages[k]; !ok || !slices.Equal(n.targets, s.g.pages[k].targets) {
				ch[k] = true
			}
		}
		for _, k := range keys {
			if n, ok := s.g.pages[k]; !ok || n.group != group {
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
	s.each(func(_ Key, n node) {
		if set[n.group] {
			return
		}
		for _, t := range n.targets {
			if changed[t] {
				set[n.group] = true
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
		out = slices.Grow(out[:0], len(n.targets))[:len(n.targets)]
		decide(self, n.targets, s.find, out)
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
		for group, keys := range g.groups {
			if len(keys) == 0 {
				delete(g.groups, group)
			}
		}
		return
	}
	for group, keys := range s.groups {
		for _, k := range g.groups[group] {
			if g.pages[k].group == group {
				delete(g.pages, k)
			}
		}
		for _, k := range keys {
			g.pages[k] = s.pages[k]
		}
		if len(keys) == 0 {
			delete(g.groups, group)
		} else {
			g.groups[group] = keys
		}
	}
}

// Hosts are the hosts the stage's graph tells apart.
func (s *Stage) Hosts() Hosts { return s.g.hosts }
