// Package lock keeps one sitemapd process per output tree and state
// directory. A process that writes sitemaps (run, build) holds an flock on
// a file in the output root (OutputName) and one in state_dir (StateName),
// and writes in them who it is, so that the next one can say which
// process is in its way.
//
// flock is released by the kernel when the process dies, however it dies:
// a lock file left on disk is no lock. The files are never removed:
// removing one while another process opens it would let two processes
// hold "the" lock on two different files.
package lock

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/ctxtime"
	"github.com/sitemapd/sitemapd/internal/safefile"
)

// The lock files. OutputName is a dotfile: the walk never lists it, the
// watcher ignores it, nginx's usual rule hides it, and it is neither a
// sitemap nor a temp file of sitemapd's (publish.IsTemp).
const (
	OutputName = ".sitemapd.lock"
	StateName  = "sitemapd.lock"
)

// Holder is who holds a lock, as written in its file.
type Holder struct {
	PID     int
	Command string // "run" or "build"
	Config  string // the configuration file
}

func (h Holder) String() string {
	if h.PID == 0 {
		return "another sitemapd process"
	}
	s := fmt.Sprintf("sitemapd %s (pid %d", h.Command, h.PID)
	if h.Config != "" {
		s += ", config " + h.Config
	}
	return s + ")"
}

// Transient reports whether the holder ends on its own (a build), so that
// waiting for it makes sense; a daemon holds its lock until stopped.
func (h Holder) Transient() bool { return h.Command == "build" }

// HeldError reports a lock another process holds.
type HeldError struct {
	Path   string // the lock file
	Dir    string // what it guards: the output root or the state directory
	Holder Holder // PID 0 when its file does not say
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("%s already publishes %s (lock %s): one sitemapd per output tree and state directory",
		e.Holder, e.Dir, e.Path)
}

// Lock is one held lock file.
type Lock struct {
	f    *os.File
	path string
	dir  string
}

// Path is the lock file.
func (l *Lock) Path() string { return l.path }

// Close releases the lock.
func (l *Lock) Close() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// Acquire takes the lock file path (creating it) without waiting. If
// another process holds it, the error is a *HeldError naming it, as its
// file says. dir is what the lock guards, for messages.
//
// The file is never followed through a symlink and must be a regular file
// of one name (safefile.Lock): the holder truncates and writes it, and the
// output root is writable by deploy users, who could otherwise point it at
// any file the daemon's user may write.
//
// A directory the process cannot write (a root-owned docroot, a
// read-only mount) is an *AccessError naming it, the user and what to do,
// whether the lock file is there already or not.
func Acquire(path, dir string, me Holder) (*Lock, error) {
	f, writable, err := openLock(path, dir)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, &HeldError{Path: path, Dir: dir, Holder: readHolder(path)}
		}
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	if !writable {
		// Ours now, but in a directory we may not write, nothing it
		// guards could be written either: say so now, not as a failed
		// first build.
		if err := dirWritable(path); err != nil {
			f.Close()
			return nil, err
		}
		return &Lock{f: f, path: path, dir: dir}, nil
	}
	// Readable by all, whatever the umask: another user's sitemapd must
	// be able to open it to meet the lock (and read whose it is) rather
	// than fail on it.
	_ = f.Chmod(0o644)
	// Who holds it, for the next one to name. Not fatal: the lock is what
	// counts.
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(fmt.Sprintf("pid=%d\ncommand=%s\nconfig=%s\n", me.PID, me.Command, me.Config)), 0)
	return &Lock{f: f, path: path, dir: dir}, nil
}

// openLock opens (or creates) the lock file path, for writing when it
// may (writable).
func openLock(path, dir string) (f *os.File, writable bool, err error) {
	f, err = safefile.Lock(path, 0o644)
	if err == nil {
		return f, true, nil
	}
	if errors.Is(err, fs.ErrPermission) {
		// Someone else's lock file (a build run by another user): an
		// flock needs no write access, and theirs is in our way all the
		// same.
		f, err = meetOthers(path, err)
	}
	var denied *AccessError
	switch {
	case err == nil:
		return f, false, nil
	case errors.As(err, &denied):
		return nil, false, err // names the directory already
	case errors.Is(err, unix.EROFS):
		return nil, false, &AccessError{Op: "open lock file", Path: path, Dir: filepath.Dir(path), Key: keyFor(path), User: Me(), Err: err}
	}
	return nil, false, fmt.Errorf("lock %s: %w", dir, err)
}

// Held reports whether another process holds the lock file path, as a
// *HeldError naming it (dir is what it guards, for messages), and creates
// nothing: for `sitemapd check`, which writes nothing. No file is no lock.
//
// An flock cannot be tested without taking one: a shared lock is taken
// and dropped at once. It fails against a holder's exclusive lock; in the
// instant it is held, a sitemapd starting would find the lock taken and
// refuse to start. Call it only where one is most likely running already.
func Held(path, dir string) error {
	f, err := safefile.Open(path, safefile.NoFollow)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read lock %s: %w", dir, err)
	}
	defer f.Close() // drops the shared lock, if taken
	if err := unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB); err != nil {
		if errors.Is(err, unix.EWOULDBLOCK) {
			return &HeldError{Path: path, Dir: dir, Holder: readHolder(path)}
		}
		return fmt.Errorf("read lock %s: %w", dir, err)
	}
	return nil
}

// readHolder reads who holds a lock file. The holder writes it right after
// taking the lock: an empty file is read again for a moment.
func readHolder(path string) Holder {
	var h Holder
	for range 10 {
		b, _ := safefile.ReadFile(path, 4<<10, safefile.NoFollow)
		for _, line := range strings.Split(string(b), "\n") {
			k, v, _ := strings.Cut(line, "=")
			switch k {
			case "pid":
				h.PID, _ = strconv.Atoi(v)
			case "command":
				h.Command = v
			case "config":
				h.Config = v
			}
		}
		if h.PID != 0 {
			return h
		}
		time.Sleep(20 * time.Millisecond)
	}
	return h
}

// Set is the locks of one configuration.
type Set struct {
	locks []*Lock
}

// Paths returns the lock files of a configuration and the directories
// they guard: one in the output root, and one in state_dir when it exists
// or notify endpoints will make it (without either, no state is kept).
func Paths(cfg *config.Config) (files, dirs []string) {
	out := cfg.OutputRoot()
	files, dirs = []string{filepath.Join(out, OutputName)}, []string{out}
	if cfg.StateDir == "" {
		return files, dirs
	}
	if st, err := os.Stat(cfg.StateDir); (err == nil && st.IsDir()) || len(cfg.Notify.Endpoints) > 0 {
		files, dirs = append(files, filepath.Join(cfg.StateDir, StateName)), append(dirs, cfg.StateDir)
	}
	return files, dirs
}

// Options adjust TakeAll.
type Options struct {
	// Wait, if set, is called when a transient holder (a build) is in
	// the way: TakeAll then waits for it, polling, until ctx is done. A
	// daemon in the way is never waited for.
	Wait func(*HeldError)
	// Keep are locks already held, reused where they are the same file.
	Keep *Set
}

// TakeAll takes the locks of a configuration: the output root's, then
// state_dir's (creating state_dir, as the notifier would, when notify
// endpoints need it). On failure none is taken. Locks of o.Keep that are
// the same files are moved into the new set, on success only, rather than
// taken again; the caller closes what is left in o.Keep.
func TakeAll(ctx context.Context, cfg *config.Config, me Holder, o Options) (*Set, error) {
	files, dirs := Paths(cfg)
	s := &Set{}
	var reused []string
	for i, path := range files {
		if o.Keep.holds(path) {
			reused = append(reused, path)
			continue
		}
		if dirs[i] == cfg.StateDir && len(cfg.Notify.Endpoints) > 0 {
			if err := mkdirState(cfg.StateDir); err != nil {
				s.Close()
				return nil, err
			}
		}
		l, err := acquireWaiting(ctx, path, dirs[i], me, o.Wait)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.locks = append(s.locks, l)
	}
	for _, path := range reused {
		s.locks = append(s.locks, o.Keep.take(path))
	}
	return s, nil
}

func acquireWaiting(ctx context.Context, path, dir string, me Holder, wait func(*HeldError)) (*Lock, error) {
	told := false
	for {
		l, err := Acquire(path, dir, me)
		var held *HeldError
		if !errors.As(err, &held) || wait == nil || !held.Holder.Transient() {
			return l, err
		}
		if !told {
			wait(held)
			told = true
		}
		if err := ctxtime.Sleep(ctx, 200*time.Millisecond); err != nil {
			return nil, err
		}
	}
}

func (s *Set) holds(path string) bool {
	if s == nil {
		return false
	}
	for _, l := range s.locks {
		if l.path == path {
			return true
		}
	}
	return false
}

// take removes and returns the lock of path from s, if it holds it.
func (s *Set) take(path string) *Lock {
	if s == nil {
		return nil
	}
	for i, l := range s.locks {
		if l.path == path {
			s.locks = append(s.locks[:i], s.locks[i+1:]...)
			return l
		}
	}
	return nil
}

// Renew takes again the locks whose path is now another file: the output
// root is a symlink swapped to a new release (current -> releases/N), and
// the lock held is the old release's. A new lock is taken before the old
// one goes; on failure the old ones stay.
func (s *Set) Renew(me Holder) error {
	for i, l := range s.locks {
		var held, now unix.Stat_t
		if unix.Fstat(int(l.f.Fd()), &held) == nil && unix.Stat(l.path, &now) == nil &&
			held.Dev == now.Dev && held.Ino == now.Ino {
			continue
		}
		nl, err := Acquire(l.path, l.dir, me)
		if err != nil {
			return err
		}
		l.Close()
		s.locks[i] = nl
	}
	return nil
}

// Close releases every lock of the set.
func (s *Set) Close() error {
	if s == nil {
		return nil
	}
	var errs []error
	for _, l := range s.locks {
		errs = append(errs, l.Close())
	}
	s.locks = nil
	return errors.Join(errs...)
}
