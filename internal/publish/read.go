package publish

// The publisher's reads: non-blocking and of regular files only, as others
// may write the tree (safefile's rule, through the publisher's os.Root).

import (
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sitemapd/sitemapd/internal/safefile"
)

// Replaced reports whether the directory the publisher holds open is no
// longer the one its path names: moved away, replaced, or a symlink on the
// way swapped to another. Its writes would then land out of sight.
func (p *Publisher) Replaced() bool {
	held, err := p.root.Stat(".")
	if err != nil {
		return true
	}
	now, err := os.Stat(p.dir)
	return err != nil || !os.SameFile(held, now)
}

// Open opens a regular file below the directory for reading. Others may
// write the tree: the open never blocks (a FIFO put in a file's place is
// refused, not waited on), and anything but a regular file is a
// *safefile.Error naming it.
func (p *Publisher) Open(name string) (*os.File, error) {
	f, err := p.root.OpenFile(name, os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if err := safefile.Regular(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadDirNames lists the names in a directory below the directory ("."
// for itself), unsorted.
func (p *Publisher) ReadDirNames(dir string) ([]string, error) {
	d, err := p.root.OpenFile(dir, os.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Readdirnames(-1)
}

// Stat describes a file below the directory, not following a final
// symlink.
func (p *Publisher) Stat(name string) (fs.FileInfo, error) { return p.root.Lstat(name) }

// ReadFile reads a regular file below the directory (see Open), at most
// limit bytes: a larger file gives its first limit bytes and a
// *safefile.TooLargeError.
func (p *Publisher) ReadFile(name string, limit int64) ([]byte, error) {
	f, err := p.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return safefile.ReadAll(f, p.abs(name), limit)
}

// ModTime returns the modification time of an existing file.
func (p *Publisher) ModTime(name string) (time.Time, error) {
	st, err := p.root.Lstat(name)
	if err != nil {
		return time.Time{}, err
	}
	return st.ModTime(), nil
}
