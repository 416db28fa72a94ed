package watch

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/fsnotify/fsnotify"
	"go.uber.org/zap"
)

// Mux shares one inotify instance among every watcher of a process: each
// site's Watcher, the configuration's watch, anything else that watches a
// directory. The kernel allows few instances per user
// (fs.inotify.max_user_instances, 128 by default) and many watches, so a
// process serving 200 sites must not take one per site.
//
// Each user takes a Source and adds the paths it watches; the Mux hands
// it every event on those paths (an entry of a directory it watches, or
// the path itself). A path several Sources watch is watched once and
// removed when the last of them removes it. A Source whose consumer falls
// behind by more than its queue loses events as a kernel queue would: it
// gets fsnotify.ErrEventOverflow (a Watcher rescans its tree), and no
// other Source waits for it.
type Mux struct {
	fw  *fsnotify.Watcher
	log *zap.Logger

	// kmu orders the kernel's watch changes (Add, Remove); mu guards
	// the maps, and is never held across a call into fsnotify, whose
	// reader may wait for ours while it holds its own lock.
	kmu    sync.Mutex
	mu     sync.Mutex
	byPath map[string][]*Source // the Sources watching each path
	all    map[*Source]struct{}
	done   chan struct{} // closed when the reader has stopped

	// closes is the instance for files closed after writing (closes.go),
	// made at the first Watcher's need, or nil when it could not be.
	closes      *closes
	closesTried bool
}

// closesFor returns the Mux's instance for closes, or nil (logged once)
// when none can be had.
func (m *Mux) closesFor(log *zap.Logger) *closes {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.closesTried {
		m.closesTried = true
		m.closes = startCloses(log)
	}
	return m.closes
}

// sourceQueue is how many events wait for a Source's consumer before it
// loses them (and is told so).
const sourceQueue = 1024

// ErrClosed is returned by Source.Add after Close of the Source or the Mux.
var ErrClosed = errors.New("watch: closed")

// NewMux starts an inotify instance; Close releases it.
func NewMux(log *zap.Logger) (*Mux, error) {
	if log == nil {
		log = zap.NewNop()
	}
	fw, err := fsnotify.NewBufferedWatcher(4096)
	if err != nil {
		return nil, fmt.Errorf("start inotify: %w%s", err, limitHint(err))
	}
	m := &Mux{fw: fw, log: log.Named("watch"), byPath: map[string][]*Source{}, all: map[*Source]struct{}{}, done: make(chan struct{})}
	go m.read()
	return m, nil
}

// Close releases the inotify instance; every Source's streams end.
func (m *Mux) Close() error {
	m.mu.Lock()
	if m.closes != nil {
		m.closes.close()
	}
	m.mu.Unlock()
	err := m.fw.Close()
	<-m.done
	return err
}

// Watches is how many paths the instance watches for all its Sources.
func (m *Mux) Watches() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.byPath)
}

func (m *Mux) read() {
	defer func() {
		m.mu.Lock()
		for s := range m.all {
			s.end()
		}
		m.mu.Unlock()
		close(m.done)
	}()
	for {
		select {
		case ev, ok := <-m.fw.Events:
			if !ok {
				return
			}
			m.dispatch(ev)
		case err, ok := <-m.fw.Errors:
			if !ok {
				return
			}
			m.mu.Lock()
			for s := range m.all {
				s.fail(err)
			}
			m.mu.Unlock()
		}
	}
}

// dispatch hands ev to every Source watching its directory or itself.
func (m *Mux) dispatch(ev fsnotify.Event) {
	m.mu.Lock()
	defer m.mu.Unlock()
	self := m.byPath[ev.Name]
	for _, s := range self {
		s.deliver(ev)
	}
	for _, s := range m.byPath[filepath.Dir(ev.Name)] {
		if !contains(self, s) {
			s.deliver(ev)
		}
	}
}

func contains(ss []*Source, s *Source) bool {
	for _, o := range ss {
		if o == s {
			return true
		}
	}
	return false
}

// Source returns a new user of the instance, watching nothing yet.
func (m *Mux) Source() *Source {
	s := &Source{m: m, paths: map[string]bool{}, ev: make(chan fsnotify.Event, sourceQueue), errc: make(chan error, 1)}
	m.mu.Lock()
	defer m.mu.Unlock()
	select {
	case <-m.done:
		s.end()
	default:
		m.all[s] = struct{}{}
	}
	return s
}

// Source is one user's view of a Mux: the events of the paths it added.
// Its methods may be called from any goroutine.
type Source struct {
	m      *Mux
	paths  map[string]bool // guarded by m.mu
	ev     chan fsnotify.Event
	errc   chan error
	closed bool // guarded by m.mu
}

// Add watches path (a directory: its entries and itself) for this Source.
// It asks the kernel each time, even for a path the Mux watches already:
// a directory removed and made again has lost its watch.
func (s *Source) Add(path string) error {
	m := s.m
	m.kmu.Lock()
	defer m.kmu.Unlock()
	m.mu.Lock()
	closed := s.closed
	m.mu.Unlock()
	if closed {
		return ErrClosed
	}
	if err := m.fw.Add(path); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !s.paths[path] {
		s.paths[path] = true
		m.byPath[path] = append(m.byPath[path], s)
	}
	return nil
}

// Remove stops watching path for this Source; the kernel's watch goes
// when no other Source has it. An error says the path was not watched.
func (s *Source) Remove(path string) error {
	m := s.m
	m.kmu.Lock()
	defer m.kmu.Unlock()
	m.mu.Lock()
	if !s.paths[path] {
		m.mu.Unlock()
		return fmt.Errorf("remove watch %s: %w", path, fsnotify.ErrNonExistentWatch)
	}
	last := s.unregister(path)
	m.mu.Unlock()
	if last {
		return m.fw.Remove(path) // fails when the kernel dropped it already
	}
	return nil
}

// unregister forgets that s watches path, reporting whether no Source
// does any more; m.mu is held.
func (s *Source) unregister(path string) bool {
	m := s.m
	delete(s.paths, path)
	rest := m.byPath[path][:0]
	for _, o := range m.byPath[path] {
		if o != s {
			rest = append(rest, o)
		}
	}
	if len(rest) > 0 {
		m.byPath[path] = rest
		return false
	}
	delete(m.byPath, path)
	return true
}

// Close removes every watch of this Source and ends its streams; the Mux
// goes on for the others.
func (s *Source) Close() error {
	m := s.m
	m.kmu.Lock()
	defer m.kmu.Unlock()
	m.mu.Lock()
	if s.closed {
		m.mu.Unlock()
		return nil
	}
	var drop []string
	for p := range s.paths {
		if s.unregister(p) {
			drop = append(drop, p)
		}
	}
	delete(m.all, s)
	s.end()
	m.mu.Unlock()
	for _, p := range drop {
		_ = m.fw.Remove(p)
	}
	return nil
}

// Events delivers the events of the paths added; it is closed by Close.
func (s *Source) Events() <-chan fsnotify.Event { return s.ev }

// Errors delivers inotify's errors, and fsnotify.ErrEventOverflow when
// events were lost (the kernel's queue, or this Source's); it is closed
// by Close.
func (s *Source) Errors() <-chan error { return s.errc }

func (s *Source) events() <-chan fsnotify.Event { return s.ev }
func (s *Source) errors() <-chan error          { return s.errc }

// deliver queues ev, or loses it and says so; m.mu is held.
func (s *Source) deliver(ev fsnotify.Event) {
	if s.closed {
		return
	}
	select {
	case s.ev <- ev:
	default:
		s.fail(fsnotify.ErrEventOverflow)
	}
}

// fail queues err unless an error waits already: one is enough for a
// rescan. m.mu is held.
func (s *Source) fail(err error) {
	if s.closed {
		return
	}
	select {
	case s.errc <- err:
	default:
	}
}

// end closes the streams; m.mu is held.
func (s *Source) end() {
	if !s.closed {
		s.closed = true
		close(s.ev)
		close(s.errc)
	}
}
