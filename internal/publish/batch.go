package publish

// A Batch: files staged as temp files beside their targets, made durable
// together and renamed into place at Commit.

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Batch collects writes that become visible together at Commit.
// A Batch is not safe for concurrent use.
type Batch struct {
	p      *Publisher
	staged []staged
}

type staged struct{ tmp, name string }

// Begin starts a batch.
func (p *Publisher) Begin() *Batch { return &Batch{p: p} }

// Put stages data to replace name at Commit. It returns false, staging
// nothing, when name already holds exactly data. Missing parent directories
// are created with Options.CreateDirs only. A foreign file at name is a
// *ForeignError.
func (b *Batch) Put(name string, data []byte) (changed bool, err error) {
	return b.PutMode(name, data, b.p.opts.Mode)
}

// PutMode is Put with the file's permission given: a file sitemapd edits
// for its owner (robots.txt) keeps the mode it had.
func (b *Batch) PutMode(name string, data []byte, mode fs.FileMode) (changed bool, err error) {
	p := b.p
	same, err := p.Check(name, data)
	if err != nil || same {
		return false, err
	}
	dir := path.Dir(name)
	if dir != "." && p.opts.CreateDirs {
		if err := p.mkdirAll(dir); err != nil {
			return false, fmt.Errorf("create directory %s: %w", p.abs(dir), err)
		}
	}
	tmp, err := p.writeTemp(dir, data, mode)
	if err != nil {
		return false, err
	}
	b.staged = append(b.staged, staged{tmp: tmp, name: name})
	return true, nil
}

// mkdirAll creates dir and its missing parents with Options.DirMode, set
// by an explicit chmod: Mkdir's mode is filtered by the umask, and under
// umask 077 the web server could not enter them. Directories that exist
// are left as they are. A setgid bit the new directory inherits (a
// docroot whose directories keep the web server's group) is kept.
func (p *Publisher) mkdirAll(dir string) error {
	parts := strings.Split(dir, "/")
	for i := range parts {
		d := strings.Join(parts[:i+1], "/")
		st, err := p.root.Lstat(d)
		if err == nil {
			if !st.IsDir() {
				return &fs.PathError{Op: "mkdir", Path: p.abs(d), Err: unix.ENOTDIR}
			}
			continue
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if err := p.root.Mkdir(d, p.opts.DirMode); err != nil {
			if errors.Is(err, fs.ErrExist) {
				continue // made meanwhile, by someone else: theirs
			}
			return err
		}
		mode := p.opts.DirMode
		if st, err := p.root.Lstat(d); err == nil {
			mode |= st.Mode() & fs.ModeSetgid
		}
		if err := p.root.Chmod(d, mode); err != nil {
			return err
		}
	}
	return nil
}

func (p *Publisher) writeTemp(dir string, data []byte, mode fs.FileMode) (string, error) {
	tmp, f, err := p.createTemp(dir, mode)
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = p.root.Remove(tmp)
		return "", fmt.Errorf("write temp file %s: %w", p.abs(tmp), err)
	}
	p.steps.Add(1)
	return tmp, nil
}

// createTemp creates a temp file of mode in dir, beside the file it will
// replace (a rename does not cross filesystems).
func (p *Publisher) createTemp(dir string, mode fs.FileMode) (string, *os.File, error) {
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	tmp := path.Join(dir, TempPrefix+hex.EncodeToString(rnd[:])+TempSuffix)
	f, err := p.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return "", nil, fmt.Errorf("create temp file in %s: %w", p.abs(dir), err)
	}
	// Explicit chmod: the create mode was filtered by the umask.
	if err := f.Chmod(mode); err != nil {
		f.Close()
		_ = p.root.Remove(tmp)
		return "", nil, fmt.Errorf("write temp file %s: %w", p.abs(tmp), err)
	}
	return tmp, f, nil
}

// Drop unstages name, removing its temp file, and reports whether it was
// staged: its target keeps what it holds.
func (b *Batch) Drop(name string) bool {
	for i, s := range b.staged {
		if s.name == name {
			_ = b.p.root.Remove(s.tmp)
			b.staged = slices.Delete(b.staged, i, i+1)
			return true
		}
	}
	return false
}

// SetModTime sets the mtime a staged file lands with, and reports whether
// name is staged (a file whose bytes were already right is not). A file
// written again with the bytes it held before (a deploy removed it, or a
// release swapped in lacks it) keeps the time its content last changed,
// which is what an index lists as its lastmod.
func (b *Batch) SetModTime(name string, mtime time.Time) (bool, error) {
	for _, s := range b.staged {
		if s.name == name {
			if err := b.p.root.Chtimes(s.tmp, time.Time{}, mtime); err != nil {
				return true, fmt.Errorf("set the mtime of %s: %w", b.p.abs(s.tmp), err)
			}
			return true, nil
		}
	}
	return false, nil
}

// Len is the number of staged files.
func (b *Batch) Len() int { return len(b.staged) }

// Commit makes every staged file durable and renames it into place, then
// syncs the directories. A file that cannot be made durable or renamed (its
// directory was moved away meanwhile, say) fails alone: its temp file is
// removed, its target keeps what it held, and it is returned in failed with
// the reason, while every other file is committed. err reports a failure of
// the batch as a whole: a filesystem-wide sync before the renames (then
// every file failed) or after them (then the files are in place but may not
// survive a crash).
func (b *Batch) Commit() (failed map[string]error, err error) {
	if len(b.staged) == 0 {
		return nil, nil
	}
	p := b.p
	defer func() { b.staged = nil }()
	mode := p.opts.Sync
	if mode == SyncAuto {
		mode = SyncPerFile
		if len(b.staged) >= BatchSyncMin {
			mode = SyncBatch
		}
	}
	fail := func(s staged, err error) {
		_ = p.root.Remove(s.tmp)
		if failed == nil {
			failed = map[string]error{}
		}
		failed[s.name] = err
	}
	ready, err := b.syncStaged(mode, fail)
	if err != nil {
		return failed, err
	}
	if p.beforeRename != nil {
		p.beforeRename()
	}
	dirs := map[string]bool{}
	for _, s := range ready {
		if err := p.root.Rename(s.tmp, s.name); err != nil {
			fail(s, fmt.Errorf("rename %s into place: %w", p.abs(s.name), err))
			continue
		}
		p.steps.Add(1)
		dirs[path.Dir(s.name)] = true
	}
	return failed, p.syncRenames(mode, dirs)
}

// syncStaged makes the data of every temp file durable before any
// rename, so a crash can never leave a renamed, empty file. It returns
// the files ready to rename, and calls fail for each one that is not; an
// error is one for the whole batch, every file failed.
func (b *Batch) syncStaged(mode SyncMode, fail func(staged, error)) (ready []staged, err error) {
	switch mode {
	case SyncBatch:
		if err := b.p.syncfs(); err != nil {
			for _, s := range b.staged {
				fail(s, err)
			}
			return nil, err
		}
	case SyncPerFile:
		for _, s := range b.staged {
			if err := b.p.syncFile(s.tmp); err != nil {
				fail(s, err)
				continue
			}
			ready = append(ready, s)
		}
		return ready, nil
	}
	return b.staged, nil
}

// syncRenames makes the renames into dirs durable: one syncfs covers
// all the directories at once; per-file mode syncs each directory.
func (p *Publisher) syncRenames(mode SyncMode, dirs map[string]bool) error {
	var errs []error
	switch {
	case len(dirs) == 0:
	case mode == SyncBatch:
		errs = append(errs, p.syncfs())
	case mode == SyncPerFile:
		for d := range dirs {
			// A directory moved away since took its file along, to be
			// handled as the move is: that is no loss.
			if err := p.syncDir(d); !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// Abort removes every staged temp file.
func (b *Batch) Abort() {
	for _, s := range b.staged {
		_ = b.p.root.Remove(s.tmp)
	}
	b.staged = nil
}
