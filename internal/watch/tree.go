package watch

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"

	"go.uber.org/zap"
)

// The watches: one a directory below the root, added as directories
// appear (watch first, read second) and dropped as they go; one that the
// kernel refuses leaves its directory polled (root.go).

// limitHint says which kernel limit a refused watch ran into.
func limitHint(err error) string {
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return " (the inotify watch limit is reached: raise fs.inotify.max_user_watches, e.g. sysctl fs.inotify.max_user_watches=524288)"
	case errors.Is(err, syscall.EMFILE):
		return " (the inotify instance limit is reached: raise fs.inotify.max_user_instances)"
	}
	return ""
}

// abs maps a root-relative path to the path the kernel is given.
func (w *Watcher) abs(rel string) string {
	if rel == "" {
		return w.opts.Root
	}
	return w.opts.Root + "/" + rel
}

// rel maps an event path to a root-relative path; ok is false outside root.
func (w *Watcher) rel(p string) (string, bool) {
	if p == w.opts.Root {
		return "", true
	}
	r, ok := strings.CutPrefix(p, w.opts.Root+"/")
	return r, ok
}

// addTree watches dir and every directory below it that is not skipped,
// watch first and read second, and marks each one dirty when scan is set
// (a directory that appeared: its files were never reported).
func (w *Watcher) addTree(dir string, scan bool) {
	if dir != "" && w.opts.SkipDir(dir) {
		return
	}
	if !w.watched[dir] {
		if err := w.src.Add(w.abs(dir)); err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				return // gone already
			}
			if !w.unwatched[dir] {
				w.log.Warn("cannot watch directory; polling it instead"+limitHint(err),
					zap.String("path", w.abs(dir)), zap.Error(err))
			}
			w.unwatched[dir] = true
			w.rescan = true
			w.marks++
		} else {
			w.watched[dir] = true
			delete(w.unwatched, dir)
			_ = w.closes.add(w.abs(dir)) // without it, quiet periods decide
		}
		w.noteState()
	}
	if scan {
		w.mark(dir)
	}
	entries, err := os.ReadDir(w.abs(dir))
	if err != nil {
		return // gone, or unreadable: the build reports it
	}
	for _, e := range entries {
		if e.IsDir() && e.Name()[0] != '.' {
			w.addTree(path.Join(dir, e.Name()), scan)
		}
	}
}

// dropTree removes the watches of dir and everything below it.
func (w *Watcher) dropTree(dir string) {
	for d := range w.watched {
		if d == dir || dir == "" || strings.HasPrefix(d, dir+"/") {
			_ = w.src.Remove(w.abs(d)) // fails when the kernel dropped it already
			w.closes.remove(w.abs(d))
			delete(w.watched, d)
		}
	}
	for d := range w.unwatched {
		if d == dir || dir == "" || strings.HasPrefix(d, dir+"/") {
			delete(w.unwatched, d)
		}
	}
	w.noteState()
}
