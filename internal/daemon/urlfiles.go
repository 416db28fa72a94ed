package daemon

import (
	"context"
	"path/filepath"
	"slices"
	"time"

	"github.com/fsnotify/fsnotify"
	"go.uber.org/zap"
)

// fileEvents is what watchURLFiles needs of an inotify watch: the
// process's one instance's share (watch.Mux's Source), or a test's fake.
type fileEvents interface {
	Add(dir string) error
	Events() <-chan fsnotify.Event
	Errors() <-chan error
	Close() error
}

// watchURLFiles reports changes of the extra_urls files, which usually
// live outside the document root (/etc/sitemapd/site.urls), through src:
// their directories are watched, not the files, since editors and deploy
// tools replace a file by renaming another over it, which ends a watch on
// the file itself. A batch names the files changed, once settle has passed
// without another change (at most maxDelay after the first), as the
// document root's watcher does. A directory that cannot be watched only
// costs the prompt updates of its files (a warning says so): full builds,
// the periodic rescan among them, read every file.
//
// The returned channel is nil without files; stop ends the watch and
// closes src, after which nothing is sent.
func watchURLFiles(ctx context.Context, src fileEvents, files []string, settle, maxDelay time.Duration, log *zap.Logger) (<-chan []string, func()) {
	if len(files) == 0 {
		src.Close()
		return nil, func() {}
	}
	for _, dir := range dirsOf(files) {
		if err := src.Add(dir); err != nil {
			log.Warn("cannot watch a directory of extra_urls files; their changes are published by full builds only (watch.rescan)",
				zap.String("dir", dir), zap.Error(err))
		}
	}
	out := make(chan []string)
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		settleURLFiles(wctx, src, files, settle, maxDelay, out)
	}()
	return out, func() {
		cancel()
		src.Close()
		<-done
	}
}

// dirsOf lists the directories of files, once each.
func dirsOf(files []string) []string {
	var dirs []string
	for _, f := range files {
		dirs = append(dirs, filepath.Dir(f))
	}
	slices.Sort(dirs)
	return slices.Compact(dirs)
}

// settleURLFiles gathers the events of src on files into batches and
// sends them on out, until ctx is done or src's streams end.
func settleURLFiles(ctx context.Context, src fileEvents, files []string, settle, maxDelay time.Duration, out chan<- []string) {
	var pending []string
	var quiet, deadline <-chan time.Time
	overdue := false // maxDelay has passed since the batch's first change
	for {
		var send chan<- []string
		if pending != nil && (quiet == nil || overdue) {
			send = out // settled: offer the batch until the loop takes it
		}
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-src.Events():
			if !ok {
				return
			}
			if !slices.Contains(files, ev.Name) {
				continue
			}
			if !slices.Contains(pending, ev.Name) {
				pending = append(pending, ev.Name)
			}
			if deadline == nil && !overdue {
				deadline = time.After(maxDelay)
			}
			quiet = time.After(settle)
		case _, ok := <-src.Errors():
			if !ok {
				return
			}
			// An overflow may have lost a change of any file: all of them.
			pending = slices.Clone(files)
			quiet = time.After(settle)
		case <-quiet:
			quiet = nil
		case <-deadline:
			deadline, overdue = nil, true
		case send <- pending:
			pending, quiet, deadline, overdue = nil, nil, nil, false
		}
	}
}
