package build

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sitemapd/sitemapd/internal/sitemap"
)

// listing is what the engine remembers of one directory: the URLs of the
// pages directly in it, and its real subdirectories.
type listing struct {
	urls    []sitemap.URL
	subdirs []string // rel paths
	id      dirID    // the directory itself: a new one at the same path is another
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

// rememberGroup stores the listings of a freshly read group, replacing
// what was remembered of it.
func (m *memory) rememberGroup(e *Engine, g *Group) {
	m.forgetGroup(g.Dir)
	// A whole group was read: nothing it replaces needs comparing, so the
	// listings go straight in (merge's checks would cost O(dirs²) here).
	for d, l := range g.listings {
		m.add(e, d, l)
	}
}

func (m *memory) add(e *Engine, d string, l *listing) {
	grp := e.GroupOf(d)
	if m.groups[grp] == nil {
		m.groups[grp] = map[string]bool{}
	}
	m.dirs[d] = l
	m.groups[grp][d] = true
}

// merge adds the listings of a read to memory. Directories the read found
// gone must be forgotten by the caller first.
func (m *memory) merge(e *Engine, g *Group) {
	for d, l := range g.listings {
		grp := e.GroupOf(d)
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
		m.add(e, d, l)
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
// memory now has it. A directory with names listed is only looked at for
// those entries. ok is false when the group must be walked whole.
func (e *Engine) refreshGroup(ctx context.Context, group string, dirty []string, names map[string][]string) (g *Group, ok bool, err error) {
	m := e.mem
	if m == nil || len(e.links[group]) > 0 || m.groups[group] == nil {
		return nil, false, nil
	}
	w, err := e.newWalker(ctx, func(*Group) {})
	if err != nil {
		return nil, false, err
	}
	w.single, w.record = true, true
	// A directory to re-read whole may be a new one at an old path (removed
	// and re-created between two reads): what memory holds below it cannot
	// be trusted, so it is read down to the bottom and replaces that.
	var whole []string
	for _, d := range dirty {
		if _, ok := names[d]; !ok {
			whole = append(whole, d)
		}
	}
	below := func(rel string) bool {
		for _, d := range whole {
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
		if n, ok := names[d]; ok && e.refreshNames(w, scan, d, n) {
			continue
		}
		if _, ok := names[d]; ok {
			whole = append(whole, d) // refreshNames declined: read whole after all
		}
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
	for _, d := range whole {
		m.forgetTree(e, d)
	}
	for _, d := range scan.gone {
		m.forgetTree(e, d) // before merge re-adds what a walk found there
	}
	m.merge(e, scan)
	return &Group{Dir: group, URLs: m.urls(group), own: scan.own, temps: scan.temps}, true, nil
}

// refreshNames updates the remembered listing of dir for changes to the
// named entries only, without reading the directory: in a directory of
// 30,000 files one change costs one stat, not a readdir and thousands of
// stats. It returns false, having changed nothing, when the directory must
// be read whole instead: not remembered, or an index file or a symlink is
// involved, whose effects reach beyond one entry.
func (e *Engine) refreshNames(w *walker, scan *Group, dir string, names []string) bool {
	old, ok := e.mem.dirs[dir]
	if !ok {
		return false
	}
	// The directory itself must still be the one remembered: one moved
	// away (events for its files can come in the same batch as its move)
	// or replaced is read whole, which finds it gone or new.
	var dst unix.Stat_t
	if err := unix.Stat(w.abs(dir), &dst); err != nil || (dirID{uint64(dst.Dev), dst.Ino}) != old.id {
		return false
	}
	type found struct {
		name string
		st   *unix.Stat_t // nil: gone
	}
	var entries []found
	for _, name := range names {
		if _, isIndex := e.mapper.indexFiles[name]; isIndex {
			return false
		}
		var st unix.Stat_t
		err := unix.Lstat(w.abs(joinRel(dir, name)), &st)
		switch {
		case errors.Is(err, unix.ENOENT):
			entries = append(entries, found{name, nil})
		case err != nil, st.Mode&unix.S_IFMT == unix.S_IFLNK:
			return false
		default:
			entries = append(entries, found{name, &st})
		}
	}
	l := &listing{urls: slices.Clone(old.urls), subdirs: slices.Clone(old.subdirs), id: old.id}
	var walkNew []string
	for _, f := range entries {
		rel := joinRel(dir, f.name)
		loc := e.mapper.loc(e.mapper.urlPath(dir, f.name))
		l.urls = slices.DeleteFunc(l.urls, func(u sitemap.URL) bool { return u.Loc == loc })
		l.subdirs = slices.DeleteFunc(l.subdirs, func(s string) bool { return s == rel })
		if f.st != nil && f.st.Mode&unix.S_IFMT == unix.S_IFDIR && !e.filter.ignored(f.name) && !e.filter.excluded("/"+rel) {
			l.subdirs = append(l.subdirs, rel)
			// The same directory as remembered keeps its memory (its own
			// changes come as events of their own); another one at this
			// path, or an unknown one, is read to the bottom, unless it
			// starts a group of its own, which is rebuilt as such (as in a
			// whole read, which does not enter other groups either).
			if e.GroupOf(rel) != e.GroupOf(dir) {
				continue
			}
			if prev, known := e.mem.dirs[rel]; !known || prev.id != (dirID{uint64(f.st.Dev), f.st.Ino}) {
				scan.gone = append(scan.gone, rel)
				walkNew = append(walkNew, rel)
			}
			continue
		}
		// Gone, or not a directory: nothing remembered below this name holds.
		scan.gone = append(scan.gone, rel)
		if f.st != nil && f.st.Mode&unix.S_IFMT == unix.S_IFREG && !e.filter.ignored(f.name) && e.filter.isPage(f.name) {
			if u, ok := w.page(dir, f.name, rel, time.Unix(f.st.Mtim.Unix())); ok {
				l.urls = append(l.urls, u)
			}
		}
	}
	if scan.listings == nil {
		scan.listings = map[string]*listing{}
	}
	scan.listings[dir] = l
	for _, d := range walkNew {
		w.walk(d, scan)
	}
	return true
}
