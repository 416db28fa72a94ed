package watch

import (
	"os"
	"path/filepath"
	"time"

	"go.uber.org/zap"
)

// Degraded mode: a root that vanished or now points elsewhere, and the
// directories the kernel would not watch, looked for again on a timer.

// checkRoot re-resolves the root after an event on it: gone, replaced by
// another directory, or unchanged.
func (w *Watcher) checkRoot() {
	real, err := filepath.EvalSymlinks(w.opts.Root)
	switch {
	case err != nil:
		w.rootMissing()
	case real != w.rootReal && !w.rootGone:
		w.log.Info("document root now points elsewhere; rescanning",
			zap.String("root", w.opts.Root), zap.String("was", w.rootReal), zap.String("now", real))
		w.dropTree("")
		w.rootReal = real
		w.addTree("", false)
		w.rescan, w.rootMoved = true, true
		w.marks++
	}
}

// rootMissing drops every watch and waits, polling, for the root to return.
func (w *Watcher) rootMissing() {
	if !w.rootGone {
		w.log.Warn("document root vanished; keeping every sitemap and waiting for it to return",
			zap.String("root", w.opts.Root))
	}
	w.rootGone = true
	w.dropTree("") // also notes the state
	clear(w.dirty)
	w.rescan = false
}

// rootPoll is how often a missing root is looked for.
const rootPoll = time.Second

// poll retries what degraded mode lacks: the root (every rootPoll), and
// unwatched dirs (every PollInterval).
func (w *Watcher) poll() {
	if w.rootGone {
		if st, err := os.Stat(w.opts.Root); err != nil || !st.IsDir() {
			return
		}
		w.log.Info("document root is back; rescanning", zap.String("root", w.opts.Root))
		w.rootGone = false
		w.rootReal, _ = filepath.EvalSymlinks(w.opts.Root)
		w.addTree("", false) // also notes the state
		w.rescan, w.rootMoved = true, true
		w.marks++
		return
	}
	if len(w.unwatched) > 0 && time.Since(w.lastRetry) >= w.opts.PollInterval {
		w.lastRetry = time.Now()
		dirs := make([]string, 0, len(w.unwatched))
		for d := range w.unwatched {
			dirs = append(dirs, d)
		}
		for _, d := range dirs {
			w.addTree(d, false)
		}
		if len(w.unwatched) == 0 {
			w.log.Info("every directory is watched again")
		}
		w.rescan = true // polling: whatever changed meanwhile was not reported
		w.marks++
	}
}
