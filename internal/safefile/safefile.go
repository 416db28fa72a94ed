// Package safefile opens the files sitemapd reads, locks and appends to in
// directories that other users can write: the document root (deploy users,
// CI jobs, web applications), the output tree, and state_dir. One rule for
// all of them, so that no file there can make sitemapd write through a
// planted link, block on a FIFO or a device, or read without end:
//
//   - Checked before it is opened: the path is first taken as an O_PATH
//     handle, which opens nothing, and only a regular file is then opened
//     for real, through that handle; a FIFO, socket, device or directory is
//     refused with an *Error naming the path and what it is, and no device
//     driver ever sees an open (a link to /dev/watchdog stays harmless).
//   - Non-blocking all the same (O_NONBLOCK), so that no open can hold the
//     goroutine, and SIGTERM is never stuck behind one.
//   - Bounded: ReadFile reads at most the limit its caller gives and says
//     when there was more (*TooLargeError, with the bytes read).
//   - Symlinks: never followed where sitemapd writes or locks (Lock,
//     Append, and reads of its own state with NoFollow): O_NOFOLLOW makes
//     the kernel refuse a link at the last component, with no window
//     between a check and the open. A file sitemapd writes or locks must
//     also have a single name (no hard link planted beside another file),
//     so that truncating it cannot reach a file of someone else's.
//     Reads of content the web server serves (robots.txt, extra_urls)
//     follow links, as nginx does (deploy tools link shared files into a
//     release), but still only to regular files.
//
// Files sitemapd replaces are never written through this package: they are
// created new and renamed into place (internal/publish, pagestore).
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// Links says whether the last component of a path may be a symlink.
type Links int

const (
	// NoFollow refuses a symlink: for sitemapd's own files (state, locks).
	NoFollow Links = iota
	// Follow opens what a symlink points at, if it is a regular file: for
	// content a web server serves, which follows links too.
	Follow
)

// ErrNotRegular is what Error wraps for anything but a regular file.
var ErrNotRegular = errors.New("not a regular file")

// ErrSymlink is what Error wraps for a symlink where none is followed.
var ErrSymlink = errors.New("a symlink, which sitemapd does not follow here")

// ErrLinked is what Error wraps for a file sitemapd would write or lock
// that has other names (hard links).
var ErrLinked = errors.New("has other names (hard links)")

// Error is a file refused by the rules of this package.
type Error struct {
	Path string
	Kind string // what the file is: "FIFO", "directory", "symlink", ...
	Err  error  // ErrNotRegular, ErrSymlink or ErrLinked
}

func (e *Error) Error() string {
	switch e.Err {
	case ErrSymlink:
		return fmt.Sprintf("%s is %s", e.Path, e.Err)
	case ErrLinked:
		return fmt.Sprintf("%s %s: refused, as writing it would write them too", e.Path, e.Err)
	}
	return fmt.Sprintf("%s is a %s, not a regular file: refused", e.Path, e.Kind)
}

func (e *Error) Unwrap() error { return e.Err }

// TooLargeError is a file larger than the limit its reader set.
type TooLargeError struct {
	Path  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %d bytes: only the first %d are read", e.Path, e.Limit, e.Limit)
}

// Open opens a regular file for reading, non-blocking, following a final
// symlink only with Follow.
func Open(path string, links Links) (*os.File, error) {
	flags := unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NONBLOCK
	if links == NoFollow {
		flags |= unix.O_NOFOLLOW
	}
	return open(path, flags, 0, false)
}

// ReadFile reads a regular file (see Open) up to limit bytes. A larger
// file gives its first limit bytes and a *TooLargeError; callers that, like
// Google with robots.txt, read only a prefix use the bytes and report the
// error as a warning.
func ReadFile(path string, limit int64, links Links) ([]byte, error) {
	f, err := Open(path, links)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(f, path, limit)
}

// ReadAll reads an open file (named path, for errors) up to limit bytes,
// as ReadFile does.
func ReadAll(f *os.File, path string, limit int64) ([]byte, error) {
	var size int64
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	buf := make([]byte, 0, min(size, limit)+1)
	for {
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return buf[:limit], &TooLargeError{Path: path, Limit: limit}
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, fmt.Errorf("read %s: %w", path, err)
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // grow
		}
	}
}

// Regular refuses an open file that is not a regular file, with an *Error
// naming it: for files opened by other means (an os.Root) with O_NONBLOCK.
func Regular(f *os.File) error {
	var st unix.Stat_t
	var serr error
	// Not f.Fd(), which would put the file back in blocking mode.
	rc, err := f.SyscallConn()
	if err == nil {
		err = rc.Control(func(fd uintptr) { serr = unix.Fstat(int(fd), &st) })
	}
	if err = errors.Join(err, serr); err != nil {
		return &fs.PathError{Op: "stat", Path: f.Name(), Err: err}
	}
	return check(&st, f.Name(), false)
}

// Lock opens a lock file for an flock, creating it (mode perm) if needed,
// never through a symlink, and only if it is a regular file with one name:
// the holder truncates and writes it.
func Lock(path string, perm fs.FileMode) (*os.File, error) {
	return open(path, unix.O_RDWR|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, perm, true)
}

// Append opens an existing regular file of one name for appending, never
// through a symlink.
func Append(path string) (*os.File, error) {
	return open(path, unix.O_RDWR|unix.O_APPEND|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0, true)
}

// open opens path with flags, refusing anything but a regular file (and,
// with single, one that has other names) before it is opened for real: the
// path is first opened with O_PATH, which opens nothing (a device's driver
// never sees it), its type checked on that handle, and that same inode then
// opened through /proc/self/fd. Where /proc is not mounted, the path is
// opened again and must be the same inode.
func open(path string, flags int, perm fs.FileMode, single bool) (*os.File, error) {
	for {
		pfd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC|(flags&unix.O_NOFOLLOW), 0)
		if err == unix.ENOENT && flags&unix.O_CREAT != 0 {
			fd, err := unix.Open(path, flags|unix.O_EXCL, uint32(perm.Perm()))
			if err == unix.EEXIST {
				continue // made by someone else since: check theirs
			}
			if err != nil {
				return nil, &fs.PathError{Op: "create", Path: path, Err: err}
			}
			return os.NewFile(uintptr(fd), path), nil
		}
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		f, err := reopen(pfd, path, flags&^unix.O_CREAT, single)
		unix.Close(pfd)
		return f, err
	}
}

// reopen checks the file pfd (an O_PATH handle on path) and opens it with
// flags (O_NOFOLLOW applies to path; the handle has been checked).
func reopen(pfd int, path string, flags int, single bool) (*os.File, error) {
	var st unix.Stat_t
	if err := unix.Fstat(pfd, &st); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if err := check(&st, path, single); err != nil {
		return nil, err
	}
	fd, err := unix.Open(fmt.Sprintf("/proc/self/fd/%d", pfd), flags&^unix.O_NOFOLLOW, 0)
	if err == unix.ENOENT {
		// No /proc: open the path again, and refuse it unless it is still
		// the inode checked.
		fd, err = unix.Open(path, flags, 0)
		var now unix.Stat_t
		if err == nil && (unix.Fstat(fd, &now) != nil || now.Dev != st.Dev || now.Ino != st.Ino) {
			unix.Close(fd)
			return nil, fmt.Errorf("open %s: the file was replaced while it was opened", path)
		}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// check refuses anything but a regular file, and with single one with
// other names.
func check(st *unix.Stat_t, path string, single bool) error {
	switch {
	case st.Mode&unix.S_IFMT == unix.S_IFLNK:
		return &Error{Path: path, Kind: "symlink", Err: ErrSymlink}
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		return &Error{Path: path, Kind: kind(st.Mode), Err: ErrNotRegular}
	case single && st.Nlink > 1:
		return &Error{Path: path, Kind: "file", Err: ErrLinked}
	}
	return nil
}

// kind names a file type for messages.
func kind(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFIFO:
		return "FIFO"
	case unix.S_IFSOCK:
		return "socket"
	case unix.S_IFCHR:
		return "character device"
	case unix.S_IFBLK:
		return "block device"
	case unix.S_IFDIR:
		return "directory"
	case unix.S_IFLNK:
		return "symlink"
	}
	return "special file"
}
