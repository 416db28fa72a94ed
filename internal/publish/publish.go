// Package publish writes files atomically into one directory tree, for
// readers (nginx, crawlers) that may open them at any moment.
//
// A file is replaced by writing a temporary file in the same directory,
// setting its mode explicitly (so the umask never leaves it unreadable),
// making it durable and renaming it over the target, then syncing the
// directory. A reader sees the old bytes or the new ones, never a mix.
// Writes are grouped in a Batch so that making many files durable costs two
// filesystem-wide syncs instead of one fsync per file (small batches, where
// that would not pay, fsync their few files; see SyncAuto). Identical bytes are
// never rewritten, so a file's mtime is the time its content last changed.
//
// The publisher never replaces or removes a file it did not write: an
// existing target must pass the Owned check (for sitemaps, a marker comment
// in the file) or the operation fails with a *ForeignError naming the file.
// All paths are relative to the directory given to Open and are resolved
// through os.Root, so a symlink cannot make a write land outside it.
//
// sitemapd's own state files (state_dir's, and the record of text
// sitemaps in the output) are written here too (state.go): replacing one
// is what a Batch does to a sitemap, so they share its one implementation
// instead of a copy of the recipe in each owner. WriteFile writes one
// whole, Create streams one too large to hold (the page store), a
// directory replaced since it was opened is refused, and Quarantine is the
// one way a damaged one is moved aside.
package publish

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sitemapd/sitemapd/internal/safefile"
)

// Temporary files are hidden (a leading dot keeps them out of sitemaps and,
// with the usual nginx rule, out of reach) and carry a fixed prefix and
// suffix so that stale ones left by a crash can be recognised and removed.
const (
	TempPrefix = ".sitemapd-"
	TempSuffix = ".tmp"
)

// BatchSyncMin is the smallest batch SyncAuto makes durable with syncfs.
const BatchSyncMin = 8

// IsTemp reports whether a base name is one of the publisher's temp files.
func IsTemp(name string) bool {
	return strings.HasPrefix(name, TempPrefix) && strings.HasSuffix(name, TempSuffix)
}

// SyncMode chooses how a Batch makes its files durable.
type SyncMode int

const (
	// SyncAuto, the default, uses SyncPerFile for batches of fewer than
	// BatchSyncMin files and SyncBatch for larger ones. syncfs also waits
	// for every other process's dirty data on the filesystem, so for the
	// one or two files of an incremental publish it can cost far more than
	// the fsyncs it saves (seconds, next to a busy writer); for the
	// thousands of files of a full build it saves thousands of fsyncs.
	SyncAuto SyncMode = iota
	// SyncBatch flushes the whole filesystem once before the renames
	// (syncfs) and once after them, whatever the number of files.
	SyncBatch
	// SyncPerFile fsyncs every temp file before its rename and every
	// directory after; the textbook recipe, kept for comparison.
	SyncPerFile
	// SyncNone makes nothing durable: the baseline benchmarks measure the
	// cost of durability against. Never the default.
	SyncNone
)

// Options configure a Publisher.
type Options struct {
	// Mode is the permission of every file written.
	Mode fs.FileMode
	// Owned reports whether an existing file, whose first bytes are head,
	// was written by us. Nil means every regular file is ours.
	Owned func(name string, head []byte) bool
	// NotOwned says, in the error for a file Owned rejects, why it is not
	// ours (default: "it was not written by sitemapd").
	NotOwned string
	// HeadSize is how many leading bytes Owned is shown (default 512).
	HeadSize int
	Sync     SyncMode
	// CreateDirs makes Put create missing parent directories (a separate
	// output tree mirrors the document root). Without it, a missing parent
	// fails the Put with an fs.ErrNotExist error: a directory of the
	// document root that is gone must stay gone, not come back holding a
	// sitemap.
	CreateDirs bool
	// DirMode is the permission of the directories CreateDirs makes, set
	// explicitly so that the umask never leaves them closed to the web
	// server. Zero means DirModeFor(Mode): 0755 for files 0644.
	DirMode fs.FileMode
}

// DirModeFor is the mode of a directory holding files of mode m: m plus
// the search (x) bit of every class that may read them (0644 → 0755,
// 0640 → 0750, 0600 → 0700).
func DirModeFor(m fs.FileMode) fs.FileMode {
	m &= fs.ModePerm
	return m | (m&0o444)>>2
}

// ForeignError reports a file the publisher refused to replace or remove.
type ForeignError struct {
	Path string
	Why  string
}

func (e *ForeignError) Error() string {
	return fmt.Sprintf("refusing to replace %s: %s; move it away or change the output name", e.Path, e.Why)
}

// Publisher writes files below one directory.
type Publisher struct {
	dir   string
	root  *os.Root
	opts  Options
	steps atomic.Int64 // see Steps
	// beforeRename runs after the data of a Commit is durable, before its
	// first rename (tests kill the process there: export_test.go).
	beforeRename func()
}

// Steps counts what the publisher has done: temp files written, files
// renamed into place or removed, syncs. It grows while a publish makes
// progress and may be read from any goroutine (a watchdog's).
func (p *Publisher) Steps() int64 { return p.steps.Load() }

// Open returns a Publisher for dir, which must exist.
func Open(dir string, opts Options) (*Publisher, error) {
	p, err := newPublisher(dir, opts)
	if err != nil {
		return nil, fmt.Errorf("open output directory: %w", err)
	}
	return p, nil
}

func newPublisher(dir string, opts Options) (*Publisher, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	if opts.NotOwned == "" {
		opts.NotOwned = "it was not written by sitemapd"
	}
	if opts.HeadSize <= 0 {
		opts.HeadSize = 512
	}
	if opts.Mode == 0 {
		opts.Mode = 0o644
	}
	if opts.DirMode == 0 {
		opts.DirMode = DirModeFor(opts.Mode)
	}
	return &Publisher{dir: dir, root: r, opts: opts}, nil
}

// Close releases the directory handle.
func (p *Publisher) Close() error { return p.root.Close() }

// Dir is the directory the publisher writes below.
func (p *Publisher) Dir() string { return p.dir }

func (p *Publisher) abs(name string) string { return path.Join(p.dir, name) }

// Check inspects an existing target, changing nothing: it reports whether
// its bytes equal data, and fails with a *ForeignError if it is not ours.
// A missing target gives (false, nil). Put and Remove check so; a dry run
// asks it what they would meet.
func (p *Publisher) Check(name string, data []byte) (same bool, err error) {
	st, err := p.root.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("inspect %s: %w", p.abs(name), err)
	}
	if !st.Mode().IsRegular() {
		return false, &ForeignError{Path: p.abs(name), Why: "it is a " + kind(st.Mode()) + ", not a file sitemapd wrote"}
	}
	f, err := p.Open(name)
	var notRegular *safefile.Error
	if errors.As(err, &notRegular) {
		// Swapped for something else since the Lstat above.
		return false, &ForeignError{Path: p.abs(name), Why: "it is a " + notRegular.Kind + ", not a file sitemapd wrote"}
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", p.abs(name), err)
	}
	defer f.Close()
	head := make([]byte, p.opts.HeadSize)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return false, fmt.Errorf("read %s: %w", p.abs(name), err)
	}
	head = head[:n]
	if p.opts.Owned != nil && !p.opts.Owned(name, head) {
		return false, &ForeignError{Path: p.abs(name), Why: p.opts.NotOwned}
	}
	if data == nil || st.Size() != int64(len(data)) || !bytes.Equal(head, data[:n]) {
		return false, nil
	}
	// Compared a block at a time: a part of a large sitemap is megabytes,
	// and reading it whole would double what a change allocates.
	buf := make([]byte, max(1, min(len(data)-n, 64<<10)))
	for rest := data[n:]; len(rest) > 0; {
		m, err := io.ReadFull(f, buf[:min(len(buf), len(rest))])
		if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
			return false, fmt.Errorf("read %s: %w", p.abs(name), err)
		}
		if m == 0 || !bytes.Equal(buf[:m], rest[:m]) {
			return false, nil
		}
		rest = rest[m:]
	}
	// The file may have grown since it was stated.
	m, _ := f.Read(buf[:min(len(buf), 1)])
	return m == 0, nil
}

func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m.IsDir():
		return "directory"
	default:
		return "special file"
	}
}

// Owned reports whether name exists and is a file we wrote.
func (p *Publisher) Owned(name string) (bool, error) {
	if _, err := p.root.Lstat(name); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, err
	}
	_, err := p.Check(name, nil)
	var fe *ForeignError
	if errors.As(err, &fe) {
		return false, nil
	}
	return err == nil, err
}

// Remove deletes a file we wrote and reports whether there was one. A
// missing file is not an error; a foreign one is a *ForeignError and stays.
func (p *Publisher) Remove(name string) (bool, error) {
	if _, err := p.root.Lstat(name); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if _, err := p.Check(name, nil); err != nil {
		return false, err
	}
	if err := p.root.Remove(name); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, fmt.Errorf("remove %s: %w", p.abs(name), err)
	}
	p.steps.Add(1)
	return true, p.syncDir(path.Dir(name))
}

// RemoveTemp deletes a leftover temp file (see IsTemp) older than before.
func (p *Publisher) RemoveTemp(name string, before time.Time) error {
	if !IsTemp(path.Base(name)) {
		return fmt.Errorf("remove %s: not a sitemapd temp file", p.abs(name))
	}
	st, err := p.root.Lstat(name)
	if err != nil || !st.Mode().IsRegular() || !st.ModTime().Before(before) {
		return nil
	}
	if err := p.root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove stale temp file %s: %w", p.abs(name), err)
	}
	return nil
}

func (p *Publisher) syncDir(dir string) error { return p.syncFile(dir) }

// syncFile fsyncs a file or directory.
func (p *Publisher) syncFile(name string) error {
	defer p.steps.Add(1)
	f, err := p.root.OpenFile(name, os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err == nil {
		err = f.Sync()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fmt.Errorf("sync %s: %w", p.abs(name), err)
	}
	return nil
}

func (p *Publisher) syncfs() error {
	defer p.steps.Add(1)
	d, err := p.root.OpenFile(".", os.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return fmt.Errorf("sync filesystem of %s: %w", p.dir, err)
	}
	defer d.Close()
	raw, err := d.SyscallConn()
	if err != nil {
		return fmt.Errorf("sync filesystem of %s: %w", p.dir, err)
	}
	var serr error
	if err := raw.Control(func(fd uintptr) { serr = unix.Syncfs(int(fd)) }); err != nil {
		return fmt.Errorf("sync filesystem of %s: %w", p.dir, err)
	}
	if serr != nil {
		return fmt.Errorf("sync filesystem of %s: %w", p.dir, serr)
	}
	return nil
}
