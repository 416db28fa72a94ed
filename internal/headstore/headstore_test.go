package headstore

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sitemapd/sitemapd/internal/tree"
)

// TestHeadStoreTruncated reads a store cut at every length: each is
// refused, none panics.
func TestHeadStoreTruncated(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, Name)
	var key [32]byte
	w, err := Create(path, key)
	if err != nil {
		t.Fatal(err)
	}
	l := tree.NewListing([]tree.Page{
		{Name: "a.html", MTime: 1, Size: 10},
		{Name: "b.html", MTime: -2, Size: 20, Head: tree.Head{Out: tree.NoIndex}},
		{Name: "c.html", MTime: 3, Size: tree.Unread, Head: tree.Head{Alts: "de\x00https://example.com/de/\x00"}},
	}, true, nil, tree.DirID{})
	w.Add("x/y", l)
	w.Add("", tree.NewListing([]tree.Page{{Name: "i.html", MTime: 4, Size: 5}}, true, nil, tree.DirID{}))
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path, key)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Listing("x/y")
	if got == nil || !reflect.DeepEqual(got.Pages(), l.Pages()) {
		t.Errorf("read back %+v\nwrote %+v", got, l)
	}
	if s.Listing("") == nil || s.Listing("x") != nil {
		t.Error("lookup by directory is wrong")
	}
	s.Close()
	if _, err := Open(path, [32]byte{1}); err == nil {
		t.Error("opened with another key")
	}
	full, _ := os.ReadFile(path)
	for n := range len(full) {
		os.WriteFile(path, full[:n], 0o644)
		if s, err := Open(path, key); err == nil {
			s.Close()
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
		b := append([]byte(magic), key[:]...)
		b = append(b, body...)
		b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
		path := filepath.Join(t.TempDir(), Name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Open(path, key)
		if err != nil {
			return
		}
		defer s.Close()
		for _, off := range s.offs {
			dir, _, _ := readString(s.data, int(off))
			if s.Listing(dir) == nil {
				t.Errorf("directory %q found by the scan but not by lookup", dir)
			}
		}
	})
}
