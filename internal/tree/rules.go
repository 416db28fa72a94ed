package tree

import (
	"strings"
	"time"
)

// Depth folds directories into sitemap groups: a directory less deep than
// Depth is a group of its own pages; one at Depth is a group covering its
// whole subtree. Depth 0 is one group for the whole site.
type Depth int

// GroupOf returns the group that holds the pages of a directory (relative
// to the root, slash-separated; "" is the root).
func (d Depth) GroupOf(dir string) string {
	if dir == "" || dir == "." {
		return ""
	}
	n := 0
	for i := 0; i < len(dir); i++ {
		if dir[i] == '/' {
			n++
			if n == int(d) {
				return dir[:i]
			}
		}
	}
	if d == 0 {
		return ""
	}
	return dir
}

// LastMod is what a page's <lastmod> shows for a file modified at mtime
// (Unix nanoseconds), as of now: the mtime to the second, or nothing (the
// zero time) for a time still to come, which search engines reject.
func LastMod(mtime int64, now time.Time) time.Time {
	if mtime > now.UnixNano() {
		return time.Time{}
	}
	return time.Unix(0, mtime).Truncate(time.Second)
}

// Parent returns the directory holding d ("" for a top-level one).
func Parent(d string) string {
	if i := strings.LastIndexByte(d, '/'); i >= 0 {
		return d[:i]
	}
	return ""
}

// Under reports whether d is one of trees or below one ("" is the root,
// above everything).
func Under(d string, trees []string) bool {
	for _, t := range trees {
		if d == t || t == "" || strings.HasPrefix(d, t+"/") {
			return true
		}
	}
	return false
}
