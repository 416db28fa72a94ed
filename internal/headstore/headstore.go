package headstore

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/head"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// Name is the head store's file name in state_dir.
const Name = "heads"

// magic starts a store. Version 2 keeps why a head hides its page (a
// tree.Reason) where version 1 kept a flag.
const magic = "sitemapd heads 2\n"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Key is what a store must have been written under to be used: what the
// heads' outcome depends on.
func Key(cfg *config.Config) [32]byte {
	p := &cfg.Pages
	return sha256.Sum256(fmt.Appendf(nil, "%q %q %v %q %v %v %v %v %d",
		cfg.Root, cfg.BaseURL, p.PrettyURLs, p.IndexFiles, p.NoIndex, p.Canonical, p.Hreflang, p.Redirects, head.Limit))
}

// Store is a store being read. Its bytes are mapped, not read into the
// heap: a large site's store is some 30 bytes a page, and it is only
// needed during the first build. A nil *Store holds nothing.
type Store struct {
	data []byte   // the file, mapped
	offs []uint32 // start of each block, sorted by directory
}

// errCorrupt is the error of a store that is truncated or damaged.
var errCorrupt = errors.New("truncated or corrupt")

// Open maps and checks a store; a missing one is (nil, nil).
func Open(path string, key [32]byte) (*Store, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	hdr := len(magic) + len(key)
	if st.Size() < int64(hdr+4) || st.Size() > 1<<32-1 {
		return nil, errCorrupt
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	s := &Store{data: data}
	body := data[:len(data)-4]
	switch {
	case !bytes.HasPrefix(data, []byte(magic)):
		err = errors.New("not a head store of this version")
	case !bytes.Equal(data[len(magic):hdr], key[:]):
		err = errors.New("written for another configuration")
	case crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(data[len(body):]):
		err = errCorrupt
	}
	for off := hdr; err == nil && off < len(body); {
		s.offs = append(s.offs, uint32(off))
		off, err = skipBlock(body, off)
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	slices.SortFunc(s.offs, func(a, b uint32) int {
		da, _, _ := readString(body, int(a))
		db, _, _ := readString(body, int(b))
		return strings.Compare(da, db)
	})
	return s, nil
}

// Close unmaps the store.
func (s *Store) Close() {
	if s != nil && s.data != nil {
		unix.Munmap(s.data)
		s.data = nil
	}
}

// Listing returns what the store holds of a directory, or nil.
func (s *Store) Listing(dir string) *tree.Listing {
	if s == nil {
		return nil
	}
	i, found := slices.BinarySearchFunc(s.offs, dir, func(off uint32, dir string) int {
		d, _, _ := readString(s.data, int(off))
		return strings.Compare(d, dir)
	})
	if !found {
		return nil
	}
	_, off, _ := readString(s.data, int(s.offs[i]))
	n, off, _ := readUvarint(s.data, off)
	pages := make([]tree.Page, 0, n)
	for range n {
		var p tree.Page
		p.Name, off, _ = readString(s.data, off)
		p.MTime, off, _ = readVarint(s.data, off)
		p.Size, off, _ = readVarint(s.data, off)
		p.Head.Out, off = tree.Reason(s.data[off]), off+1
		p.Head.Alts, off, _ = readString(s.data, off)
		pages = append(pages, p)
	}
	return tree.NewListing(pages, true, nil, tree.DirID{})
}

// storable reports whether a head may hide its page for r: a reason
// a head gives, or none.
func storable(r tree.Reason) bool { return r == tree.Listed || r.FromHead() }

// skipBlock checks the block at off and returns where the next begins.
func skipBlock(b []byte, off int) (int, error) {
	_, off, err := readString(b, off)
	if err != nil {
		return 0, err
	}
	n, off, err := readUvarint(b, off)
	for i := uint64(0); err == nil && i < n; i++ {
		if _, off, err = readString(b, off); err != nil {
			break
		}
		if _, off, err = readVarint(b, off); err != nil {
			break
		}
		if _, off, err = readVarint(b, off); err != nil {
			break
		}
		if off >= len(b) || !storable(tree.Reason(b[off])) {
			return 0, errCorrupt
		}
		_, off, err = readString(b, off+1)
	}
	return off, err
}

func readUvarint(b []byte, off int) (uint64, int, error) {
	if off >= len(b) {
		return 0, 0, errCorrupt
	}
	v, n := binary.Uvarint(b[off:])
	if n <= 0 {
		return 0, 0, errCorrupt
	}
	return v, off + n, nil
}

func readVarint(b []byte, off int) (int64, int, error) {
	if off >= len(b) {
		return 0, 0, errCorrupt
	}
	v, n := binary.Varint(b[off:])
	if n <= 0 {
		return 0, 0, errCorrupt
	}
	return v, off + n, nil
}

func readString(b []byte, off int) (string, int, error) {
	n, off, err := readUvarint(b, off)
	if err != nil || n > uint64(len(b)-off) {
		return "", 0, errCorrupt
	}
	return string(b[off : off+int(n)]), off + int(n), nil
}

// Writer writes a new store beside the old one, in place of it at Commit.
type Writer struct {
	path string
	f    *os.File
	w    *bufio.Writer
	crc  hash.Hash32
	buf  []byte
}

// Create starts a new store at path, for the configuration key.
func Create(path string, key [32]byte) (*Writer, error) {
	f, err := os.CreateTemp(filepath.Dir(path), ".heads-*.tmp")
	if err != nil {
		return nil, err
	}
	w := &Writer{path: path, f: f, crc: crc32.New(castagnoli)}
	w.w = bufio.NewWriterSize(f, 64<<10)
	w.write([]byte(magic))
	w.write(key[:])
	return w, nil
}

func (w *Writer) write(b []byte) {
	w.w.Write(b) // a write error shows at Flush
	w.crc.Write(b)
}

// Add writes a directory's listing (one that kept sizes: heads were read).
func (w *Writer) Add(dir string, l *tree.Listing) {
	if !l.HasSizes() {
		return
	}
	b := w.buf[:0]
	b = appendString(b, dir)
	b = binary.AppendUvarint(b, uint64(l.Len()))
	l.All(func(i int, name string) {
		h := l.Head(i)
		b = appendString(b, name)
		b = binary.AppendVarint(b, l.MTime(i))
		b = binary.AppendVarint(b, l.Size(i))
		b = append(b, byte(h.Out))
		b = appendString(b, h.Alts)
	})
	w.write(b)
	w.buf = b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// Commit ends the store and puts it in place. It is not synced: a store
// torn by a crash fails its checksum and is read as none.
func (w *Writer) Commit() error {
	w.w.Write(binary.LittleEndian.AppendUint32(nil, w.crc.Sum32()))
	err := w.w.Flush()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(w.f.Name(), w.path)
	}
	if err != nil {
		os.Remove(w.f.Name())
	}
	return err
}

// Abort removes the unfinished store.
func (w *Writer) Abort() {
	w.f.Close()
	os.Remove(w.f.Name())
}
