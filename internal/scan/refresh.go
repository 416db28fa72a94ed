package scan

import (
	"context"
	"errors"
	"maps"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/sitemapd/sitemapd/internal/tree"
)

// Refresh re-reads the dirty directories of a group that mem remembers
// (and any directory below them it has not seen), and returns the group as
// it will be, with the update to remember once it is published; its URLs
// are left to compute from the update's View (Group.FromView). A
// directory with names listed is only looked at for those entries. ok is
// false when the group must be walked whole instead: one a symlink has
// appeared in. A group that could not be read whole has Err set and no
// update: it keeps its published files and its memory.
func (s *Scanner) Refresh(ctx context.Context, mem *tree.Memory, group string, dirty []string, names map[string][]string, o WalkOptions) (g *Group, u *tree.Update, ok bool, err error) {
	o.Record = true
	w, err := s.NewWalk(ctx, o)
	if err != nil {
		return nil, nil, false, err
	}
	w.single = true
	// A directory to re-read whole may be a new one at an old path (removed
	// and re-created between two reads): what memory holds below it cannot
	// be trusted, so it is read down to the bottom and replaces that.
	var whole []string
	for _, d := range dirty {
		if _, ok := names[d]; !ok {
			whole = append(whole, d)
		}
	}
	w.known = func(rel string) bool {
		return mem.Dir(rel) != nil && !tree.Under(rel, whole)
	}
	scan := &Group{Dir: group}
	for _, d := range dirty {
		if n, ok := names[d]; ok && w.refreshNames(mem, scan, d, n) {
			continue
		}
		if _, ok := names[d]; ok {
			whole = append(whole, d) // refreshNames declined: read whole after all
		}
		w.walk(d, scan)
	}
	if scan.Err != nil || ctx.Err() != nil {
		return scan, nil, true, ctx.Err()
	}
	if scan.Links != nil {
		return nil, nil, false, nil // a symlink appeared: walk the group whole
	}
	u = &tree.Update{Forget: slices.Concat(whole, scan.gone), Set: scan.Listings}
	// Subdirectories a listing no longer has take their subtrees with them:
	// remembered directories below a re-read one that it does not list.
	remembered := mem.Listings(group)
	for d, l := range scan.Listings {
		if old := mem.Dir(d); old != nil {
			for _, sd := range old.Subdirs() {
				if !slices.Contains(l.Subdirs(), sd) {
					u.Forget = append(u.Forget, sd)
				}
			}
		}
		for sd := range remembered {
			if sd != d && tree.Parent(sd) == d && !slices.Contains(l.Subdirs(), sd) {
				u.Forget = append(u.Forget, sd)
			}
		}
	}
	u.View = map[string]*tree.Listing{}
	for d, l := range remembered {
		if !tree.Under(d, u.Forget) {
			u.View[d] = l
		}
	}
	for d, l := range u.Set {
		if s.depth.GroupOf(d) == group {
			u.View[d] = l
		}
	}
	w.Summary()
	return &Group{Dir: group, FromView: true, Own: scan.Own, Temps: scan.Temps, Left: scan.Left, Relinked: scan.Relinked, Linked: scan.Linked}, u, true, nil
}

// refreshNames reads the named entries of dir into a new listing of it,
// without reading the directory: in a directory of 30,000 files one change
// costs one stat, not a readdir and thousands of stats. It returns false,
// having found nothing, when the directory must be read whole instead: not
// remembered, or an index file or a symlink is involved, whose effects
// reach beyond one entry.
func (w *Walk) refreshNames(mem *tree.Memory, scan *Group, dir string, names []string) bool {
	s := w.s
	old := mem.Dir(dir)
	if old == nil {
		return false
	}
	// The directory itself must still be the one remembered: one moved
	// away (events for its files can come in the same batch as its move)
	// or replaced is read whole, which finds it gone or new.
	var dst unix.Stat_t
	if err := unix.Stat(w.abs(dir), &dst); err != nil || (tree.DirID{Dev: uint64(dst.Dev), Ino: dst.Ino}) != old.ID() {
		return false
	}
	entries, edit, ok := w.statNamed(dir, names)
	if !ok {
		return false
	}
	was, had := scan.Left.take(&scan.mu, dir)
	var add []tree.Page
	kn := &known{l: old, few: true}
	subdirs := slices.Clone(old.Subdirs())
	var walkNew []string
	f := s.filter
	for _, e := range entries {
		rel := joinRel(dir, e.name)
		subdirs = slices.DeleteFunc(subdirs, func(s string) bool { return s == rel })
		if e.st != nil && e.st.Mode&unix.S_IFMT == unix.S_IFDIR && !f.Ignored(e.name) && !f.Excluded("/"+rel) {
			subdirs = append(subdirs, rel)
			// The same directory as remembered keeps its memory (its own
			// changes come as events of their own); another one at this
			// path, or an unknown one, is read to the bottom, unless it
			// starts a group of its own, which is rebuilt as such (as in a
			// whole read, which does not enter other groups either).
			if s.depth.GroupOf(rel) != s.depth.GroupOf(dir) {
				continue
			}
			if prev := mem.Dir(rel); prev == nil || prev.ID() != (tree.DirID{Dev: uint64(e.st.Dev), Ino: e.st.Ino}) {
				scan.gone = append(scan.gone, rel)
				walkNew = append(walkNew, rel)
			}
			continue
		}
		// Gone, or not a directory: nothing remembered below this name holds.
		scan.gone = append(scan.gone, rel)
		if e.st != nil && e.st.Mode&unix.S_IFMT == unix.S_IFREG && !f.Ignored(e.name) && f.IsPage(e.name) {
			if p, ok := w.page(scan, dir, e.name, rel, statOf(e.st), -1, kn, false); ok {
				if _, was := old.Find(e.name); was {
					edit[e.name] = &p
				} else {
					add = append(add, p)
				}
			}
		}
	}
	scan.mu.Lock()
	scan.Left.amend(dir, was, had, old, slices.Collect(maps.Keys(edit)), func(name string) string { return s.PageLoc(dir, name) })
	scan.mu.Unlock()
	if scan.Listings == nil {
		scan.Listings = map[string]*tree.Listing{}
	}
	scan.Listings[dir] = old.Amend(s.keep, edit, add, subdirs)
	for _, d := range walkNew {
		w.walk(d, scan)
	}
	return true
}

// named is an entry a change named: its stat, or nil for one gone.
type named struct {
	name string
	st   *unix.Stat_t
}

// statNamed stats each of the names in dir once (duplicates dropped), in
// order, and returns them with the edit map refreshNames fills (each
// name, for now without its page). It returns false when dir must be read
// whole instead: an index file, a page a rule on its path alone leaves
// out, a symlink, or a stat that failed but for ENOENT.
func (w *Walk) statNamed(dir string, names []string) ([]named, map[string]*tree.Page, bool) {
	var entries []named
	// Each named page is replaced at its place, removed, or (new) added
	// at the end: the others keep their order, so an edit leaves the
	// listing's names as they were.
	edit := make(map[string]*tree.Page, len(names))
	for _, name := range names {
		if _, dup := edit[name]; dup {
			continue
		}
		edit[name] = nil
		if _, isIndex := w.s.loc.IndexRank(name); isIndex {
			return nil, nil, false
		}
		if w.ruledOutPage(dir, name) {
			return nil, nil, false // was it there before? Only a read of the directory tells (Amend)
		}
		var st unix.Stat_t
		err := unix.Lstat(w.abs(joinRel(dir, name)), &st)
		switch {
		case errors.Is(err, unix.ENOENT):
			entries = append(entries, named{name, nil})
		case err != nil, st.Mode&unix.S_IFMT == unix.S_IFLNK:
			return nil, nil, false
		default:
			entries = append(entries, named{name, &st})
		}
	}
	return entries, edit, true
}

// ruledOutPage reports whether a page file of that name in dir would be
// left out by a rule on its path alone (Scanner.ruledOut).
func (w *Walk) ruledOutPage(dir, name string) bool {
	f := w.s.filter
	if f.Ignored(name) || !f.IsPage(name) {
		return false
	}
	var buf [256]byte
	why, _, _ := w.s.ruledOut(dir, name, joinRel(dir, name), buf[:0])
	return why != tree.Listed
}
