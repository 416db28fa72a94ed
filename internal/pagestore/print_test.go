package pagestore

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"

	"github.com/sitemapd/sitemapd/internal/tree"
)

// TestReadsWholePrints: a store whose pages' prints are whole (a 64-bit
// print and 12-bit parts, as sitemapd wrote them before a Listing kept
// them short) is read as a Listing keeps them (tree.ShortPrint): a page
// read again after an upgrade compares its new print with the old one
// alike, and keeps its time if it says the same.
func TestReadsWholePrints(t *testing.T) {
	short, shortParts := tree.ShortPrint(0x9e3779b97f4a7c15, 0x0abc0def0123045)
	path := filepath.Join(t.TempDir(), Name)
	writeStore(t, path, map[string]*tree.Listing{"d": tree.NewListing([]tree.Page{
		{Name: "p.html", Time: 8, Stamp: 88, Sum: 888, Print: short, Parts: shortParts},
	}, tree.KeepStamps|tree.KeepSums|tree.KeepPrints, nil, tree.DirID{})})

	// What an older sitemapd wrote: the low bits of the print and the
	// high bits of each part, which a Listing does not keep, set.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	kept := binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, short), shortParts)
	at := bytes.Index(data, kept)
	if at < 0 || bytes.Count(data, kept) != 1 {
		t.Fatalf("the print is not in the store once")
	}
	binary.LittleEndian.PutUint64(data[at:], short|0x12_3456_789a)
	binary.LittleEndian.PutUint64(data[at+8:], shortParts|0x0f00f00f00f00f00)
	resum(t, data, at)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}

	s, err := Open(path, testKeys)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := s.Listing("d").Pages()[0]
	if p.Print != short || p.Parts != shortParts || p.Time != 8 || p.Sum != 888 {
		t.Errorf("read print %x parts %x time %d sum %d; want %x %x 8 888", p.Print, p.Parts, p.Time, p.Sum, short, shortParts)
	}
}

// resum sets the checksum of the block of data that holds offset at.
func resum(t *testing.T, data []byte, at int) {
	t.Helper()
	for off := headerLen; off < len(data); {
		n, k := binary.Uvarint(data[off:])
		start, end := off+k, off+k+int(n)
		if at >= start && at < end {
			binary.LittleEndian.PutUint32(data[end:], crc32.Checksum(data[start:end], castagnoli))
			return
		}
		off = end + 4
	}
	t.Fatal("no block holds the print")
}
