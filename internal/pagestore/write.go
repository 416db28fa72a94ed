package pagestore

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"

	"github.com/sitemapd/sitemapd/internal/publish"
	"github.com/sitemapd/sitemapd/internal/safefile"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// header returns the header of a store under keys.
func header(keys Keys) []byte {
	b := append([]byte(magic), keys.Times[:]...)
	b = append(b, keys.Heads[:]...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// Writer writes a new store beside the old one, in place of it at Commit
// (a stream of publish's state files: the old store stays whole until
// then).
type Writer struct {
	path string
	s    *publish.Stream
	w    *bufio.Writer
	buf  []byte
}

// Create starts a new store at path, under keys.
func Create(path string, keys Keys) (*Writer, error) {
	s, err := publish.CreateState(path)
	if err != nil {
		return nil, err
	}
	w := &Writer{path: path, s: s, w: bufio.NewWriterSize(s, 64<<10)}
	w.w.Write(header(keys)) // a write error shows at Flush
	return w, nil
}

// SetModel writes the template model the listings' prints are made under
// (Store.Model); call it before Add, once.
func (w *Writer) SetModel(model []byte) {
	w.buf = appendModelBlock(w.buf[:0], model)
	w.w.Write(w.buf)
}

// Add writes a directory's listing. A listing that keeps nothing (pages
// whose bytes are never read) is not worth a block.
func (w *Writer) Add(dir string, l *tree.Listing) {
	if l.Kept() == 0 {
		return
	}
	w.buf = appendBlock(w.buf[:0], dir, l)
	w.w.Write(w.buf)
}

// Commit ends the store and puts it in place, synced first: what it holds
// is the truth of lastmods, not a cache. A store of the old name
// (LegacyName) goes (unsynced: one back after a crash goes again).
func (w *Writer) Commit() error {
	if err := w.w.Flush(); err != nil {
		w.s.Abort()
		return fmt.Errorf("write %s: %w", w.path, err)
	}
	if err := w.s.Commit(); err != nil {
		return err
	}
	os.Remove(filepath.Join(filepath.Dir(w.path), LegacyName))
	return nil
}

// Abort removes the unfinished store.
func (w *Writer) Abort() { w.s.Abort() }

// Entry is one directory's listing, to append.
type Entry struct {
	Dir     string
	Listing *tree.Listing
	// Base is what the store holds of Dir, as last written (whole or
	// appended), or nil: with it, only the pages of Listing that differ
	// are appended (amend.go). A Base the store does not hold would have
	// a restart know pages wrongly.
	Base *tree.Listing
}

// Stored reports whether Append writes l: a listing that keeps nothing
// (pages whose bytes are never read) is not worth a block, unless it is
// empty (a directory emptied forgets what the store knew of it).
func Stored(l *tree.Listing) bool { return l.Kept() != 0 || l.Len() == 0 }

// Append adds listings to the store at path, written under keys, and
// syncs them: when it returns, they survive a crash. It returns the
// store's size after. The store must exist: appends amend a full one.
func Append(path string, keys Keys, entries []Entry) (int64, error) {
	f, err := safefile.Append(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	hdr := make([]byte, headerLen)
	if _, err := io.ReadFull(f, hdr); err != nil {
		return 0, fmt.Errorf("read header: %w", err)
	}
	if string(hdr) != string(header(keys)) {
		return 0, errors.New("written under another configuration or version")
	}
	var b []byte
	for _, e := range entries {
		if !Stored(e.Listing) {
			continue
		}
		var amended bool
		if b, amended = appendAmendBlock(b, e.Dir, e.Base, e.Listing); !amended {
			b = appendBlock(b, e.Dir, e.Listing)
		}
	}
	if len(b) > 0 {
		if _, err := f.Write(b); err != nil {
			return 0, err
		}
		if err := f.Sync(); err != nil {
			return 0, err
		}
	}
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}
