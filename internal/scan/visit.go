package scan

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"syscall"

	"go.uber.org/zap"
	"golang.org/x/sys/unix"

	"github.com/sitemapd/sitemapd/internal/tree"
)

// visit reads one directory: it lists its pages in its group (or keeps
// its listing, recorded) and starts the visits of its subdirectories.
func (w *Walk) visit(v *visit) {
	defer w.finish(v)
	if err := w.ctx.Err(); err != nil {
		v.group.fail(err)
		return
	}
	d, ok := w.openDir(v)
	if !ok {
		return
	}
	defer d.Close()
	if (w.s.cfg.Pages.FollowSymlinks || w.o.Record) && !w.identify(v, d) {
		return
	}
	entries, err := d.ReadDir(-1)
	if err != nil {
		v.group.fail(fmt.Errorf("read directory %s: %w", w.abs(v.rel), err))
		return
	}
	w.files.Add(int64(len(entries)))
	w.store(v, w.list(v, entries, int(d.Fd())))
}

// openDir opens the visited directory; ok is false if it cannot be (a
// directory removed while the walk ran is noted as gone; another error
// fails the group).
func (w *Walk) openDir(v *visit) (d *os.File, ok bool) {
	dirPath := w.abs(v.rel)
	d, err := w.s.openDir(dirPath)
	if err == nil {
		return d, true
	}
	if errors.Is(err, fs.ErrNotExist) && v.rel != "" {
		if w.o.Record {
			v.group.mu.Lock()
			v.group.gone = append(v.group.gone, v.rel)
			v.group.mu.Unlock()
		}
		return nil, false // removed while we walked: nothing to list
	}
	v.group.fail(fmt.Errorf("read directory %s: %w", dirPath, err))
	return nil, false
}

// identify sets the visited directory's id, reporting false if it cannot
// be read or is one of its own ancestors (a symlink looping back): then it
// is not listed.
func (w *Walk) identify(v *visit, d *os.File) bool {
	dirPath := w.abs(v.rel)
	var st unix.Stat_t
	if err := unix.Fstat(int(d.Fd()), &st); err != nil {
		v.group.fail(fmt.Errorf("stat directory %s: %w", dirPath, err))
		return false
	}
	v.id = tree.DirID{Dev: st.Dev, Ino: st.Ino}
	for p := v.parent; p != nil; p = p.parent {
		if p.id == v.id {
			w.log.Warn("not following symlink: it loops back to an enclosing directory",
				zap.String("path", dirPath), zap.String("target", w.abs(p.rel)), countedAs("links"))
			return false
		}
	}
	return true
}

// dirList is what a visit found in its directory.
type dirList struct {
	// recorded: the directory keeps its listing, from which its URLs are
	// made when its group is taken; the others' URLs are made now.
	recorded bool
	was      *tree.Listing // what was known of the directory (its names may be shared)
	pages    []tree.Page
	subdirs  []string // real subdirectories listed (record mode)
	// index is the index file listed (index.html and index.htm would
	// both be "dir/": the one first in pages.index_files is kept): its
	// place in pages (-1 for none), rank and name.
	indexAt, indexRank int
	indexName          string
}

// list reads the entries of the visited directory (open as dfd): its
// pages, and the visits of its subdirectories started.
func (w *Walk) list(v *visit, entries []fs.DirEntry, dfd int) *dirList {
	l := &dirList{recorded: w.o.Record && !v.viaLink, indexAt: -1, indexRank: -1}
	var kn *known
	if !v.viaLink {
		// Files unchanged since they were read are not read again.
		kn = &known{}
		if w.o.Known != nil {
			kn.l = w.o.Known(v.rel)
			l.was = kn.l
		}
	}
	for _, ent := range entries {
		name := ent.Name()
		if w.s.filter.Ignored(name) {
			w.noteOwn(v, name)
			continue
		}
		rel := joinRel(v.rel, name)
		fst, ok := w.entry(v, ent, rel, dfd, l)
		if !ok {
			continue
		}
		if p, ok := w.page(v.group, v.rel, name, rel, fst, dfd, kn, !l.recorded); ok {
			w.add(v, l, name, p)
		}
	}
	return l
}

// entry stats a directory entry that may be a page (ok), and starts the
// visit of one that is a directory (listed in l.subdirs when recorded).
func (w *Walk) entry(v *visit, ent fs.DirEntry, rel string, dfd int, l *dirList) (fst fileStat, ok bool) {
	f, name, typ := w.s.filter, ent.Name(), ent.Type()
	switch {
	case typ.IsDir():
		if !f.Excluded("/" + rel) {
			if w.o.Record && !v.viaLink {
				l.subdirs = append(l.subdirs, rel)
			}
			w.descend(v, rel, v.viaLink)
		}
	case typ.IsRegular():
		if !f.IsPage(name) {
			return fileStat{}, false
		}
		var st unix.Stat_t
		if err := unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			if !errors.Is(err, unix.ENOENT) {
				v.group.fail(fmt.Errorf("stat %s: %w", w.abs(rel), err))
			}
			return fileStat{}, false
		}
		return statOf(&st), true
	case typ&fs.ModeSymlink != 0 && w.s.cfg.Pages.FollowSymlinks:
		return w.symlinked(v, name, rel)
	}
	return fileStat{}, false // sockets, devices, fifos; symlinks not followed
}

// symlinked follows a symlink inside the root: a directory is visited in
// this group, a page's file stat'ed (ok). The group notes the target's
// directory, whose changes must rebuild it too.
func (w *Walk) symlinked(v *visit, name, rel string) (fst fileStat, ok bool) {
	f := w.s.filter
	st, target, real, fault, err := w.followLink(rel)
	if fault != linkFollowed {
		w.lostLink(v, name, rel, st, real, fault, err)
		return fileStat{}, false
	}
	if st.IsDir() || f.IsPage(name) {
		// Changes under the target must rebuild this group too.
		if !st.IsDir() {
			target = path.Dir(target)
		}
		v.group.mu.Lock()
		v.group.Links = append(v.group.Links, target)
		v.group.mu.Unlock()
	}
	if st.IsDir() {
		if !f.Excluded("/" + rel) {
			w.descend(v, rel, true)
		}
		return fileStat{}, false
	}
	if !st.Mode().IsRegular() || !f.IsPage(name) {
		return fileStat{}, false
	}
	fst = fileStat{mtime: st.ModTime().UnixNano(), size: st.Size(), nlink: 1, viaLink: true}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		fst.ctime, fst.ino = sys.Ctim.Nano(), sys.Ino
	}
	return fst, true
}

// add lists page p, named name, in l, unless it is an index file and
// another of the directory's, first in pages.index_files, has its URL:
// the server serves that one. The one not listed is left out.
func (w *Walk) add(v *visit, l *dirList, name string, p tree.Page) {
	s := w.s
	rank, isIndex := s.loc.IndexRank(name)
	switch {
	case !isIndex:
	case l.indexAt < 0:
		l.indexRank, l.indexAt, l.indexName = rank, len(l.pages), name
	default:
		// The server serves the first index file, listed or hidden by
		// its head.
		loser, lost := name, p
		if rank < l.indexRank {
			loser, lost = l.indexName, l.pages[l.indexAt]
			l.pages[l.indexAt], l.indexRank, l.indexName = p, rank, name
		}
		w.log.Warn("not listed: another index file of the same directory has the same URL",
			zap.String("path", w.abs(joinRel(v.rel, loser))))
		if !lost.Head.Hidden() {
			// (One its head hides was counted for that.)
			w.leave(v.group, tree.DuplicateIndex, s.loc.Loc(s.loc.PagePath(v.rel, loser)), joinRel(v.rel, loser), "")
		}
		return
	}
	l.pages = append(l.pages, p)
}

// store puts what a visit found in its group: the listing of a recorded
// directory, the URLs of the others.
func (w *Walk) store(v *visit, l *dirList) {
	g := v.group
	g.mu.Lock()
	defer g.mu.Unlock()
	g.Left.read(v.rel) // read whole, with none left out if none was
	if !l.recorded {
		// A recorded directory's URLs are computed from its listing when
		// its group is handed over (urls): a group's URLs are some 200
		// bytes a page where its listings are some 40, and groups are
		// read many at once.
		for i := range l.pages {
			if p := &l.pages[i]; !p.Head.Hidden() {
				g.URLs = append(g.URLs, p.URL)
				if p.Dated {
					g.DatedURLs = append(g.DatedURLs, p.URL.Loc)
				}
				if p.Head.News != "" {
					g.Articles = append(g.Articles, Article{Dir: v.rel, Name: p.Name, News: p.Head.News})
				}
			}
		}
		return
	}
	if g.Listings == nil {
		g.Listings = map[string]*tree.Listing{}
	}
	g.Listings[v.rel] = tree.NewListingAfter(l.was, l.pages, w.s.keep, l.subdirs, v.id)
}
