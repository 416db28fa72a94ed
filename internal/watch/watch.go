// Package watch turns inotify events under a document root into batches of
// dirty directories.
//
// fsnotify has no recursive mode on Linux, so the watcher adds one watch per
// directory it does not skip (dot-directories and excluded trees are never
// watched: a git checkout in .git must not cost watches or wake builds). A
// new directory is watched first and then read, so files created in it
// before the watch existed are still reported; a renamed or removed
// directory drops every watch below it, so no stale path is ever reported.
//
// Events are hints, never truth: the consumer re-reads what a Batch names
// (directories, and for each, the entries that changed, up to 128). Events
// are coalesced into that set, which is handed out after Settle of quiet,
// and never later than MaxDelay after its first event. Whatever loses events becomes a Batch with Rescan set: a kernel
// queue overflow, a watch that cannot be added (the inotify limits), or the
// root itself vanishing and coming back. While watches are missing the
// watcher polls: it asks for a rescan every PollInterval and retries them.
//
// A process serving several sites shares one inotify instance among their
// Watchers (and whatever else watches a directory) through a Mux
// (Options.Mux): the kernel allows few instances per user, and many
// watches.
//
// Limits: changes on network filesystems made by other machines are never
// reported by inotify; run with a short periodic rescan there.
package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"
	"go.uber.org/zap"
)

// Options configure a Watcher.
type Options struct {
	Root     string        // absolute document root
	Settle   time.Duration // quiet time before a batch is handed out
	MaxDelay time.Duration // longest a change waits
	// SkipDir reports whether a directory (slash-separated, relative to
	// Root) is never watched nor reported.
	SkipDir func(rel string) bool
	// Ignore reports whether events for a base name are noise: sitemapd's
	// own outputs and temp files, editor swap files.
	Ignore func(name string) bool
	// Own reports whether a base name is one of sitemapd's own outputs
	// (not a temp file): one removed or renamed away by someone else (a
	// deploy's rsync --delete) is reported at once in Batch.Restore.
	Own func(name string) bool
	// Mux, if set, is the inotify instance to share (a process serving
	// several sites has one); otherwise the Watcher starts its own.
	Mux *Mux
	// PollInterval is how often a degraded watcher (watches missing, root
	// missing) asks for a rescan and retries. Default one minute.
	PollInterval time.Duration
}

// Batch is a set of directories whose pages may have changed.
type Batch struct {
	Dirs []string // relative to the root, slash-separated, sorted; "" is the root
	// Names lists, for some of Dirs, the only entries that changed; a
	// directory absent from Names must be re-read whole.
	Names  map[string][]string
	Rescan bool // events were lost: re-read everything
	// RootChanged says the root is another directory than before (it came
	// back after vanishing, or a symlinked root was swapped to a new
	// release): anything holding the old directory open must reopen it.
	RootChanged bool
	// Busy lists, by directory, the entries still being written when the
	// batch was handed out (an event on them less than Settle ago: the
	// batch was cut by MaxDelay): what they hold may be half a file, and
	// must not be taken as a version of the page. Each is handed out
	// again once it is quiet.
	Busy map[string][]string
	// At is when the batch was made: a change after it (a file's ctime
	// after it) is not in it, and its events will bring another batch.
	At time.Time
	// Restore lists the directories in which one of sitemapd's own files
	// (Options.Own) was removed or renamed away. Such a batch is handed
	// out at once, not after Settle: a reader must find the file back
	// while the deploy that removed it goes on.
	Restore []string
}

// source is the part of *fsnotify.Watcher the watcher uses; tests replace
// it to inject overflows and limits.
type source interface {
	Add(name string) error
	Remove(name string) error
	Close() error
	events() <-chan fsnotify.Event
	errors() <-chan error
}

type fsnotifySource struct{ *fsnotify.Watcher }

func (s fsnotifySource) events() <-chan fsnotify.Event { return s.Events }
func (s fsnotifySource) errors() <-chan error          { return s.Errors }

// Watcher watches one document root. Run must be called once.
type Watcher struct {
	opts Options
	log  *zap.Logger
	src  source

	watched   map[string]bool // directories with a watch
	unwatched map[string]bool // directories whose watch could not be added
	count     atomic.Int64    // len(watched), readable from other goroutines
	degraded  atomic.Bool     // unwatched or rootGone, readable from other goroutines
	rootGone  bool
	rootReal  string    // the root with symlinks resolved, as last watched
	lastRetry time.Time // last retry of unwatched directories
	rootMoved bool      // RootChanged is pending

	dirty   map[string]map[string]bool // dir -> changed names; nil: the whole directory
	recent  map[string]time.Time       // entries' last events (root-relative), for Batch.Busy
	writing map[string]openFile        // files modified and not closed since (closes.go), for Batch.Busy
	closes  *closeSub                  // nil: no close events, quiet periods alone decide
	restore map[string]bool            // directories that lost an own file (Batch.Restore)
	rescan  bool
	untold  bool // an entry's event was not remembered in recent (full): a batch may not name it busy (clearPending)
	marks   int  // bumped whenever dirty or rescan is set: tells real news from noise
	overflo atomic.Int64
}

// New creates a watcher and adds watches for the whole tree. Directories
// whose watch cannot be added are logged and polled; they are no error.
func New(opts Options, log *zap.Logger) (*Watcher, error) {
	if log == nil {
		log = zap.NewNop()
	}
	if opts.Mux != nil {
		return newWithSource(opts, log, opts.Mux.Source()).withCloses(opts.Mux.closesFor(log), false), nil
	}
	fw, err := fsnotify.NewBufferedWatcher(4096)
	if err != nil {
		return nil, fmt.Errorf("start inotify: %w%s", err, limitHint(err))
	}
	return newWithSource(opts, log, fsnotifySource{fw}).withCloses(startCloses(log), true), nil
}

// withCloses makes w wait for a file's writer to close it (closes.go),
// through c: the Mux's, or (own) one made for w alone. Without one (the
// system's inotify instances are used up), quiet periods alone decide, as
// they did before.
func (w *Watcher) withCloses(c *closes, own bool) *Watcher {
	if c == nil {
		return w
	}
	w.closes = c.subscribe(own)
	for dir := range w.watched {
		_ = w.closes.add(w.abs(dir))
	}
	return w
}

func newWithSource(opts Options, log *zap.Logger, src source) *Watcher {
	if opts.PollInterval <= 0 {
		opts.PollInterval = time.Minute
	}
	if opts.SkipDir == nil {
		opts.SkipDir = func(string) bool { return false }
	}
	if opts.Ignore == nil {
		opts.Ignore = func(string) bool { return false }
	}
	if opts.Own == nil {
		opts.Own = func(string) bool { return false }
	}
	w := &Watcher{
		opts: opts, log: log.Named("watch"), src: src,
		watched: map[string]bool{}, unwatched: map[string]bool{}, dirty: map[string]map[string]bool{},
		recent: map[string]time.Time{}, writing: map[string]openFile{}, restore: map[string]bool{},
	}
	w.rootReal, _ = filepath.EvalSymlinks(opts.Root)
	if st, err := os.Lstat(opts.Root); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		// A symlinked root (current -> releases/N) is swapped by replacing
		// the link, which only its parent directory sees.
		if err := src.Add(filepath.Dir(opts.Root)); err != nil {
			w.log.Warn("cannot watch the document root's parent; a symlink swap will only be seen by a rescan",
				zap.String("path", filepath.Dir(opts.Root)), zap.Error(err))
		}
	}
	w.addTree("", false)
	return w
}

// Watches is the number of directories watched now.
func (w *Watcher) Watches() int { return int(w.count.Load()) }

// Overflows is the number of kernel queue overflows seen.
func (w *Watcher) Overflows() int { return int(w.overflo.Load()) }

// Degraded reports whether some directories are polled instead of watched.
func (w *Watcher) Degraded() bool { return w.degraded.Load() }

// noteState publishes the counters other goroutines read.
func (w *Watcher) noteState() {
	w.count.Store(int64(len(w.watched)))
	w.degraded.Store(len(w.unwatched) > 0 || w.rootGone)
}

// Close releases the inotify instance, or its share of the Mux's.
func (w *Watcher) Close() error {
	w.closes.close()
	return w.src.Close()
}

// handle folds one event into the dirty set.
func (w *Watcher) handle(ev fsnotify.Event) {
	if ce := w.log.Check(zap.DebugLevel, "event"); ce != nil {
		ce.Write(zap.String("op", ev.Op.String()), zap.String("path", ev.Name))
	}
	rel, ok := w.rel(ev.Name)
	if !ok {
		return
	}
	if rel == "" {
		// The root itself (or, for a symlinked root, its link) changed.
		w.checkRoot()
		return
	}
	name := path.Base(rel)
	parent := path.Dir(rel)
	if parent == "." {
		parent = ""
	}
	if w.opts.Ignore(name) {
		if (ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)) && w.opts.Own(name) {
			// One of our files went (a deploy's rsync --delete, or our
			// own removal of a stale part: the consumer tells them apart).
			w.restore[parent] = true
			w.marks++
		}
		return // our own writes and temp files, editor swap files
	}
	// Chmod (IN_ATTRIB) is kept: touch and rsync -t change only the mtime,
	// which is a page's lastmod. A mode change rebuilds a group and writes
	// nothing.
	if name[0] == '.' || (parent != "" && w.opts.SkipDir(parent)) {
		return
	}
	switch {
	case ev.Has(fsnotify.Create):
		// Decide from the disk, not the event: the path may already be gone
		// or be something else.
		if st, err := os.Lstat(ev.Name); err == nil && st.IsDir() {
			w.addTree(rel, true)
		}
	case ev.Has(fsnotify.Chmod) && (w.watched[rel] || w.unwatched[rel]):
		// A directory's mode changed: it may have become unreadable, or
		// readable again. Read it whole, so that either is noticed (an
		// unreadable one fails its group, which is reported and retried)
		// rather than its pages being listed from memory.
		w.mark(rel)
	case ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename):
		// Only a directory has watches; one whose own watch failed is in
		// unwatched, so no scan of every watch is needed per removed file.
		if w.watched[rel] || w.unwatched[rel] {
			w.dropTree(rel)
			w.mark(rel) // its group may be gone
		}
	}
	w.markName(parent, name)
	w.noteRecent(rel, ev)
}

// Run watches until ctx is done, sending batches on out. It keeps reading
// events while a batch waits to be taken, so a slow consumer never makes
// the kernel queue overflow. It returns nil when ctx is canceled and does
// not close out.
func (w *Watcher) Run(ctx context.Context, out chan<- Batch) error {
	d := newDebounce()
	defer d.settle.Stop()
	poll := time.NewTicker(min(rootPoll, w.opts.PollInterval))
	w.lastRetry = time.Now()
	defer poll.Stop()

	d.arm(w, false) // New may have found unwatchable directories
	for {
		var send chan<- Batch
		if d.ready && w.pending() {
			send = out
		}
		var batch Batch
		if send != nil {
			batch = w.peek()
		}
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.src.events():
			if !ok {
				return errors.New("inotify event stream closed")
			}
			was, restoring := w.pending(), len(w.restore) > 0
			w.handle(ev)
			d.arm(w, was)
			if len(w.restore) > 0 && !restoring {
				d.ready = true // at once: a reader must find the file back
			}
		case err, ok := <-w.src.errors():
			if !ok {
				return errors.New("inotify error stream closed")
			}
			was := w.pending()
			w.streamError(err)
			d.arm(w, was)
		case <-d.settle.C:
			w.log.Debug("settled")
			d.ready = true
		case <-d.deadline:
			w.log.Debug("deadline")
			d.ready = true
		case ev := <-w.closes.eventsCh():
			was := w.pending()
			w.noteWriting(ev)
			d.arm(w, was)
		case <-w.closes.lostCh():
			was := w.pending()
			w.closesLost()
			d.arm(w, was)
		case <-poll.C:
			was := w.pending()
			w.expireWriting(maxWriting)
			w.poll()
			d.arm(w, was)
		case send <- batch:
			w.log.Debug("batch sent", zap.Int("dirs", len(batch.Dirs)))
			w.clearPending(batch)
			d.ready, d.deadline = false, nil
			d.settle.Stop()
			d.arm(w, false) // the busy entries, pending again
		}
	}
}

// debounce is when Run sends the next batch: Settle after the last
// change, or MaxDelay after the batch's first, whichever comes first.
type debounce struct {
	settle   *time.Timer
	deadline <-chan time.Time // MaxDelay after the first event of a batch
	ready    bool             // the batch is due
	seen     int              // the watcher's marks when last armed
}

func newDebounce() *debounce {
	d := &debounce{settle: time.NewTimer(time.Hour), seen: -1}
	d.settle.Stop()
	return d
}

// arm starts or extends the debounce, but only when something was
// marked since the last call: noise (our own writes, a poll that found
// nothing) must not push a batch back. wasPending says whether a batch
// was already gathering before what was just handled.
func (d *debounce) arm(w *Watcher, wasPending bool) {
	if !w.pending() || w.marks == d.seen {
		return
	}
	d.seen = w.marks
	if !wasPending {
		d.deadline = time.After(w.opts.MaxDelay)
	}
	d.settle.Reset(w.opts.Settle)
}

// streamError handles an error from inotify: events were lost, so
// everything is rescanned.
func (w *Watcher) streamError(err error) {
	if errors.Is(err, fsnotify.ErrEventOverflow) {
		w.overflo.Add(1)
		w.log.Warn("inotify queue overflowed: events were lost; rescanning everything (raise fs.inotify.max_queued_events if this repeats)")
	} else {
		w.log.Warn("inotify error; rescanning everything", zap.Error(err))
	}
	w.rescan = true
	w.marks++
}
