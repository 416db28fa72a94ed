package watch

import (
	"maps"
	"path"
	"slices"
	"time"

	"github.com/fsnotify/fsnotify"
)

// What a batch says beyond its directories: the entries still being
// written (Busy) and the directories that lost one of sitemapd's own
// files (Restore).

// maxRecent bounds the entries whose last event is remembered for
// Batch.Busy: past it (a deploy writing more files than that within one
// batch), entries are not told busy, as before there was Busy.
const maxRecent = 1 << 16

// noteRecent remembers when an entry last had an event that may leave it
// half written, for Batch.Busy. A removal leaves nothing to read.
func (w *Watcher) noteRecent(rel string, ev fsnotify.Event) {
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		delete(w.recent, rel)
		return
	}
	if _, ok := w.recent[rel]; ok || len(w.recent) < maxRecent {
		w.recent[rel] = time.Now()
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
		b.Busy = w.busy()
	}
	if len(w.restore) > 0 {
		b.Restore = slices.Sorted(maps.Keys(w.restore))
	}
	return b
}

// busy lists the entries with an event less than Settle ago, by
// directory (Batch.Busy), or nil. Older ones are forgotten as it goes:
// they can only grow older, so recent holds what the last Settle wrote,
// and peek, which runs on every event while a batch waits, costs that.
func (w *Watcher) busy() map[string][]string {
	var out map[string][]string
	for rel, t := range w.recent {
		if time.Since(t) >= w.opts.Settle {
			delete(w.recent, rel)
			continue
		}
		if out == nil {
			out = map[string][]string{}
		}
		dir := path.Dir(rel)
		if dir == "." {
			dir = ""
		}
		out[dir] = append(out[dir], path.Base(rel))
	}
	for _, names := range out {
		slices.Sort(names)
	}
	return out
}
