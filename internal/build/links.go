package build

import (
	"path/filepath"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/sitemapd/sitemapd/internal/scan"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// groupRead is one group read by a rebuild, before it is published.
type groupRead struct {
	g *scan.Group
	u *tree.Update
}

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
	type id struct {
		stamp, sum uint64
		time       int64
	}
	idOf := func(p tree.Page) id {
		if p.Stamp != tree.NoStamp {
			return id{p.Stamp, p.Sum, 0}
		}
		return id{0, 0, p.Time}
	}
	self := map[[2]string]bool{}
	want := map[id]bool{}
	// Names nothing knew, by the stamp (or, where none is kept, the
	// mtime) of their files now: the files to look for if no page known
	// has it.
	freshStamp := map[uint64][][2]uint64{}
	freshTime := map[int64][][2]uint64{}
	for _, rd := range reads {
		for _, rl := range rd.g.Relinked {
			self[[2]string{rl.Dir, rl.Name}] = true
			want[idOf(rl.Was)] = true
		}
		for _, ln := range rd.g.Linked {
			self[[2]string{ln.Dir, ln.Name}] = true
			f := [2]uint64{ln.Dev, ln.Ino}
			freshStamp[ln.Stamp] = append(freshStamp[ln.Stamp], f)
			freshTime[ln.MTime] = append(freshTime[ln.MTime], f)
		}
	}
	if len(want) == 0 && len(freshStamp) == 0 {
		return nil
	}
	var out map[string]map[string][]string
	added := map[[2]string]bool{}
	add := func(dir, name string) {
		group := e.depth.GroupOf(dir)
		if added[[2]string{dir, name}] || covered(reads, dirty, names, group, dir, name) {
			return
		}
		added[[2]string{dir, name}] = true
		if out == nil {
			out = map[string]map[string][]string{}
		}
		if out[group] == nil {
			out[group] = map[string][]string{}
		}
		out[group][dir] = append(out[group][dir], name)
	}
	each := func(f func(dir string, l *tree.Listing)) {
		e.mem.Each(f)
		for d, l := range e.pages.held {
			f(d, l)
		}
	}
	known := map[[2]uint64]bool{} // files whose stamp a page known has
	each(func(dir string, l *tree.Listing) {
		l.All(func(i int, name string) {
			k := id{0, 0, l.Time(i)}
			st := l.Stamp(i)
			if st != tree.NoStamp {
				k = id{st, l.Sum(i), 0}
				for _, f := range freshStamp[st] {
					known[f] = true
				}
			} else {
				for _, f := range freshTime[l.Time(i)] {
					known[f] = true
				}
			}
			if want[k] && !self[[2]string{dir, name}] {
				add(dir, name)
			}
		})
	})
	files := map[[2]uint64]bool{}
	for _, fs := range freshStamp {
		for _, f := range fs {
			if !known[f] {
				files[f] = true
			}
		}
	}
	if len(files) == 0 {
		return out
	}
	each(func(dir string, l *tree.Listing) {
		l.All(func(i int, name string) {
			if self[[2]string{dir, name}] {
				return
			}
			var st unix.Stat_t
			if unix.Lstat(filepath.Join(e.cfg.Root, dir, name), &st) == nil && files[[2]uint64{uint64(st.Dev), st.Ino}] {
				add(dir, name)
			}
		})
	})
	return out
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
