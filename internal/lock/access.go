package lock

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/sitemapd/sitemapd/internal/safefile"
)

// AccessError is a directory the process cannot make its lock file or
// state_dir in: the most common first deployment is a docroot owned by
// root (Debian's /var/www/html) that the service user can read but not
// write. It names the path, the directory, the user and what to do,
// because the errno alone ("permission denied", or worse the ENOENT of a
// fallback open) leaves the operator guessing which of them is wrong.
type AccessError struct {
	Op   string // what was being done: "create lock file", "create state_dir"
	Path string // the file or directory that could not be made or opened
	Dir  string // the directory the user cannot write
	Key  string // the configuration key that moves it: output_dir or state_dir
	User User   // who cannot
	Err  error  // the cause, a permission error or EROFS
}

func (e *AccessError) Error() string {
	if errors.Is(e.Err, unix.EROFS) {
		return fmt.Sprintf("cannot %s %s: %s is on a read-only file system: under systemd, ProtectSystem=strict leaves only ReadWritePaths= writable: add %s there (systemctl edit sitemapd), or set %s to a writable directory",
			e.Op, e.Path, e.Dir, e.Dir, e.Key)
	}
	who := fmt.Sprintf("%s cannot write %s", e.User, e.Dir)
	if e.Path == e.Dir {
		who = fmt.Sprintf("%s may not", e.User)
	}
	return fmt.Sprintf("cannot %s %s: %s (%v): %s", e.Op, e.Path, who, cause(e.Err), Advice(e.User, e.Dir, e.Key))
}

func (e *AccessError) Unwrap() error { return e.Err }

// cause is the errno of a path error, whose path the message names already.
func cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Advice says how to let u write dir, or where else to point key (output_dir
// or state_dir). ACLs, as the man page's PERMISSIONS says, rather than a
// group: making a docroot group-writable for www-data lets every web worker
// write every page.
func Advice(u User, dir, key string) string {
	return fmt.Sprintf("give it write access, e.g. sudo setfacl -m u:%s:rwx %s (man sitemapd, PERMISSIONS), or set %s to a directory it can write",
		u.ACLName(), dir, key)
}

// User is a user as messages name it.
type User struct {
	Name string // "" when the uid has no passwd entry (containers)
	UID  int
}

// Me is the user the process runs as (its effective uid: that is what the
// kernel checks).
func Me() User {
	uid := os.Geteuid()
	u := User{UID: uid}
	if pw, err := user.LookupId(strconv.Itoa(uid)); err == nil {
		u.Name = pw.Username
	}
	return u
}

// String names u for messages: "user sitemapd (uid 998)", or "uid 998"
// without a name.
func (u User) String() string {
	if u.Name == "" {
		return fmt.Sprintf("uid %d", u.UID)
	}
	return fmt.Sprintf("user %s (uid %d)", u.Name, u.UID)
}

// ACLName is how setfacl names u: its name, or its uid without one.
func (u User) ACLName() string {
	if u.Name == "" {
		return strconv.Itoa(u.UID)
	}
	return u.Name
}

// keyFor is the configuration key that moves the directory of a lock file.
func keyFor(path string) string {
	if filepath.Base(path) == StateName {
		return "state_dir"
	}
	return "output_dir"
}

// meetOthers opens an existing lock file read-only, after opening it for
// writing (or creating it) was refused with denied: someone else's lock
// file (a build run by another user), whose flock is in our way all the
// same. When it cannot be opened either, the error says why from denied:
// the ENOENT of a file that was never made would hide the real cause.
func meetOthers(path string, denied error) (*os.File, error) {
	f, err := safefile.Open(path, safefile.NoFollow)
	var refused *safefile.Error
	if err == nil || errors.As(err, &refused) {
		return f, err
	}
	op := "open lock file"
	if errors.Is(err, fs.ErrNotExist) {
		op = "create lock file"
	}
	return nil, &AccessError{Op: op, Path: path, Dir: filepath.Dir(path), Key: keyFor(path), User: Me(), Err: denied}
}

// dirWritable refuses a lock met in a directory the process cannot
// write: it holds the lock, but could write nothing it guards (no
// sitemap, no state), and saying so now beats a failed first build.
func dirWritable(path string) error {
	dir := filepath.Dir(path)
	err := unix.Faccessat(unix.AT_FDCWD, dir, unix.W_OK|unix.X_OK, unix.AT_EACCESS)
	if err == nil {
		return nil
	}
	op := "write sitemaps in"
	if keyFor(path) == "state_dir" {
		op = "keep state in"
	}
	return &AccessError{Op: op, Path: dir, Dir: dir, Key: keyFor(path), User: Me(), Err: &fs.PathError{Op: "access", Path: dir, Err: err}}
}

// mkdirState creates state_dir, saying who cannot write which parent when
// it cannot.
func mkdirState(dir string) error {
	err := os.MkdirAll(dir, 0o700)
	var pe *fs.PathError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &pe) && (errors.Is(err, fs.ErrPermission) || errors.Is(err, unix.EROFS)):
		// pe.Path is the directory mkdir could not make: its parent is
		// the one to open up.
		return &AccessError{Op: "create state_dir", Path: dir, Dir: filepath.Dir(pe.Path), Key: "state_dir", User: Me(), Err: err}
	}
	return fmt.Errorf("create state directory: %w", err)
}
