package build

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// TestHeadStore checks that a build reads again only the heads of files
// changed since the last full build, across processes, and that a store it
// cannot trust (another configuration, a torn or corrupt file) is read as
// none.
func TestHeadStore(t *testing.T) {
	dir := t.TempDir()
	root, state := filepath.Join(dir, "root"), filepath.Join(dir, "state")
	os.MkdirAll(state, 0o755)
	page := filepath.Join(root, "d", "p.html")
	listed := `<meta name=robots content="nofollow">`
	hidden := `<meta name=robots content="noindex,">` // the same length
	writeFile(t, page, listed, defaultMTime)
	writeFile(t, filepath.Join(root, "d", "alt.html"), `<link rel=alternate hreflang=de href=/de/>`, defaultMTime)
	writeFile(t, filepath.Join(root, "gone.html"), `<meta name=robots content=noindex>`, defaultMTime)
	build := func(pages string) (bool, *observer.ObservedLogs) {
		t.Helper()
		cfg := loadConfig(t, baseConfig, root, "state_dir: "+state+"\npages: "+pages+"\n")
		core, logs := observer.New(zap.InfoLevel)
		e, err := New(cfg, zap.New(core), WithProgress(0))
		if err != nil {
			t.Fatal(err)
		}
		mustBuild(t, e)
		e.Close()
		locs, alts := listedLocs(t, filepath.Join(root, "d", "sitemap.xml"))
		if !alts {
			t.Error("alternates lost")
		}
		return slices.Contains(locs, "d/p.html"), logs
	}
	if ok, _ := build("{}"); !ok {
		t.Fatal("page not listed at first")
	}
	store := filepath.Join(state, HeadStoreName)
	if _, err := os.Stat(store); err != nil {
		t.Fatalf("no head store: %v", err)
	}

	writeFile(t, page, hidden, defaultMTime)
	if ok, _ := build("{}"); !ok {
		t.Error("head read again though mtime and size are unchanged since the last build")
	}
	if ok, logs := build("{canonical: false}"); ok {
		t.Error("a store of another configuration was used")
	} else if n := logs.FilterMessageSnippet("head store not used").Len(); n != 1 {
		t.Errorf("%d notes of the store not used, want 1", n)
	}
	// That build wrote a store for its own configuration; the next one,
	// of the first configuration, finds it not its own and reads again:
	// hidden since the rewrite.
	if ok, _ := build("{}"); ok {
		t.Error("page listed after its head was read again")
	}

	writeFile(t, page, listed, defaultMTime)
	b, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x40
	os.WriteFile(store, b, 0o644)
	if ok, logs := build("{}"); !ok {
		t.Error("a corrupt store was trusted")
	} else if logs.FilterMessageSnippet("head store not used").Len() != 1 {
		t.Error("a corrupt store went unremarked")
	}
}

// TestHeadStoreTruncated reads a store cut at every length: each is
// refused, none panics.
func TestHeadStoreTruncated(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, HeadStoreName)
	var key [32]byte
	w, err := createHeadStore(path, key)
	if err != nil {
		t.Fatal(err)
	}
	l := newListing([]pageEntry{
		{name: "a.html", mtime: 1, size: 10},
		{name: "b.html", mtime: -2, size: 20, head: pageHead{hidden: true}},
		{name: "c.html", mtime: 3, size: unread, head: pageHead{alts: "de\x00https://example.com/de/\x00"}},
	}, true, nil, dirID{})
	w.add("x/y", l)
	w.add("", newListing([]pageEntry{{name: "i.html", mtime: 4, size: 5}}, true, nil, dirID{}))
	if err := w.commit(); err != nil {
		t.Fatal(err)
	}
	s, err := openHeadStore(path, key)
	if err != nil {
		t.Fatal(err)
	}
	got := s.listing("x/y")
	if got == nil || got.names != l.names || !slices.Equal(got.mtimes, l.mtimes) || !slices.Equal(got.sizes, l.sizes) ||
		!slices.Equal(got.hidden, l.hidden) || !slices.Equal(got.alts, l.alts) {
		t.Errorf("read back %+v\nwrote %+v", got, l)
	}
	if s.listing("") == nil || s.listing("x") != nil {
		t.Error("lookup by directory is wrong")
	}
	s.close()
	if _, err := openHeadStore(path, [32]byte{1}); err == nil {
		t.Error("opened with another key")
	}
	full, _ := os.ReadFile(path)
	for n := range len(full) {
		os.WriteFile(path, full[:n], 0o644)
		if s, err := openHeadStore(path, key); err == nil {
			s.close()
			t.Fatalf("a store cut to %d of %d bytes was accepted", n, len(full))
		}
	}
}

// FuzzHeadStore opens stores of any content behind a valid header and
// checksum, which is what a store damaged in a way the checksum misses
// would look like: opening and every lookup must fail cleanly or succeed,
// never panic.
func FuzzHeadStore(f *testing.F) {
	f.Add([]byte{})
	f.Add(appendString(binary.AppendUvarint(appendString(nil, "d"), 1), "a.html"))
	f.Fuzz(func(t *testing.T, body []byte) {
		var key [32]byte
		b := append([]byte(headStoreMagic), key[:]...)
		b = append(b, body...)
		b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
		path := filepath.Join(t.TempDir(), HeadStoreName)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := openHeadStore(path, key)
		if err != nil {
			return
		}
		defer s.close()
		for _, off := range s.offs {
			dir, _, _ := readString(s.data, int(off))
			if s.listing(dir) == nil {
				t.Errorf("directory %q found by the scan but not by lookup", dir)
			}
		}
	})
}
