package watch

import (
	"maps"
	"path"
	"slices"
	"time"

	"github.com/fsnotify/fsnotify"
)

// What is pending until a batch takes it: the dirty set (directories, and
// by name up to maxNames of their entries), the entries still being
// written (Busy) and the directories that lost one of sitemapd's own
// files (Restore).

// maxRecent bounds the entries whose last event is remembered for
// Batch.Busy: past it (a deploy writing more files than that within one
// batch), entries are not told busy, and the batch's directories are
// handed out again once quiet (clearPending). A var for tests.
var maxRecent = 1 << 16

// noteRecent remembers when an entry last had an event that may leave it
// half written, for Batch.Busy. A removal leaves nothing to read.
func (w *Watcher) noteRecent(rel string, ev fsnotify.Event) {
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		delete(w.recent, rel)
		return
	}
	if _, ok := w.recent[rel]; ok || len(w.recent) < maxRecent {
		w.recent[rel] = time.Now()
	} else {
		w.untold = true
	}
}

// peek builds the batch of what is pending.
func (w *Watcher) peek() Batch {
	b := Batch{Rescan: w.rescan, RootChanged: w.rootMoved, At: time.Now()}
	if !b.Rescan {
		b.Dirs = make([]string, 0, len(w.dirty))
		for d, names := range w.dirty {
			b.Dirs = append(b.Dirs, d)
			if names != nil {
				if b.Names == nil {
					b.Names = map[string][]string{}
				}
				b.Names[d] = slices.Sorted(maps.Keys(names))
			}
		}
		slices.Sort(b.Dirs)
	}
	// A rescan's too: the full build it brings takes a page changed
	// less than Settle before At for one still being written (the
	// kernel's coarse clock stamps it), and holds its version; handed out
	// again below (clearPending), it is read once quiet. Its events are
	// in this batch, and no other would bring it.
	b.Busy = w.busy()
	if len(w.restore) > 0 {
		b.Restore = slices.Sorted(maps.Keys(w.restore))
	}
	return b
}

// busy lists the entries with an event less than Settle ago, and the
// files open for writing (closes.go), by directory (Batch.Busy), or nil.
// Older events are forgotten as it goes: they can only grow older, so
// recent holds what the last Settle wrote, and peek, which runs on every
// event while a batch waits, costs that.
func (w *Watcher) busy() map[string][]string {
	var out map[string][]string
	add := func(rel string) {
		if out == nil {
			out = map[string][]string{}
		}
		dir := parentDir(rel)
		out[dir] = append(out[dir], path.Base(rel))
	}
	for rel, t := range w.recent {
		if time.Since(t) >= w.opts.Settle {
			delete(w.recent, rel)
			continue
		}
		add(rel)
	}
	for rel := range w.writing {
		if _, ok := w.recent[rel]; !ok {
			add(rel)
		}
	}
	for _, names := range out {
		slices.Sort(names)
	}
	return out
}

// maxNames is how many changed entries of one directory are tracked by
// name; past it the directory is re-read whole (syncthing uses 128 too).
const maxNames = 128

// mark makes a whole directory dirty.
func (w *Watcher) mark(dir string) {
	w.dirty[dir] = nil
	w.marks++
}

// markName makes one entry of a directory dirty.
func (w *Watcher) markName(dir, name string) {
	w.marks++
	names, ok := w.dirty[dir]
	switch {
	case ok && names == nil:
		return // the whole directory is dirty already
	case !ok:
		names = map[string]bool{}
		w.dirty[dir] = names
	}
	names[name] = true
	if len(names) > maxNames {
		w.dirty[dir] = nil
	}
}

// clearPending forgets what was handed out, but for the entries b found
// busy: they are pending again, to be handed out once quiet; those open
// for writing, once closed (noteWriting).
//
// A batch that could not name every busy entry (untold: more entries
// written within Settle than maxRecent) has its directories handed out
// again, or, a rescan, the whole tree: a publish takes a page changed
// less than Settle before the batch for one still being written and
// holds its version, and no event would bring it again.
func (w *Watcher) clearPending(b Batch) {
	clear(w.dirty)
	clear(w.restore)
	w.rescan, w.rootMoved = false, false
	if w.untold {
		w.untold = false
		w.rescan = b.Rescan
		for _, d := range b.Dirs {
			w.mark(d)
		}
	}
	for dir, names := range b.Busy {
		for _, n := range names {
			rel := path.Join(dir, n)
			if f, open := w.writing[rel]; open {
				f.held = true
				w.writing[rel] = f
				continue
			}
			w.markName(dir, n)
		}
	}
}

// pending says whether there is anything to hand out.
func (w *Watcher) pending() bool { return len(w.dirty) > 0 || w.rescan || len(w.restore) > 0 }
