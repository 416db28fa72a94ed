package build

import (
	"context"
	"slices"
	"strings"

	"github.com/sitemapd/sitemapd/internal/sitemap"
)

// listing is what the engine remembers of one directory: the URLs of the
// pages directly in it, and its real subdirectories.
type listing struct {
	urls    []sitemap.URL
	subdirs []string // rel paths
}

// memory is the engine's picture of the tree in daemon mode, so that a
// change re-reads only the directories it touched and re-encodes their
// group from memory, instead of walking the whole group again. Directories
// reached through symlinks are not remembered: groups that follow links are
// always walked whole.
type memory struct {
	dirs   map[string]*listing
	groups map[string]map[string]bool // group -> its remembered directories
}

func newMemory() *memory {
	return &memory{dirs: map[string]*listing{}, groups: map[string]map[string]bool{}}
}

// forgetGroup drops everything remembered of a group.
func (m *memory) forgetGroup(g string) {
	for d := range m.groups[g] {
		delete(m.dirs, d)
	}
	delete(m.groups, g)
}

// forgetTree drops a directory and everything below it.
func (m *memory) forgetTree(e *Engine, dir string) {
	for d := range m.dirs {
		if d == dir || strings.HasPrefix(d, dir+"/") {
			delete(m.dirs, d)
			delete(m.groups[e.GroupOf(d)], d)
		}
	}
}

// remember stores the listings of a freshly read group, replacing what was
// remembered of it.
func (m *memory) rememberGroup(e *Engine, g *Group) {
	m.forgetGroup(g.Dir)
	m.merge(e, g)
}

func (m *memory) merge(e *Engine, g *Group) {
	for d, l := range g.listings {
		grp := e.GroupOf(d)
		if m.groups[grp] == nil {
			m.groups[grp] = map[string]bool{}
		}
		// Subdirectories that are not there any more take their subtrees
		// with them: any remembered directory whose parent is d and which
		// d no longer lists. (Its group's directories are enough to look
		// at: a subdirectory is in its parent's group or starts its own,
		// which then has no parent listing to lose.)
		for sd := range m.groups[grp] {
			if sd != d && parentOf(sd) == d && !slices.Contains(l.subdirs, sd) {
				m.forgetTree(e, sd)
			}
		}
		if old, ok := m.dirs[d]; ok {
			for _, sd := range old.subdirs {
				if !slices.Contains(l.subdirs, sd) {
					m.forgetTree(e, sd)
				}
			}
		}
		m.dirs[d] = l
		m.groups[grp][d] = true
	}
	for _, d := range g.gone {
		m.forgetTree(e, d)
	}
}

func parentOf(d string) string {
	if i := strings.LastIndexByte(d, '/'); i >= 0 {
		return d[:i]
	}
	return ""
}

// urls assembles a group's URLs from memory.
func (m *memory) urls(g string) []sitemap.URL {
	n := 0
	for d := range m.groups[g] {
		n += len(m.dirs[d].urls)
	}
	out := make([]sitemap.URL, 0, n)
	for d := range m.groups[g] {
		out = append(out, m.dirs[d].urls...)
	}
	return out
}

// refreshGroup re-reads the dirty directories of a remembered group (and
// any directory below them it has not seen) and returns the group as
// memory now has it. ok is false when the group must be walked whole.
func (e *Engine) refreshGroup(ctx context.Context, group string, dirty []string) (g *Group, ok bool, err error) {
	m := e.mem
	if m == nil || len(e.links[group]) > 0 || m.groups[group] == nil {
		return nil, false, nil
	}
	w, err := e.newWalker(ctx, func(*Group) {})
	if err != nil {
		return nil, false, err
	}
	w.single, w.record = true, true
	// A dirty directory may be a new one at an old path (removed and
	// re-created between two reads): what memory holds below it cannot be
	// trusted, so it is read down to the bottom and replaces that.
	below := func(rel string) bool {
		for _, d := range dirty {
			if rel == d || d == "" || strings.HasPrefix(rel, d+"/") {
				return true
			}
		}
		return false
	}
	w.known = func(rel string) bool {
		_, ok := m.dirs[rel]
		return ok && !below(rel)
	}
	scan := &Group{Dir: group}
	for _, d := range dirty {
		w.walk(d, scan)
	}
	if scan.Err != nil || ctx.Err() != nil {
		// The group keeps its published files; what memory holds of it is
		// now doubtful, so the next change walks it whole.
		m.forgetGroup(group)
		return scan, true, ctx.Err()
	}
	if scan.links != nil {
		return nil, false, nil // a symlink appeared: walk the group whole
	}
	for _, d := range dirty {
		m.forgetTree(e, d)
	}
	m.merge(e, scan)
	return &Group{Dir: group, URLs: m.urls(group)}, true, nil
}
