package build

import (
	"path/filepath"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/sitemapd/sitemapd/internal/tree"
)

// otherNames finds, for the pages a rebuild's reads found changed that
// have other names (hard links, as `cp -al`, hardlink or jdupes -L make
// them), the other names that the engine knows: the same file, as far as
// what is known of both can tell (the same stamp and content hash; the
// same time where neither is kept). Editing a file in place through one
// name changes it under all of them, but inotify reports the change only
// where it was made. It returns, by group, the directories and names to
// read again that the reads did not already cover.
//
// A name nothing knows (scan.Group.Linked: a link just made, or a name
// left out, such as one robots.txt disallows, which nothing remembers)
// has nothing known to compare with; if its file's stamp is none the
// engine knows, the file changed since its other names were read (edited
// through that name, as a link made and edited in one batch), and those
// names are found by the file's identity: each page known is looked at
// (a stat, no read). That costs a stat per page known, and only then: a
// link made to a file as it is known (`cp -al`) finds its stamp known.
func (e *Engine) otherNames(reads map[string]groupRead, dirty map[string][]string, names map[string][]string) map[string]map[string][]string {
	s := linkSearchOf(reads)
	if len(s.want) == 0 && len(s.freshStamp) == 0 {
		return nil
	}
	found := foundNames{}
	add := func(dir, name string) {
		if group := e.opts.depth.GroupOf(dir); !covered(reads, dirty, names, group, dir, name) {
			found.add(group, dir, name)
		}
	}
	each := func(f func(dir string, l *tree.Listing)) {
		e.model.mem.Each(f)
		for d, l := range e.pages.held {
			f(d, l)
		}
	}
	files := s.byKnown(each, add)
	if len(files) > 0 {
		s.byIdentity(e.cfg.Root, files, each, add)
	}
	return found.out
}

// pageID is a file as what is known of one of its names tells it: its
// stamp and content hash, or its time where no stamp is kept.
type pageID struct {
	stamp, sum uint64
	time       int64
}

func idOf(p tree.Page) pageID {
	if p.Stamp != tree.NoStamp {
		return pageID{p.Stamp, p.Sum, 0}
	}
	return pageID{0, 0, p.Time}
}

type (
	fileID   [2]uint64 // a file by device and inode
	pageName [2]string // a page by directory and name
)

// linkSearch is what otherNames looks for, from a rebuild's reads.
type linkSearch struct {
	self map[pageName]bool // the names the reads found changed: not others
	want map[pageID]bool   // the files of those names, as known before
	// Names nothing knew, by the stamp (or, where none is kept, the
	// mtime) of their files now: the files to look for if no page known
	// has it.
	freshStamp map[uint64][]fileID
	freshTime  map[int64][]fileID
}

func linkSearchOf(reads map[string]groupRead) linkSearch {
	s := linkSearch{self: map[pageName]bool{}, want: map[pageID]bool{}, freshStamp: map[uint64][]fileID{}, freshTime: map[int64][]fileID{}}
	for _, rd := range reads {
		for _, rl := range rd.g.Relinked {
			s.self[pageName{rl.Dir, rl.Name}] = true
			s.want[idOf(rl.Was)] = true
		}
		for _, ln := range rd.g.Linked {
			s.self[pageName{ln.Dir, ln.Name}] = true
			f := fileID{ln.Dev, ln.Ino}
			s.freshStamp[ln.Stamp] = append(s.freshStamp[ln.Stamp], f)
			s.freshTime[ln.MTime] = append(s.freshTime[ln.MTime], f)
		}
	}
	return s
}

// byKnown adds the pages known (each) that are the files wanted, and
// returns the files of the names nothing knew whose stamp no page known
// has: those are to be found by their identity.
func (s linkSearch) byKnown(each func(func(string, *tree.Listing)), add func(dir, name string)) map[fileID]bool {
	known := map[fileID]bool{} // files whose stamp a page known has
	each(func(dir string, l *tree.Listing) {
		l.All(func(i int, name string) {
			k := pageID{0, 0, l.Time(i)}
			st := l.Stamp(i)
			if st != tree.NoStamp {
				k = pageID{st, l.Sum(i), 0}
				for _, f := range s.freshStamp[st] {
					known[f] = true
				}
			} else {
				for _, f := range s.freshTime[l.Time(i)] {
					known[f] = true
				}
			}
			if s.want[k] && !s.self[pageName{dir, name}] {
				add(dir, name)
			}
		})
	})
	files := map[fileID]bool{}
	for _, fs := range s.freshStamp {
		for _, f := range fs {
			if !known[f] {
				files[f] = true
			}
		}
	}
	return files
}

// byIdentity adds the pages known (each) that are one of files, by a stat
// of each below root.
func (s linkSearch) byIdentity(root string, files map[fileID]bool, each func(func(string, *tree.Listing)), add func(dir, name string)) {
	each(func(dir string, l *tree.Listing) {
		l.All(func(i int, name string) {
			if s.self[pageName{dir, name}] {
				return
			}
			var st unix.Stat_t
			if unix.Lstat(filepath.Join(root, dir, name), &st) == nil && files[fileID{uint64(st.Dev), st.Ino}] {
				add(dir, name)
			}
		})
	})
}

// foundNames are the other names to read again, by group and directory,
// each once.
type foundNames struct {
	out   map[string]map[string][]string
	added map[pageName]bool
}

func (f *foundNames) add(group, dir, name string) {
	if f.added[pageName{dir, name}] {
		return
	}
	if f.out == nil {
		f.out, f.added = map[string]map[string][]string{}, map[pageName]bool{}
	}
	f.added[pageName{dir, name}] = true
	if f.out[group] == nil {
		f.out[group] = map[string][]string{}
	}
	f.out[group][dir] = append(f.out[group][dir], name)
}

// covered reports whether a rebuild's reads already looked at a page.
func covered(reads map[string]groupRead, dirty map[string][]string, names map[string][]string, group, dir, name string) bool {
	if _, ok := reads[group]; !ok {
		return false
	}
	if len(dirty[group]) == 0 {
		return true // read whole
	}
	for _, d := range dirty[group] {
		if d == dir || tree.Under(dir, []string{d}) {
			n, ok := names[d]
			return !ok || slices.Contains(n, name)
		}
	}
	return false
}
