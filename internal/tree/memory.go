package tree

// Memory is the picture of the tree as last published, in daemon mode: a
// change re-reads only the directories it touched and re-encodes their
// group from memory, instead of walking the whole group again; what the
// change did to the group's pages is the difference between the two
// pictures. A read never changes Memory: its Update is applied once the
// group's files are committed, so Memory always describes what readers
// see. Directories reached through symlinks are not remembered: groups
// that follow links are always walked whole.
type Memory struct {
	depth  Depth
	dirs   map[string]*Listing
	groups map[string]map[string]bool // group -> its remembered directories
}

// NewMemory returns an empty Memory for groups folded at depth.
func NewMemory(depth Depth) *Memory {
	return &Memory{depth: depth, dirs: map[string]*Listing{}, groups: map[string]map[string]bool{}}
}

// Update is what a read of one group found, to be applied to Memory once
// the group is published.
type Update struct {
	Whole  bool                // the group was read whole: Set replaces all memory of it
	Forget []string            // trees gone, or read again whole
	Set    map[string]*Listing // listings read
	// View is the group's directories as they will be remembered; nil for
	// a group not to be remembered (one that follows symlinks).
	View map[string]*Listing
}

// WholeUpdate is the Update of a group read whole, whose directories are
// listings. A group that follows symlinks is not remembered.
func WholeUpdate(listings map[string]*Listing, followsLinks bool) *Update {
	if followsLinks {
		return &Update{Whole: true}
	}
	view := listings
	if view == nil {
		view = map[string]*Listing{}
	}
	return &Update{Whole: true, Set: listings, View: view}
}

// Apply makes an update of group memory. It touches the group's own
// directories only: another group's directory that is gone, or new, is
// found so by that group's own read, whose changes are computed against
// what it remembers.
func (m *Memory) Apply(group string, u *Update) {
	if u.View == nil {
		m.Forget(group) // not remembered: it follows symlinks
		return
	}
	if u.Whole {
		m.Forget(group)
	}
	for d := range m.groups[group] {
		if Under(d, u.Forget) {
			delete(m.dirs, d)
			delete(m.groups[group], d)
		}
	}
	for d, l := range u.Set {
		if m.depth.GroupOf(d) == group {
			m.add(d, l)
		}
	}
	if m.groups[group] == nil {
		// Remembered, if empty: the next read compares with nothing, not
		// with the published files.
		m.groups[group] = map[string]bool{}
	}
}

// Forget drops everything remembered of a group.
func (m *Memory) Forget(group string) {
	for d := range m.groups[group] {
		delete(m.dirs, d)
	}
	delete(m.groups, group)
}

func (m *Memory) add(d string, l *Listing) {
	grp := m.depth.GroupOf(d)
	if m.groups[grp] == nil {
		m.groups[grp] = map[string]bool{}
	}
	m.dirs[d] = l
	m.groups[grp][d] = true
}

// Dir returns the remembered listing of a directory, or nil.
func (m *Memory) Dir(d string) *Listing {
	if m == nil {
		return nil
	}
	return m.dirs[d]
}

// Remembers reports whether a group is remembered (if perhaps empty).
func (m *Memory) Remembers(group string) bool { return m != nil && m.groups[group] != nil }

// Groups calls f for every remembered group; f may Forget it.
func (m *Memory) Groups(f func(group string)) {
	for g := range m.groups {
		f(g)
	}
}

// Listings returns a group's remembered directories, or nil if the group
// is not remembered.
func (m *Memory) Listings(group string) map[string]*Listing {
	dirs, ok := m.groups[group]
	if !ok {
		return nil
	}
	out := make(map[string]*Listing, len(dirs))
	for d := range dirs {
		out[d] = m.dirs[d]
	}
	return out
}

// Each calls f for every remembered directory.
func (m *Memory) Each(f func(dir string, l *Listing)) {
	if m == nil {
		return
	}
	for d, l := range m.dirs {
		f(d, l)
	}
}
