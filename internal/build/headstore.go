package build

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

	"go.uber.org/zap"
	"golang.org/x/sys/unix"

	"github.com/sitemapd/sitemapd/internal/head"
)

// The head store keeps what pages' heads said across runs, in state_dir,
// so that a build reads again only the heads of files whose mtime or size
// changed since the last full build, not every head of the site: the
// tokenizer costs far more than the walk (see README, Performance). It is
// a cache, trusted only as far as it proves sound: a file for another
// configuration, of another version or with a wrong checksum is ignored.
//
// Layout: headStoreMagic, a SHA-256 of what the heads' outcome depends on
// (headStoreKey), then one block per directory, then a CRC-32C of all that
// precedes it. A block is the directory (uvarint length and bytes), its
// page count, and per page its name, mtime (varint ns), size (varint),
// whether its head keeps it out (a byte) and its packed alternates.
// Directories come in any order; a reader sorts their offsets.

// HeadStoreName is the head store's file name in state_dir.
const HeadStoreName = "heads"

const headStoreMagic = "sitemapd heads 1\n"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// headStoreKey is what a store must have been written under to be used.
func (e *Engine) headStoreKey() [32]byte {
	p := &e.cfg.Pages
	return sha256.Sum256(fmt.Appendf(nil, "%q %q %v %q %v %v %v %d",
		e.cfg.Root, e.cfg.BaseURL, p.PrettyURLs, p.IndexFiles, p.NoIndex, p.Canonical, p.Hreflang, head.Limit))
}

// headStore is a store being read. Its bytes are mapped, not read into
// the heap: a large site's store is some 30 bytes a page, and it is only
// needed during the first build.
type headStore struct {
	data []byte   // the file, mapped
	offs []uint32 // start of each block, sorted by directory
}

var errBadStore = errors.New("truncated or corrupt")

// openHeadStore maps and checks a store; a missing one is (nil, nil).
func openHeadStore(path string, key [32]byte) (*headStore, error) {
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
	head := len(headStoreMagic) + len(key)
	if st.Size() < int64(head+4) || st.Size() > 1<<32-1 {
		return nil, errBadStore
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	s := &headStore{data: data}
	body := data[:len(data)-4]
	switch {
	case !bytes.HasPrefix(data, []byte(headStoreMagic)):
		err = errors.New("not a head store of this version")
	case !bytes.Equal(data[len(headStoreMagic):head], key[:]):
		err = errors.New("written for another configuration")
	case crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(data[len(body):]):
		err = errBadStore
	}
	for off := head; err == nil && off < len(body); {
		s.offs = append(s.offs, uint32(off))
		off, err = skipBlock(body, off)
	}
	if err != nil {
		s.close()
		return nil, err
	}
	slices.SortFunc(s.offs, func(a, b uint32) int {
		da, _, _ := readString(body, int(a))
		db, _, _ := readString(body, int(b))
		return strings.Compare(da, db)
	})
	return s, nil
}

func (s *headStore) close() {
	if s != nil && s.data != nil {
		unix.Munmap(s.data)
		s.data = nil
	}
}

// listing returns what the store holds of a directory, or nil.
func (s *headStore) listing(dir string) *listing {
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
	pages := make([]pageEntry, 0, n)
	for range n {
		var p pageEntry
		var hidden byte
		p.name, off, _ = readString(s.data, off)
		p.mtime, off, _ = readVarint(s.data, off)
		p.size, off, _ = readVarint(s.data, off)
		hidden, off = s.data[off], off+1
		p.head.hidden = hidden != 0
		p.head.alts, off, _ = readString(s.data, off)
		pages = append(pages, p)
	}
	return newListing(pages, true, nil, dirID{})
}

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
		if off >= len(b) {
			return 0, errBadStore
		}
		_, off, err = readString(b, off+1)
	}
	return off, err
}

func readUvarint(b []byte, off int) (uint64, int, error) {
	if off >= len(b) {
		return 0, 0, errBadStore
	}
	v, n := binary.Uvarint(b[off:])
	if n <= 0 {
		return 0, 0, errBadStore
	}
	return v, off + n, nil
}

func readVarint(b []byte, off int) (int64, int, error) {
	if off >= len(b) {
		return 0, 0, errBadStore
	}
	v, n := binary.Varint(b[off:])
	if n <= 0 {
		return 0, 0, errBadStore
	}
	return v, off + n, nil
}

func readString(b []byte, off int) (string, int, error) {
	n, off, err := readUvarint(b, off)
	if err != nil || n > uint64(len(b)-off) {
		return "", 0, errBadStore
	}
	return string(b[off : off+int(n)]), off + int(n), nil
}

// headStoreWriter writes a new store beside the old one, in place of it
// at commit.
type headStoreWriter struct {
	path string
	f    *os.File
	w    *bufio.Writer
	crc  hash.Hash32
	buf  []byte
}

func createHeadStore(path string, key [32]byte) (*headStoreWriter, error) {
	f, err := os.CreateTemp(filepath.Dir(path), ".heads-*.tmp")
	if err != nil {
		return nil, err
	}
	w := &headStoreWriter{path: path, f: f, crc: crc32.New(castagnoli)}
	w.w = bufio.NewWriterSize(f, 64<<10)
	w.write([]byte(headStoreMagic))
	w.write(key[:])
	return w, nil
}

func (w *headStoreWriter) write(b []byte) {
	w.w.Write(b) // a write error shows at Flush
	w.crc.Write(b)
}

// add writes a directory's listing (one that kept sizes: heads were read).
func (w *headStoreWriter) add(dir string, l *listing) {
	if l.sizes == nil {
		return
	}
	b := w.buf[:0]
	b = appendString(b, dir)
	b = binary.AppendUvarint(b, uint64(len(l.mtimes)))
	l.all(func(i int, name string) {
		h := l.head(i)
		b = appendString(b, name)
		b = binary.AppendVarint(b, l.mtimes[i])
		b = binary.AppendVarint(b, l.sizes[i])
		if h.hidden {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
		b = appendString(b, h.alts)
	})
	w.write(b)
	w.buf = b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// commit ends the store and puts it in place. It is not synced: a store
// torn by a crash fails its checksum and is read as none.
func (w *headStoreWriter) commit() error {
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

func (w *headStoreWriter) abort() {
	w.f.Close()
	os.Remove(w.f.Name())
}

// newHeadStore starts a new store for a full build, or returns nil: heads
// are not read, or state_dir does not exist (it is not created here: with
// no notification endpoints it need not exist, and `sitemapd build` may
// run as a user who cannot create it).
func (e *Engine) newHeadStore() *headStoreWriter {
	if e.storePath == "" {
		return nil
	}
	if st, err := os.Stat(filepath.Dir(e.storePath)); err != nil || !st.IsDir() {
		e.log.Debug("head store not kept: state_dir does not exist", zap.String("state_dir", filepath.Dir(e.storePath)))
		return nil
	}
	w, err := createHeadStore(e.storePath, e.headStoreKey())
	if err != nil {
		e.log.Info("head store not kept: the next build reads every head", zap.Error(err))
		return nil
	}
	return w
}
