package watch

import (
	"os"
	"path"
	"path/filepath"
	"sync"
	"time"
	"unsafe"

	"go.uber.org/zap"
	"golang.org/x/sys/unix"
)

// A file being written is not a version of its page until its writer
// closes it: a writer held up mid-file longer than Settle (an rsync
// --inplace or an upload over a slow link, a stalled process) leaves half
// a page that a quiet period alone would take. fsnotify does not report
// inotify's IN_CLOSE_WRITE (its Unportable ops are not exported), so the
// watcher keeps an inotify instance of its own on the same directories
// for IN_MODIFY and IN_CLOSE_WRITE, which one queue keeps in order: a
// file modified and not closed since is open for writing (Batch.Busy)
// until it is closed, or maxWriting passes (a writer that holds a file
// open for good, a log, is taken as it is then).

// maxWriting is how long a file modified and not closed is held back.
const maxWriting = 10 * time.Minute

// closeEvent is a file written to, or closed after writing: its path is
// absolute until the Watcher makes it root-relative.
type closeEvent struct {
	rel    string
	closed bool
}

// closes is an inotify instance for writes and closes, shared by every
// Watcher of a process as the Mux shares fsnotify's (the kernel allows
// few instances a user). Each Watcher has a closeSub.
type closes struct {
	f    *os.File
	done chan struct{} // closed by close: read stops

	mu   sync.Mutex
	dirs map[int]string         // watch descriptor -> directory
	wds  map[string]int         // directory -> watch descriptor
	subs map[string][]*closeSub // directory -> the subscriptions watching it
}

// startCloses starts an instance, or returns nil and says why: without
// one, quiet periods alone decide, as they did before.
func startCloses(log *zap.Logger) *closes {
	c, err := newCloses()
	if err != nil {
		log.Warn("cannot watch for files closed after writing; a writer quiet for watch.settle is taken as done"+limitHint(err), zap.Error(err))
		return nil
	}
	return c
}

func newCloses() (*closes, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, err
	}
	c := &closes{
		// Non-blocking, through the runtime's poller: Close ends a Read.
		f:    os.NewFile(uintptr(fd), "inotify-closes"),
		done: make(chan struct{}),
		dirs: map[int]string{}, wds: map[string]int{}, subs: map[string][]*closeSub{},
	}
	go c.read()
	return c, nil
}

// closeSub is one Watcher's view of a closes: the events of the
// directories it added. A nil closeSub watches nothing: without it,
// quiet periods alone decide.
type closeSub struct {
	c      *closes
	own    bool // the Watcher's own instance, closed with it
	events chan closeEvent
	lost   chan struct{} // the queue overflowed: closes were lost
	dirs   map[string]bool
}

func (c *closes) subscribe(own bool) *closeSub {
	return &closeSub{c: c, own: own, events: make(chan closeEvent, sourceQueue), lost: make(chan struct{}, 1), dirs: map[string]bool{}}
}

// add watches directory dir (absolute) for s.
func (s *closeSub) add(dir string) error {
	if s == nil {
		return nil
	}
	c := s.c
	wd, err := unix.InotifyAddWatch(int(c.f.Fd()), dir, unix.IN_MODIFY|unix.IN_CLOSE_WRITE|unix.IN_ONLYDIR)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dirs[wd], c.wds[dir] = dir, wd
	if !s.dirs[dir] {
		s.dirs[dir] = true
		c.subs[dir] = append(c.subs[dir], s)
	}
	return nil
}

// remove stops watching dir for s; the kernel's watch goes with its last
// subscription.
func (s *closeSub) remove(dir string) {
	if s == nil || !s.dirs[dir] {
		return
	}
	c := s.c
	c.mu.Lock()
	last := s.unregister(dir)
	wd, ok := c.wds[dir]
	if last && ok {
		delete(c.wds, dir)
		delete(c.dirs, wd)
	}
	c.mu.Unlock()
	if last && ok {
		_, _ = unix.InotifyRmWatch(int(c.f.Fd()), uint32(wd)) // fails when the kernel dropped it already
	}
}

// unregister forgets that s watches dir, reporting whether none does any
// more; c.mu is held.
func (s *closeSub) unregister(dir string) bool {
	delete(s.dirs, dir)
	rest := s.c.subs[dir][:0]
	for _, o := range s.c.subs[dir] {
		if o != s {
			rest = append(rest, o)
		}
	}
	if len(rest) > 0 {
		s.c.subs[dir] = rest
		return false
	}
	delete(s.c.subs, dir)
	return true
}

// close ends s's watches, and the instance if it is s's own.
func (s *closeSub) close() {
	if s == nil {
		return
	}
	for dir := range s.dirs {
		s.remove(dir)
	}
	if s.own {
		s.c.close()
	}
}

func (c *closes) close() {
	select {
	case <-c.done:
	default:
		close(c.done)
		c.f.Close()
	}
}

// eventsCh and lostCh are s's channels, nil (never ready) for no s.
func (s *closeSub) eventsCh() <-chan closeEvent {
	if s == nil {
		return nil
	}
	return s.events
}

func (s *closeSub) lostCh() <-chan struct{} {
	if s == nil {
		return nil
	}
	return s.lost
}

// read turns the instance's events into closeEvents until it is closed.
func (c *closes) read() {
	buf := make([]byte, 64<<10)
	for {
		n, err := c.f.Read(buf)
		if err != nil {
			select {
			case <-c.done:
				return
			default:
				continue // EINTR and the like
			}
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
			off += unix.SizeofInotifyEvent + int(ev.Len)
			c.deliver(ev, name)
		}
	}
}

// deliver hands an event to the subscriptions of its directory, without
// waiting: one whose Watcher falls behind loses it, and is told so.
func (c *closes) deliver(ev *unix.InotifyEvent, name []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
		for _, subs := range c.subs {
			for _, s := range subs {
				s.overflow()
			}
		}
		return
	}
	dir, ok := c.dirs[int(ev.Wd)]
	if ev.Mask&unix.IN_IGNORED != 0 {
		delete(c.dirs, int(ev.Wd))
		if c.wds[dir] == int(ev.Wd) {
			delete(c.wds, dir)
		}
		return
	}
	for len(name) > 0 && name[len(name)-1] == 0 {
		name = name[:len(name)-1]
	}
	if !ok || len(name) == 0 {
		return
	}
	e := closeEvent{rel: filepath.Join(dir, string(name)), closed: ev.Mask&unix.IN_CLOSE_WRITE != 0}
	for _, s := range c.subs[dir] {
		select {
		case s.events <- e:
		default:
			s.overflow()
		}
	}
}

func (s *closeSub) overflow() {
	select {
	case s.lost <- struct{}{}:
	default:
	}
}

// openFile is a file modified and not closed since.
type openFile struct {
	since time.Time
	held  bool // a batch handed it out busy, and did not keep it pending
}

// noteWriting folds a write or a close into what is open for writing. A
// close of a file that a batch held back makes it pending again, by
// name; any other's writes made it pending already.
func (w *Watcher) noteWriting(ev closeEvent) {
	rel, ok := w.rel(ev.rel)
	if !ok || rel == "" {
		return
	}
	name := path.Base(rel)
	if w.opts.Ignore(name) || name[0] == '.' {
		return
	}
	f, open := w.writing[rel]
	switch {
	case !ev.closed && !open && len(w.writing) < maxRecent:
		w.writing[rel] = openFile{since: time.Now()}
	case ev.closed && open:
		delete(w.writing, rel)
		if f.held {
			w.markName(parentDir(rel), name)
		}
	}
}

// closesLost handles an overflow of the closes' queue: every file held
// back as open is taken as closed.
func (w *Watcher) closesLost() {
	w.log.Warn("inotify queue of file closes overflowed: files being written are read as they are")
	w.expireWriting(0)
}

// expireWriting releases the files modified and not closed for longer
// than age: they are read as they are.
func (w *Watcher) expireWriting(age time.Duration) {
	for rel, f := range w.writing {
		if time.Since(f.since) >= age {
			delete(w.writing, rel)
			w.markName(parentDir(rel), path.Base(rel))
		}
	}
}

// parentDir is rel's directory, "" for the root.
func parentDir(rel string) string {
	if d := path.Dir(rel); d != "." {
		return d
	}
	return ""
}
