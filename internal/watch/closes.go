package watch

import (
	"errors"
	"maps"
	"os"
	"path"
	"slices"
	"sync"
	"time"
	"unsafe"

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

// closeEvent is a file (root-relative) written to, or closed after writing.
type closeEvent struct {
	rel    string
	closed bool
}

// closes is the inotify instance for writes and closes. Its zero value
// (nil) watches nothing: without it, quiet periods alone decide.
type closes struct {
	f      *os.File
	events chan closeEvent
	lost   chan struct{} // the queue overflowed: closes were lost
	done   chan struct{} // closed by close: read stops

	mu   sync.Mutex
	dirs map[int]string // watch descriptor -> directory (root-relative)
	wds  map[string]int
}

func newCloses() (*closes, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, err
	}
	c := &closes{
		// Non-blocking, through the runtime's poller: Close ends a Read.
		f:      os.NewFile(uintptr(fd), "inotify-closes"),
		events: make(chan closeEvent, 1024),
		lost:   make(chan struct{}, 1),
		done:   make(chan struct{}),
		dirs:   map[int]string{}, wds: map[string]int{},
	}
	go c.read()
	return c, nil
}

// add watches directory dir (root-relative), at abs.
func (c *closes) add(dir, abs string) error {
	if c == nil {
		return nil
	}
	wd, err := unix.InotifyAddWatch(int(c.f.Fd()), abs, unix.IN_MODIFY|unix.IN_CLOSE_WRITE|unix.IN_ONLYDIR)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.dirs[wd], c.wds[dir] = dir, wd
	c.mu.Unlock()
	return nil
}

// remove stops watching dir.
func (c *closes) remove(dir string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	wd, ok := c.wds[dir]
	delete(c.wds, dir)
	delete(c.dirs, wd)
	c.mu.Unlock()
	if ok {
		_, _ = unix.InotifyRmWatch(int(c.f.Fd()), uint32(wd)) // fails when the kernel dropped it already
	}
}

func (c *closes) close() {
	if c != nil {
		close(c.done)
		c.f.Close()
	}
}

// eventsCh and lostCh are c's channels, nil (never ready) for no c.
func (c *closes) eventsCh() <-chan closeEvent {
	if c == nil {
		return nil
	}
	return c.events
}

func (c *closes) lostCh() <-chan struct{} {
	if c == nil {
		return nil
	}
	return c.lost
}

// read turns the instance's events into closeEvents until it is closed.
func (c *closes) read() {
	defer close(c.events)
	buf := make([]byte, 64<<10)
	for {
		n, err := c.f.Read(buf)
		if err != nil {
			if errors.Is(err, os.ErrClosed) {
				return
			}
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

func (c *closes) deliver(ev *unix.InotifyEvent, name []byte) {
	switch {
	case ev.Mask&unix.IN_Q_OVERFLOW != 0:
		select {
		case c.lost <- struct{}{}:
		default:
		}
		return
	case ev.Mask&unix.IN_IGNORED != 0:
		c.mu.Lock()
		if dir, ok := c.dirs[int(ev.Wd)]; ok && c.wds[dir] == int(ev.Wd) {
			delete(c.wds, dir)
		}
		delete(c.dirs, int(ev.Wd))
		c.mu.Unlock()
		return
	}
	for len(name) > 0 && name[len(name)-1] == 0 {
		name = name[:len(name)-1]
	}
	c.mu.Lock()
	dir, ok := c.dirs[int(ev.Wd)]
	c.mu.Unlock()
	if !ok || len(name) == 0 {
		return
	}
	select {
	case c.events <- closeEvent{rel: path.Join(dir, string(name)), closed: ev.Mask&unix.IN_CLOSE_WRITE != 0}:
	case <-c.done:
	}
}

// noteWriting folds a write or a close into what is open for writing. A
// close makes the file's directory dirty by its name: the events of its
// last writes may have been handed out while it was open.
func (w *Watcher) noteWriting(ev closeEvent) {
	name := path.Base(ev.rel)
	if w.opts.Ignore(name) || name[0] == '.' {
		return
	}
	if !ev.closed {
		if _, ok := w.writing[ev.rel]; !ok && len(w.writing) < maxRecent {
			w.writing[ev.rel] = time.Now()
		}
		return
	}
	if _, ok := w.writing[ev.rel]; !ok {
		return
	}
	delete(w.writing, ev.rel)
	w.markName(parentDir(ev.rel), name)
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
	for rel, t := range w.writing {
		if time.Since(t) >= age {
			delete(w.writing, rel)
			w.markName(parentDir(rel), path.Base(rel))
		}
	}
}

// writingNow lists the files held back as open for writing; Run's
// goroutine owns them, so only a test that knows it is quiet asks.
func (w *Watcher) writingNow() []string {
	return slices.Sorted(maps.Keys(w.writing))
}

// parentDir is rel's directory, "" for the root.
func parentDir(rel string) string {
	if d := path.Dir(rel); d != "." {
		return d
	}
	return ""
}
