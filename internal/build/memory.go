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

// listing is what the engine remembers of one directory: its pages, as base
// names and mtimes packed together (some 25 bytes a page where a URL would
// take over 100: the daemon holds one listing per directory of the site),
// and its real subdirectories. URLs are computed from it when its group is
// encoded. With head reading on it also keeps each page's size, whether its
// head keeps it out (a hidden page is remembered, not listed, so that its
// head is not read again until the file changes) and its alternates.
type listing struct {
	names   string   // page base names, each followed by a NUL (never in a name)
	mtimes  []int64  // Unix nanoseconds, one per name
	sizes   []int64  // file sizes, one per name; nil without head reading
	hidden  []bool   // nil when no page is hidden
	alts    []string // packed alternates (pageHead.alts); nil when no page has any
	subdirs []string
	id      dirID // the directory itself: a new one at the same path is another
}

// pageEntry is one page found by a read.
type pageEntry struct {
	name  string
	url   sitemap.URL // filled by a walk, not when kept from memory
	mtime int64       // Unix nanoseconds
	size  int64
	head  pageHead
}

// newListing packs the pages of a directory. Sizes are kept when heads are
// read, to tell a changed file.
func newListing(pages []pageEntry, keepSizes bool, subdirs []string, id dirID) *listing {
	n := 0
	for i := range pages {
		n += len(pages[i].name) + 1
	}
	var b strings.Builder
	b.Grow(n)
	// Exact sizes: a daemon keeps a listing per directory for as long as
	// it runs.
	l := &listing{id: id}
	if len(pages) > 0 {
		l.mtimes = make([]int64, len(pages))
		if keepSizes {
			l.sizes = make([]int64, len(pages))
		}
	}
	for i := range pages {
		p := &pages[i]
		b.WriteString(p.name)
		b.WriteByte(0)
		l.mtimes[i] = p.mtime
		if keepSizes {
			l.sizes[i] = p.size
		}
		if p.head.hidden {
			if l.hidden == nil {
				l.hidden = make([]bool, len(pages))
			}
			l.hidden[i] = true
		}
		if p.head.alts != "" {
			if l.alts == nil {
				l.alts = make([]string, len(pages))
			}
			l.alts[i] = p.head.alts
		}
	}
	l.names = b.String()
	if len(subdirs) > 0 {
		l.subdirs = append(make([]string, 0, len(subdirs)), subdirs...)
	}
	return l
}

// all calls f for every page of the listing, hidden or not.
func (l *listing) all(f func(i int, name string)) {
	rest := l.names
	for i := range l.mtimes {
		j := strings.IndexByte(rest, 0)
		f(i, rest[:j])
		rest = rest[j+1:]
	}
}

// each calls f for every listed (not hidden) page of the listing.
func (l *listing) each(f func(i int, name string, mtime int64)) {
	l.all(func(i int, name string) {
		if l.hidden == nil || !l.hidden[i] {
			f(i, name, l.mtimes[i])
		}
	})
}

// head returns what the head of page i said.
func (l *listing) head(i int) pageHead {
	var h pageHead
	if l.hidden != nil {
		h.hidden = l.hidden[i]
	}
	if l.alts != nil {
		h.alts = l.alts[i]
	}
	return h
}

// entry returns page i as a pageEntry (without its URL).
func (l *listing) entry(i int, name string) pageEntry {
	p := pageEntry{name: name, mtime: l.mtimes[i], size: unread, head: l.head(i)}
	if l.sizes != nil {
		p.size = l.sizes[i]
	}
	return p
}

// memory is the engine's picture of the tree as last published, in daemon
// mode: a change re-reads only the directories it touched and re-encodes
// their group from memory, instead of walking the whole group again; what
// the change did to the group's pages is the difference between the two
// pictures. A read never changes memory: its result is applied once the
// group's files are committed, so memory always describes what readers see.
// Directories reached through symlinks are not remembered: groups that
// follow links are always walked whole.
type memory struct {
	dirs   map[string]*listing
	groups map[string]map[string]bool // group -> its remembered directories
}

func newMemory() *memory {
	return &memory{dirs: map[string]*listing{}, groups: map[string]map[string]bool{}}
}

// memUpdate is what a read of a group found, to be applied to memory once the
// group is published.
type memUpdate struct {
	whole  bool                // the group was read whole: set replaces all memory of it
	forget []string            // trees gone, or read again whole
	set    map[string]*listing // listings read
	view   map[string]*listing // the group's directories as they will be remembered
}

// apply makes an update memory. It touches the group's own directories
// only: another group's directory that is gone, or new, is found so by that
// group's own read, whose changes are computed against what it remembers.
func (m *memory) apply(e *Engine, group string, u *memUpdate) {
	if u.view == nil {
		m.forgetGroup(group) // not remembered: it follows symlinks
		return
	}
	if u.whole {
		m.forgetGroup(group)
	}
	for d := range m.groups[group] {
		if under(d, u.forget) {
			delete(m.dirs, d)
			delete(m.groups[group], d)
		}
	}
	for d, l := range u.set {
		if e.GroupOf(d) == group {
			m.add(e, d, l)
		}
	}
	if m.groups[group] == nil {
		// Remembered, if empty: the next read compares with nothing, not
		// with the published files.
		m.groups[group] = map[string]bool{}
	}
}

// forgetGroup drops everything remembered of a group.
func (m *memory) forgetGroup(g string) {
	for d := range m.groups[g] {
		delete(m.dirs, d)
	}
	delete(m.groups, g)
}

func (m *memory) add(e *Engine, d string, l *listing) {
	grp := e.GroupOf(d)
	if m.groups[grp] == nil {
		m.groups[grp] = map[string]bool{}
	}
	m.dirs[d] = l
	m.groups[grp][d] = true
}

// listings returns a group's remembered directories, or nil if the group is
// not remembered.
func (m *memory) listings(g string) map[string]*listing {
	dirs, ok := m.groups[g]
	if !ok {
		return nil
	}
	out := make(map[string]*listing, len(dirs))
	for d := range dirs {
		out[d] = m.dirs[d]
	}
	return out
}

func parentOf(d string) string {
	if i := strings.LastIndexByte(d, '/'); i >= 0 {
		return d[:i]
	}
	return ""
}

func under(d string, trees []string) bool {
	for _, t := range trees {
		if d == t || t == "" || strings.HasPrefix(d, t+"/") {
			return true
		}
	}
	return false
}

// urlOf is the URL entry of a remembered page (the walk checked its name
// and length when it was read).
func (e *Engine) urlOf(dir, name string, mtime int64, now time.Time) sitemap.URL {
	up := e.mapper.urlPath(dir, name)
	u := sitemap.URL{Loc: e.mapper.loc(up)}
	if mtime <= now.UnixNano() {
		u.LastMod = time.Unix(0, mtime).Truncate(time.Second)
	}
	if r := matchRule(e.rules, up); r != nil {
		u.ChangeFreq, u.Priority = r.changefreq, r.priority
	}
	return u
}

// urls computes the URLs of a group's directories.
func (e *Engine) urls(dirs map[string]*listing, now time.Time) []sitemap.URL {
	n := 0
	for _, l := range dirs {
		n += len(l.mtimes)
	}
	out := make([]sitemap.URL, 0, n)
	for d, l := range dirs {
		l.each(func(i int, name string, mtime int64) {
			u := e.urlOf(d, name, mtime, now)
			if l.alts != nil {
				u.Alternates = alternates(l.alts[i])
			}
			out = append(out, u)
		})
	}
	return out
}

// lastmodKey is what a page's <lastmod> shows: its second, or nothing (-1)
// for a time still to come.
func lastmodKey(mtime int64, now time.Time) int64 {
	if mtime > now.UnixNano() {
		return -1
	}
	return time.Unix(0, mtime).Unix()
}

// listingChanges compares a group's directories before and after: the
// pages added, removed, and changed (another <lastmod>). Directories whose
// listing is the same are skipped, and URLs are computed for the pages
// that differ only, so a change costs in proportion to the directories it
// touched.
func (e *Engine) listingChanges(old, cur map[string]*listing, now time.Time) Changes {
	var c Changes
	for d, ol := range old {
		cl := cur[d]
		if cl == ol {
			continue
		}
		before := map[string]int64{}
		ol.each(func(_ int, name string, mt int64) { before[name] = mt })
		if cl != nil {
			cl.each(func(_ int, name string, mt int64) {
				prev, ok := before[name]
				switch {
				case !ok:
					c.Added = append(c.Added, e.urlOf(d, name, mt, now).Loc)
				case lastmodKey(prev, now) != lastmodKey(mt, now):
					c.Changed = append(c.Changed, e.urlOf(d, name, mt, now).Loc)
				}
				delete(before, name)
			})
		}
		for name, mt := range before {
			c.Removed = append(c.Removed, e.urlOf(d, name, mt, now).Loc)
		}
	}
	for d, cl := range cur {
		if _, ok := old[d]; !ok {
			cl.each(func(_ int, name string, mt int64) { c.Added = append(c.Added, e.urlOf(d, name, mt, now).Loc) })
		}
	}
	slices.Sort(c.Added)
	slices.Sort(c.Changed)
	slices.Sort(c.Removed)
	return c
}

// refreshGroup re-reads the dirty directories of a remembered group (and
// any directory below them it has not seen) and returns the group as it
// will be, with the update to remember once it is published. A directory
// with names listed is only looked at for those entries. ok is false when
// the group must be walked whole.
func (e *Engine) refreshGroup(ctx context.Context, group string, dirty []string, names map[string][]string, now time.Time) (g *Group, u *memUpdate, ok bool, err error) {
	m := e.mem
	if m == nil || len(e.links[group]) > 0 || m.groups[group] == nil {
		return nil, nil, false, nil
	}
	w, err := e.newWalker(ctx, func(*Group) {})
	if err != nil {
		return nil, nil, false, err
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
	w.known = func(rel string) bool {
		_, ok := m.dirs[rel]
		return ok && !under(rel, whole)
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
		// Incomplete: the group keeps its published files and memory.
		return scan, nil, true, ctx.Err()
	}
	if scan.links != nil {
		return nil, nil, false, nil // a symlink appeared: walk the group whole
	}
	u = &memUpdate{forget: slices.Concat(whole, scan.gone), set: scan.listings}
	// Subdirectories a listing no longer has take their subtrees with them:
	// remembered directories below a re-read one that it does not list.
	for d, l := range scan.listings {
		if old, ok := m.dirs[d]; ok {
			for _, sd := range old.subdirs {
				if !slices.Contains(l.subdirs, sd) {
					u.forget = append(u.forget, sd)
				}
			}
		}
		for sd := range m.groups[group] {
			if sd != d && parentOf(sd) == d && !slices.Contains(l.subdirs, sd) {
				u.forget = append(u.forget, sd)
			}
		}
	}
	u.view = map[string]*listing{}
	for d := range m.groups[group] {
		if !under(d, u.forget) {
			u.view[d] = m.dirs[d]
		}
	}
	for d, l := range u.set {
		if e.GroupOf(d) == group {
			u.view[d] = l
		}
	}
	return &Group{Dir: group, URLs: e.urls(u.view, now), own: scan.own, temps: scan.temps}, u, true, nil
}

// wholeUpdate is the update of a group read whole. A group that follows
// symlinks is not remembered.
func wholeUpdate(g *Group) *memUpdate {
	if len(g.links) > 0 {
		return &memUpdate{whole: true}
	}
	view := g.listings
	if view == nil {
		view = map[string]*listing{}
	}
	return &memUpdate{whole: true, set: g.listings, view: view}
}

// refreshNames reads the named entries of dir into a new listing of it,
// without reading the directory: in a directory of 30,000 files one change
// costs one stat, not a readdir and thousands of stats. It returns false,
// having found nothing, when the directory must be read whole instead: not
// remembered, or an index file or a symlink is involved, whose effects
// reach beyond one entry.
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
	named := map[string]bool{}
	for _, f := range entries {
		named[f.name] = true
	}
	var pages []pageEntry
	old.all(func(i int, name string) {
		if !named[name] {
			pages = append(pages, old.entry(i, name))
		}
	})
	cache := &headCache{l: old}
	subdirs := slices.Clone(old.subdirs)
	var walkNew []string
	for _, f := range entries {
		rel := joinRel(dir, f.name)
		subdirs = slices.DeleteFunc(subdirs, func(s string) bool { return s == rel })
		if f.st != nil && f.st.Mode&unix.S_IFMT == unix.S_IFDIR && !e.filter.ignored(f.name) && !e.filter.excluded("/"+rel) {
			subdirs = append(subdirs, rel)
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
			if p, ok := w.page(dir, f.name, rel, time.Unix(f.st.Mtim.Unix()), f.st.Size, -1, cache); ok {
				pages = append(pages, p)
			}
		}
	}
	if scan.listings == nil {
		scan.listings = map[string]*listing{}
	}
	scan.listings[dir] = newListing(pages, e.readsHeads(), subdirs, old.id)
	for _, d := range walkNew {
		w.walk(d, scan)
	}
	return true
}
