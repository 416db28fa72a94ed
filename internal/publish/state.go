package publish

// State files: the one way sitemapd writes a file of its own state
// (state_dir's notification ledger, Search Console state, status history,
// page store and groups record; the record of text sitemaps in the output)
// and the one way it sets a damaged one aside. Why here: the package doc.

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"time"
)

// OpenState opens a state directory, which must exist: its files are
// written with mode 0600 (sitemapd's alone), each made durable on its own
// (a state file is written alone: a filesystem-wide sync would wait for
// every other writer), and every regular file in it is taken for
// sitemapd's. Close releases it.
func OpenState(dir string) (*Publisher, error) { return OpenStateSync(dir, SyncPerFile) }

// OpenStateSync is OpenState with the files made durable as sync says:
// SyncPerFile for files whose loss costs truth, SyncNone for one whose
// loss costs only a picture (the status page's history).
func OpenStateSync(dir string, sync SyncMode) (*Publisher, error) {
	p, err := newPublisher(dir, Options{Mode: 0o600, Sync: sync})
	if err != nil {
		return nil, fmt.Errorf("open state directory: %w", err)
	}
	return p, nil
}

// ReplacedError is a write refused because the directory the publisher
// holds open is no longer the one its path names (Replaced): the file
// would land out of sight, and the next start would not find it.
type ReplacedError struct {
	Path string // the file not written
	Dir  string
}

func (e *ReplacedError) Error() string {
	return fmt.Sprintf("%s not written: directory %s was moved or replaced while sitemapd ran; restart sitemapd on it", e.Path, e.Dir)
}

// checkHeld refuses a write of name into a directory replaced.
func (p *Publisher) checkHeld(name string) error {
	if p.Replaced() {
		return &ReplacedError{Path: p.abs(name), Dir: p.dir}
	}
	return nil
}

// named makes sure an error of writing name names it.
func (p *Publisher) named(name string, err error) error {
	var fe *ForeignError
	var re *ReplacedError
	if err == nil || errors.As(err, &fe) || errors.As(err, &re) {
		return err
	}
	return fmt.Errorf("write %s: %w", p.abs(name), err)
}

// WriteFile replaces name with data whole, as a Batch of one file does,
// unless it holds data already; changed reports whether it was written.
// A directory replaced is a *ReplacedError, a file not ours (a symlink, a
// directory, or one Owned rejects) a *ForeignError; every error names the
// file. On any error but a failed sync of the directory after the rename,
// the file keeps what it held.
func (p *Publisher) WriteFile(name string, data []byte) (changed bool, err error) {
	if err := p.checkHeld(name); err != nil {
		return false, err
	}
	b := p.Begin()
	if changed, err = b.Put(name, data); err != nil || !changed {
		return false, p.named(name, err)
	}
	failed, err := b.Commit()
	if ferr := failed[name]; ferr != nil {
		return false, p.named(name, errors.Join(ferr, err))
	}
	return true, p.named(name, err)
}

// Stream is a file written a piece at a time (the page store, megabytes
// that are never held whole), in place of its target at Commit. Until
// then, and for good after Abort or a failed Commit, the target keeps what
// it held. A Stream is not safe for concurrent use.
type Stream struct {
	p    *Publisher
	own  bool // p is closed with the stream (CreateState)
	name string
	tmp  string
	f    *os.File
	err  error // the first failed Write's
}

// Create starts a stream replacing name. Like WriteFile, it refuses a
// directory replaced and a file not ours.
func (p *Publisher) Create(name string) (*Stream, error) {
	if err := p.checkHeld(name); err != nil {
		return nil, err
	}
	if _, err := p.Check(name, nil); err != nil {
		return nil, err
	}
	tmp, f, err := p.createTemp(path.Dir(name), p.opts.Mode)
	if err != nil {
		return nil, p.named(name, err)
	}
	p.steps.Add(1)
	return &Stream{p: p, name: name, tmp: tmp, f: f}, nil
}

// Write writes to the temp file. An error, which names the target, is
// returned by Commit too.
func (s *Stream) Write(b []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.f.Write(b)
	if err != nil {
		s.err = s.p.named(s.name, fmt.Errorf("write temp file %s: %w", s.p.abs(s.tmp), err))
	}
	return n, s.err
}

// Commit makes what was written durable and renames it over the target,
// then syncs the directory. On an error (a failed Write's included) the
// temp file is removed and the target keeps what it held, but for a
// failed sync of the directory after the rename.
func (s *Stream) Commit() error {
	p := s.p
	defer s.release()
	err := s.err
	if err == nil && p.opts.Sync != SyncNone {
		err = s.f.Sync()
	}
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = p.checkHeld(s.name)
	}
	if err == nil && p.beforeRename != nil {
		p.beforeRename()
	}
	if err == nil {
		if err = p.root.Rename(s.tmp, s.name); err != nil {
			err = fmt.Errorf("rename %s into place: %w", p.abs(s.name), err)
		}
	}
	if err != nil {
		_ = p.root.Remove(s.tmp)
		return p.named(s.name, err)
	}
	p.steps.Add(1)
	if p.opts.Sync == SyncNone {
		return nil
	}
	return p.named(s.name, p.syncDir(path.Dir(s.name)))
}

// Abort removes the temp file: the target keeps what it held.
func (s *Stream) Abort() {
	s.f.Close()
	_ = s.p.root.Remove(s.tmp)
	s.release()
}

func (s *Stream) release() {
	if s.own {
		s.p.Close()
		s.own = false
	}
}

// WriteState writes the state file at path whole (WriteFile in
// OpenState of its directory), for a caller that holds no state directory
// open: the build, whose state_dir may appear after it started. sync is
// SyncPerFile for a file whose loss costs truth; SyncNone for one whose
// loss costs only work (the daemon's groups record, rewritten at every
// publish: a reader still finds the old file or the new one, but a crash
// may lose the newest).
func WriteState(path string, data []byte, sync SyncMode) error {
	p, err := OpenStateSync(filepath.Dir(path), sync)
	if err != nil {
		return err
	}
	defer p.Close()
	_, err = p.WriteFile(filepath.Base(path), data)
	return err
}

// CreateState starts the state file at path as a Stream (Create in
// OpenState of its directory), which releases the directory when it ends.
func CreateState(path string) (*Stream, error) {
	p, err := OpenState(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	s, err := p.Create(filepath.Base(path))
	if err != nil {
		p.Close()
		return nil, err
	}
	s.own = true
	return s, nil
}

// Quarantine moves a state file that cannot be read aside, for whoever
// wants to look, so that a new one can take its place. It returns where
// it went: path.corrupt-<UTC time>, with a number added if a file moved
// aside before has that name. It is the one way sitemapd sets a damaged
// file of its state aside.
func Quarantine(path string) (string, error) {
	base := fmt.Sprintf("%s.corrupt-%s", path, time.Now().UTC().Format("20060102T150405Z"))
	aside := base
	for n := 1; ; n++ {
		if _, err := os.Lstat(aside); err != nil {
			break // free (or the rename will say why not)
		}
		aside = fmt.Sprintf("%s.%d", base, n)
	}
	return aside, os.Rename(path, aside)
}
