// Package pagestore keeps, in state_dir, what sitemapd knows of each page
// between processes: the stamp of its file when it was last read, its
// Time (what its lastmod shows), its content hash, what its head said,
// (pages.images) the images it shows and (news.publication) the news
// article it is.
// A process that finds a page of the same stamp needs none of its bytes.
//
// Losing the heads costs time only (they are read again); losing the times
// and hashes costs truth (an unchanged page rewritten since looks changed,
// and its lastmod moves). So the store is written crash-safely: a full
// build writes it whole, synced, in place of the old one; later publishes
// append the directories they read (or, for a directory the store holds,
// the pages that differ: amend.go), each block checksummed and synced
// before the sitemaps that show it are committed. A block cut short by a
// crash, and whatever follows it, is not read: the pages it held are then
// read again and taken as changed, never lost.
package pagestore

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/head"
	"github.com/sitemapd/sitemapd/internal/news"
	"github.com/sitemapd/sitemapd/internal/safefile"
	"github.com/sitemapd/sitemapd/internal/sitemap"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// Name is the store's file name in state_dir.
const Name = "pages"

// LegacyName is the file version 2 kept heads in; a store written in its
// place removes it.
const LegacyName = "heads"

// Exists reports whether state_dir holds a page store (of any
// configuration): whether a site was published from it before.
func Exists(stateDir string) bool {
	if stateDir == "" {
		return false
	}
	_, err := os.Lstat(filepath.Join(stateDir, Name))
	return err == nil
}

// magic starts a store. Version 3 keeps each page's stamp, time and
// content hash, under two keys, and what its head says; version 4 the
// images it shows too. A store of version 3 is read (its pages have no
// images: with pages.images on, its Heads key is another, so their bytes
// are read again, their times and hashes kept); stores are written in
// version 4. Version 5 may keep each page's print too (pages.lastmod:
// significant), and is the version written. Older versions are read:
// their pages have no print, and get one when next read, keeping their
// times (the first build after an upgrade moves no lastmod). Version 6
// keeps each page's news article too (news.publication set), and is the
// version written; in a store of an older version no page is one, and
// turning the news sitemap on changes the Heads key, so every page is
// read again for its article, its time and hash kept. Version 7 keeps
// which pages' times are the dates their heads state (tree.Page.Dated),
// and is the version written; in a store of an older version no page's
// is, and under pages.head_dates the Heads key is another (headsKey), so
// every page is read again once, its time and hash kept: the status
// page's count of page dates is true from the first build after an
// upgrade. Version 8 may hold amend blocks (amend.go) after the full
// block of a directory, and is the version written: a store of version 7
// has none, and is read as it is.
const magic = "sitemapd pages 8\n"

// magicV7 to magicV3 start stores of versions 7 to 3, the same length as
// magic.
const (
	magicV7 = "sitemapd pages 7\n"
	magicV6 = "sitemapd pages 6\n"
	magicV5 = "sitemapd pages 5\n"
	magicV4 = "sitemapd pages 4\n"
	magicV3 = "sitemapd pages 3\n"
)

// version is a store's format version.
type version uint8

// headerLen is the length of the magic, the keys and the header's checksum.
const headerLen = len(magic) + 2*32 + 4

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Keys are what a store must have been written under to be used. Times
// covers what pages' times and hashes depend on: without it the store is
// not used at all. Heads covers what heads' outcome depends on: without it
// the store's times and hashes are used, and every page's bytes read again.
type Keys struct{ Times, Heads [32]byte }

// KeysFor returns the keys of a configuration.
func KeysFor(cfg *config.Config) Keys {
	p := &cfg.Pages
	// A time kept by the bytes' hash (content) and one kept by what the
	// page says (significant) are both the last change of a page, and a
	// store of either is used by the other: the first build after a
	// switch (or an upgrade, whose default became significant) moves no
	// lastmod. Pages get a print when next read.
	from := p.LastModFrom
	if from == config.LastModSignificant {
		from = config.LastModContent
	}
	return Keys{
		Times: sha256.Sum256(fmt.Appendf(nil, "%q %d %v", cfg.Root, from, p.HeadDates)),
		Heads: sha256.Sum256(headsKey(cfg)),
	}
}

// headsKey is what the Heads key hashes. Images add to it only when
// they are on, so that turning them on makes every page be read again,
// and a store kept without them stays usable as it was.
func headsKey(cfg *config.Config) []byte {
	p := &cfg.Pages
	b := fmt.Appendf(nil, "%q %q %v %q %v %v %v %v %d",
		cfg.Root, cfg.BaseURL, p.PrettyURLs, p.IndexFiles, p.NoIndex, p.Canonical, p.Hreflang, p.Redirects, head.Limit)
	if p.Images {
		b = fmt.Appendf(b, " images %q %d %d", p.ImageHosts, head.BodyLimit, sitemap.MaxImages)
	}
	if p.HeadDates {
		// Which pages took their head's date is kept from version 7
		// on: a store written before, which does not say, has its
		// pages read again once.
		b = append(b, " dated"...)
	}
	if cfg.News.On() {
		// Whether pages keep their articles; which publication and
		// paths they go to is the build's (news.Rules), not the heads'.
		b = fmt.Appendf(b, " news %d", news.MaxTitle)
	}
	return b
}

// Store is a store being read. Its bytes are mapped, not read into the
// heap: a large site's store is some 40 bytes a page, and it is only
// needed during the first build. A nil *Store holds nothing.
type Store struct {
	data    []byte // the file, mapped
	version version
	spans   []span // each directory's last full payload, sorted by directory
	// amends are, by the offset of a directory's last full payload, the
	// amend blocks' payloads after it, in order (amend.go): few, as the
	// store is written whole again once appends have grown it enough.
	amends    map[uint32][]span
	headsLost bool   // written under other head rules: stamps are not returned
	model     []byte // the template model the pages' prints were made under (Model)
	// Torn is how many bytes at the end could not be read (a block cut
	// short by a crash, or damaged): the directories they held are not
	// known.
	Torn int
}

// span is where a checked payload lies in a store's data.
type span struct{ off, end uint32 }

// ErrOtherTimes is Open's error for a store kept under another
// pages.lastmod or pages.head_dates: its times mean something else.
var ErrOtherTimes = errors.New("written under another pages.lastmod, pages.head_dates or root")

// errCorrupt is the error of a header or block that is damaged.
var errCorrupt = errors.New("truncated or corrupt")

// Open maps a store and checks its blocks; a missing one is (nil, nil).
// A store whose header is damaged or of another version is an error, to
// be moved aside (publish.Quarantine); so is one that cannot be read. A store of
// other times is ErrOtherTimes. A damaged tail is no error: the blocks
// before it are read, Torn says how much was not.
//
// A symlink, FIFO or any other file but a regular one is refused
// (safefile), never followed or opened: an error, moved aside like a
// damaged store.
func Open(path string, keys Keys) (*Store, error) {
	f, err := safefile.Open(path, safefile.NoFollow)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	switch {
	case err != nil:
		return nil, err
	case st.Size() < int64(headerLen) || st.Size() > 1<<32-1:
		return nil, errCorrupt
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	s := &Store{data: data}
	if s.version, err = checkHeader(data, keys, &s.headsLost); err != nil {
		s.Close()
		return nil, err
	}
	// Each block's length, checksum and directory are checked here; its
	// pages when it is decoded (a directory looked up), which a build
	// does for each directory once, in parallel with the walk, instead of
	// all of them once more before the walk can start. A block whose
	// checksum holds was written whole: a crash cuts a store short, it
	// does not leave a block of the right checksum and the wrong shape.
	var blocks []span
	for off := headerLen; off < len(data); {
		payload, next, err := readBlock(data, off)
		if err == nil && s.version >= 5 && len(payload) > 0 && payload[0] == modelBlock {
			s.model = payload[1:]
			off = next
			continue
		}
		if err == nil {
			_, _, err = readBytes(payload, 1) // the directory (payloadDir)
		}
		if err != nil {
			s.Torn = len(data) - off
			break
		}
		start := next - 4 - len(payload)
		blocks = append(blocks, span{uint32(start), uint32(start + len(payload))})
		off = next
	}
	s.index(blocks)
	return s, nil
}

// index keeps, of each directory's blocks (in the order of the file), the
// last full one and the amend blocks after it: what is known of it, as
// appends come after the full store they amend. A directory whose blocks
// after the last full one are amends only is not known.
func (s *Store) index(blocks []span) {
	slices.SortStableFunc(blocks, func(a, b span) int { return bytes.Compare(s.dir(a), s.dir(b)) })
	for i := 0; i < len(blocks); {
		j := i + 1
		for j < len(blocks) && bytes.Equal(s.dir(blocks[j]), s.dir(blocks[i])) {
			j++
		}
		full := -1
		for k := i; k < j; k++ {
			if !isAmend(s.version, s.payload(blocks[k])) {
				full = k
			}
		}
		if full >= 0 {
			s.spans = append(s.spans, blocks[full])
			if full+1 < j {
				if s.amends == nil {
					s.amends = map[uint32][]span{}
				}
				s.amends[blocks[full].off] = blocks[full+1 : j]
			}
		}
		i = j
	}
}

// decode returns the listing of a directory's last full payload, amended
// by the amend blocks after it.
func (s *Store) decode(sp span) (*tree.Listing, error) {
	l, err := decodeListing(s.payload(sp), s.version, s.headsLost)
	for _, a := range s.amends[sp.off] {
		if err != nil {
			break
		}
		l, err = applyAmend(l, s.payload(a), s.version, s.headsLost)
	}
	return l, err
}

// checkHeader checks a store's header against keys, and returns its
// version.
func checkHeader(data []byte, keys Keys, headsLost *bool) (version, error) {
	h := data[:headerLen-4]
	var v version
	switch {
	case bytes.HasPrefix(data, []byte(magic)):
		v = 8
	case bytes.HasPrefix(data, []byte(magicV7)):
		v = 7
	case bytes.HasPrefix(data, []byte(magicV6)):
		v = 6
	case bytes.HasPrefix(data, []byte(magicV5)):
		v = 5
	case bytes.HasPrefix(data, []byte(magicV4)):
		v = 4
	case bytes.HasPrefix(data, []byte(magicV3)):
		v = 3
	default:
		return 0, errors.New("not a page store of this version")
	}
	switch {
	case crc32.Checksum(h, castagnoli) != binary.LittleEndian.Uint32(data[len(h):]):
		return 0, errCorrupt
	case !bytes.Equal(h[len(magic):len(magic)+32], keys.Times[:]):
		return 0, ErrOtherTimes
	}
	*headsLost = !bytes.Equal(h[len(magic)+32:], keys.Heads[:])
	return v, nil
}

// Close unmaps the store.
func (s *Store) Close() {
	if s != nil && s.data != nil {
		unix.Munmap(s.data)
		s.data = nil
	}
}

// HeadsLost reports whether the store was written under other head rules:
// its pages' times and hashes are used, their heads read again.
func (s *Store) HeadsLost() bool { return s != nil && s.headsLost }

// Model is the template model the store's prints were made under, as
// the Writer was given it (SetModel), or nil: a store of an older version,
// or written without one. Prints are comparable only under the model that
// made them, so the model lives with them: lose the store, lose both.
// The bytes are a copy: the store's own are mapped, and gone at Close.
func (s *Store) Model() []byte {
	if s == nil || s.model == nil {
		return nil
	}
	return slices.Clone(s.model)
}

// Dirs is the number of directories the store knows.
func (s *Store) Dirs() int {
	if s == nil {
		return 0
	}
	return len(s.spans)
}

func (s *Store) payload(sp span) []byte { return s.data[sp.off:sp.end] }

func (s *Store) dir(sp span) []byte { return payloadDir(s.payload(sp)) }

// Listing returns what the store holds of a directory, or nil (also for a
// block that does not decode). When the store's heads are lost, its pages
// have NoStamp: their bytes must be read.
func (s *Store) Listing(dir string) *tree.Listing {
	if s == nil {
		return nil
	}
	want := []byte(dir)
	i, found := slices.BinarySearchFunc(s.spans, want, func(sp span, want []byte) int {
		return bytes.Compare(s.dir(sp), want)
	})
	if !found {
		return nil
	}
	l, err := s.decode(s.spans[i])
	if err != nil {
		return nil // not known: its pages are read again
	}
	return l
}

// Each calls f with every directory the store knows and its listing (a
// block that does not decode is not known).
func (s *Store) Each(f func(dir string, l *tree.Listing)) {
	if s == nil {
		return
	}
	for _, sp := range s.spans {
		if l, err := s.decode(sp); err == nil {
			f(string(s.dir(sp)), l)
		}
	}
}

// Layout: the magic line, the Times and Heads keys (SHA-256 each) and a
// CRC-32C of those, then blocks (format.go), one per directory read, in
// any order; a directory may have several, the last full one of which
// holds, amended by the amend blocks after it (amend.go).
//
// Limits: a store is at most 4 GiB; it is mapped, so a file truncated by
// another process while mapped would fault (sitemapd replaces it by
// rename and only appends to it, never truncates it).
