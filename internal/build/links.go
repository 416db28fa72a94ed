package build

import (
	"slices"

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
func (e *Engine) otherNames(reads map[string]groupRead, dirty map[string][]string, names map[string][]string) map[string]map[string][]string {
	type id struct {
		stamp, sum uint64
		time       int64
	}
	self := map[[2]string]bool{}
	want := map[id]bool{}
	for _, rd := range reads {
		for _, rl := range rd.g.Relinked {
			self[[2]string{rl.Dir, rl.Name}] = true
			if rl.Was.Stamp != tree.NoStamp {
				want[id{rl.Was.Stamp, rl.Was.Sum, 0}] = true
			} else {
				want[id{0, 0, rl.Was.Time}] = true
			}
		}
	}
	if len(want) == 0 {
		return nil
	}
	var out map[string]map[string][]string
	look := func(dir string, l *tree.Listing) {
		l.All(func(i int, name string) {
			k := id{0, 0, l.Time(i)}
			if st := l.Stamp(i); st != tree.NoStamp {
				k = id{st, l.Sum(i), 0}
			}
			if !want[k] || self[[2]string{dir, name}] {
				return
			}
			group := e.depth.GroupOf(dir)
			if covered(reads, dirty, names, group, dir, name) {
				return
			}
			if out == nil {
				out = map[string]map[string][]string{}
			}
			if out[group] == nil {
				out[group] = map[string][]string{}
			}
			out[group][dir] = append(out[group][dir], name)
		})
	}
	e.mem.Each(look)
	for d, l := range e.pages.held {
		look(d, l)
	}
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
