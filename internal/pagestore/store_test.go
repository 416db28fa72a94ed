package pagestore

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/news"
	"github.com/sitemapd/sitemapd/internal/publish"
	"github.com/sitemapd/sitemapd/internal/tree"
)

var testKeys = Keys{Times: [32]byte{1}, Heads: [32]byte{2}}

// listings are directories of every shape a store holds.
var listings = map[string]*tree.Listing{
	"x/y": tree.NewListing([]tree.Page{
		{Name: "a.html", Time: 1, Stamp: 11, Sum: 111},
		{Name: "b.html", Time: -2, Stamp: 22, Sum: 222, Head: tree.Head{Out: tree.NoIndex}},
		{Name: "c.html", Time: 3, Stamp: tree.NoStamp, Sum: 333, Head: tree.Head{Alts: "de\x00https://example.com/de/\x00"}},
	}, tree.KeepStamps|tree.KeepSums, nil, tree.DirID{}),
	"news": tree.NewListing([]tree.Page{
		{Name: "n.html", Time: 10, Stamp: 1010, Head: tree.Head{News: news.Pack(time.Unix(1_764_000_000, 5), "Rates rise\x00 & fall")}},
		{Name: "o.html", Time: 11, Stamp: 1111},
	}, tree.KeepStamps, nil, tree.DirID{}),
	"":     tree.NewListing([]tree.Page{{Name: "i.html", Time: 4, Stamp: 5}}, tree.KeepStamps, nil, tree.DirID{}),
	"sums": tree.NewListing([]tree.Page{{Name: "s.pdf", Time: 6, Sum: 7}}, tree.KeepSums, nil, tree.DirID{}),
	"prints": tree.NewListing([]tree.Page{
		{Name: "p.html", Time: 8, Stamp: 88, Sum: 888, Print: 8888, Parts: 88888},
		{Name: "q.html", Time: 9, Stamp: 99, Sum: 999}, // no print known yet
	}, tree.KeepStamps|tree.KeepSums|tree.KeepPrints, nil, tree.DirID{}),
	"empty": tree.NewListing(nil, tree.KeepStamps, nil, tree.DirID{}),
	// Pages whose times are their heads' dates (version 7 on), one of
	// them hidden, past a word of the listing's bits.
	"dated": tree.NewListing(datedPages(70), tree.KeepStamps|tree.KeepSums, nil, tree.DirID{}),
}

// datedPages are n pages, every third Dated, every fifth hidden.
func datedPages(n int) []tree.Page {
	ps := make([]tree.Page, n)
	for i := range ps {
		ps[i] = tree.Page{Name: fmt.Sprintf("d%02d.html", i), Time: int64(i), Stamp: uint64(i + 1), Dated: i%3 == 0}
		if i%5 == 0 {
			ps[i].Head.Out = tree.NoIndex
		}
	}
	return ps
}

func writeStore(t *testing.T, path string, ls map[string]*tree.Listing) {
	t.Helper()
	w, err := Create(path, testKeys)
	if err != nil {
		t.Fatal(err)
	}
	for d, l := range ls {
		w.Add(d, l)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
}

func samePages(t *testing.T, s *Store, dir string, want *tree.Listing) {
	t.Helper()
	got := s.Listing(dir)
	switch {
	case want == nil && got != nil:
		t.Errorf("%q: found %+v, want none", dir, got.Pages())
	case want != nil && got == nil:
		t.Errorf("%q: not found", dir)
	case want != nil && !reflect.DeepEqual(got.Pages(), want.Pages()):
		t.Errorf("%q: read back %+v\nwrote %+v", dir, got.Pages(), want.Pages())
	}
}

func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), Name)
	os.WriteFile(filepath.Join(filepath.Dir(path), LegacyName), []byte("old"), 0o600)
	writeStore(t, path, listings)
	if _, err := os.Stat(filepath.Join(filepath.Dir(path), LegacyName)); err == nil {
		t.Error("the legacy head store was left behind")
	}
	s, err := Open(path, testKeys)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for d, l := range listings {
		if l.Kept() == 0 {
			l = nil // not worth a block
		}
		samePages(t, s, d, l)
	}
	samePages(t, s, "x", nil)
	if got, want := s.Listing("dated").CountDated(), listings["dated"].CountDated(); got != want || want != 19 {
		// 24 of 70 are dated, 5 of them (every fifteenth) hidden.
		t.Errorf("dated pages listed read back: %d, wrote %d, want 19", got, want)
	}
	if s.Torn != 0 || s.HeadsLost() {
		t.Errorf("torn %d, heads lost %v", s.Torn, s.HeadsLost())
	}
}

// TestKeys: a store of other times is not used; one of other heads gives
// times and sums, with every page to be read again.
func TestKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), Name)
	writeStore(t, path, listings)
	if _, err := Open(path, Keys{Heads: testKeys.Heads}); !errors.Is(err, ErrOtherTimes) {
		t.Errorf("other times: %v, want ErrOtherTimes", err)
	}
	s, err := Open(path, Keys{Times: testKeys.Times})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !s.HeadsLost() {
		t.Error("heads of other rules not noted")
	}
	got := s.Listing("x/y")
	for i, p := range listings["x/y"].Pages() {
		if got.Stamp(i) != tree.NoStamp || got.Time(i) != p.Time || got.Sum(i) != p.Sum {
			t.Errorf("page %d: stamp %d time %d sum %d, want no stamp, %d, %d", i, got.Stamp(i), got.Time(i), got.Sum(i), p.Time, p.Sum)
		}
	}
}

// TestAppend: appended listings replace the directory's earlier one, and
// a store cut anywhere in an append keeps what precedes the cut.
func TestAppend(t *testing.T) {
	path := filepath.Join(t.TempDir(), Name)
	writeStore(t, path, listings)
	before, _ := os.ReadFile(path)
	newer := tree.NewListing([]tree.Page{{Name: "a.html", Time: 9, Stamp: 99, Sum: 999}}, tree.KeepStamps|tree.KeepSums, nil, tree.DirID{})
	size, err := Append(path, testKeys, []Entry{{Dir: "x/y", Listing: newer}, {Dir: "gone", Listing: tree.NewListing(nil, 0, nil, tree.DirID{})}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Append(path, Keys{}, []Entry{{Dir: "x/y", Listing: newer}}); err == nil {
		t.Error("appended to a store of other keys")
	}
	full, _ := os.ReadFile(path)
	if int64(len(full)) != size {
		t.Errorf("Append said %d bytes, the file has %d", size, len(full))
	}
	s, err := Open(path, testKeys)
	if err != nil {
		t.Fatal(err)
	}
	samePages(t, s, "x/y", newer)
	samePages(t, s, "", listings[""])
	if l := s.Listing("gone"); l == nil || l.Len() != 0 {
		t.Error("an emptied directory is not known as empty")
	}
	s.Close()
	for n := len(before); n < len(full); n++ {
		os.WriteFile(path, full[:n], 0o600)
		s, err := Open(path, testKeys)
		if err != nil {
			t.Fatalf("cut to %d of %d bytes: %v", n, len(full), err)
		}
		if want := n - lastBlockEnd(full[:n]); s.Torn != want {
			t.Errorf("cut to %d of %d bytes: %d torn, want %d", n, len(full), s.Torn, want)
		}
		if l := s.Listing("x/y"); l == nil || (l.Time(0) != 1 && l.Time(0) != 9) {
			t.Errorf("cut to %d bytes: directory lost", n)
		}
		s.Close()
	}
}

// TestTruncated reads a store cut at every length: a cut header is an
// error, a cut body keeps the blocks before the cut; none panics.
func TestTruncated(t *testing.T) {
	path := filepath.Join(t.TempDir(), Name)
	writeStore(t, path, listings)
	full, _ := os.ReadFile(path)
	for n := range len(full) {
		os.WriteFile(path, full[:n], 0o600)
		s, err := Open(path, testKeys)
		if n < headerLen {
			if err == nil {
				t.Errorf("a store cut to %d bytes, in its header, was accepted", n)
				s.Close()
			}
			continue
		}
		if err != nil {
			t.Fatalf("cut to %d bytes: %v", n, err)
		}
		if s.Torn != n-lastBlockEnd(full[:n]) {
			t.Errorf("cut to %d bytes: %d torn, want %d", n, s.Torn, n-lastBlockEnd(full[:n]))
		}
		s.Close()
	}
	damaged := append([]byte{}, full...)
	damaged[len(magic)+3] ^= 1
	os.WriteFile(path, damaged, 0o600)
	if _, err := Open(path, testKeys); err == nil || errors.Is(err, ErrOtherTimes) {
		t.Errorf("a damaged header: %v, want corrupt", err)
	}
	os.Remove(path)
	os.Mkdir(path, 0o700)
	if _, err := Open(path, testKeys); err == nil {
		t.Error("a directory was opened as a store")
	}
	aside, err := publish.Quarantine(path)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(aside); err != nil || !st.IsDir() {
		t.Errorf("not moved aside to %s: %v", aside, err)
	}
}

// lastBlockEnd is where the last whole block of a store ends, found by
// reading lengths only (an independent count of what Open must keep).
func lastBlockEnd(b []byte) int {
	end := headerLen
	for end < len(b) {
		_, next, err := readBlock(b, end)
		if err != nil {
			break
		}
		end = next
	}
	return end
}

// FuzzStore opens stores of any content behind a valid header, which is
// what a damaged store would look like: opening and every lookup must
// succeed or fail cleanly, never panic, and every directory Open keeps
// must be found by lookup.
func FuzzStore(f *testing.F) {
	f.Add([]byte{})
	f.Add(appendBlock(nil, "d", listings["x/y"]))
	f.Fuzz(func(t *testing.T, body []byte) {
		s := openBody(t, body)
		s.Each(func(dir string, l *tree.Listing) {
			if got := s.Listing(dir); got == nil || !reflect.DeepEqual(got.Pages(), l.Pages()) {
				t.Errorf("directory %q found by Each but not by lookup", dir)
			}
		})
	})
}

// TestImagesRoundTrip: a page's images are kept, beside its alternates.
func TestImagesRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), Name)
	want := map[string]*tree.Listing{"img": tree.NewListing([]tree.Page{
		{Name: "a.html", Time: 1, Stamp: 11, Sum: 111, Head: tree.Head{Images: "https://static.test/a.jpg\x00https://cdn.test/b%20c.png\x00"}},
		{Name: "b.html", Time: 2, Stamp: 22, Sum: 222, Head: tree.Head{Alts: "de\x00https://static.test/de/\x00", Images: "https://static.test/d.jpg\x00"}},
		{Name: "c.html", Time: 3, Stamp: 33, Sum: 333},
	}, tree.KeepStamps|tree.KeepSums, nil, tree.DirID{})}
	writeStore(t, path, want)
	s, err := Open(path, testKeys)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	samePages(t, s, "img", want["img"])
	if got := tree.Images(s.Listing("img").Head(0).Images); len(got) != 2 || got[1] != "https://cdn.test/b%20c.png" {
		t.Errorf("images read back: %q", got)
	}
}

// TestReadsOlderVersions reads stores that earlier versions wrote: the
// version before images (testdata/v3.pages.hex), the one before prints
// (v4), the one before news articles (v5), the one before pages'
// Dated bit (v6) and the one before amend blocks (v7): their pages, with
// no images, prints, articles or page dates (but v7's), under their keys;
// and
// their heads lost under other head rules (pages.images turned on), their
// times and sums kept.
func TestReadsOlderVersions(t *testing.T) {
	for _, v := range []string{"v3", "v4", "v5", "v6", "v7"} {
		t.Run(v, func(t *testing.T) { readsOlder(t, "testdata/"+v+".pages.hex") })
	}
}

func readsOlder(t *testing.T, fixture string) {
	b, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	var hexText []byte
	for line := range bytes.Lines(b) {
		if !bytes.HasPrefix(line, []byte("#")) {
			hexText = append(hexText, bytes.TrimSpace(line)...)
		}
	}
	data, err := hex.DecodeString(string(hexText))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), Name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path, testKeys)
	if err != nil {
		t.Fatal(err)
	}
	if s.HeadsLost() || s.Torn != 0 || s.Dirs() != 2 {
		t.Errorf("heads lost %v, torn %d, %d dirs; want false, 0, 2", s.HeadsLost(), s.Torn, s.Dirs())
	}
	samePages(t, s, "x/y", listings["x/y"])
	samePages(t, s, "", listings[""])
	s.Close()

	other := testKeys
	other.Heads[0]++
	s, err = Open(path, other)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := s.Listing("x/y").Pages()
	if !s.HeadsLost() || p[0].Stamp != tree.NoStamp || p[0].Time != 1 || p[0].Sum != 111 {
		t.Errorf("under other heads: lost %v, page %+v; want lost, no stamp, time 1, sum 111", s.HeadsLost(), p[0])
	}
	// Appends go to stores of this version only.
	if _, err := Append(path, testKeys, nil); err == nil {
		t.Error("appended to a store of an older version")
	}
}

// TestKeysNews: turning the news sitemap on changes the Heads key (pages
// are read again for their articles), not the Times key; which
// publications and paths it has changes neither (the build applies them).
func TestKeysNews(t *testing.T) {
	cfg := config.Default()
	cfg.Root, cfg.BaseURL = "/srv/www", "https://static.test/"
	off := KeysFor(&cfg)
	cfg.News.Publication = config.Publication{Name: "The Daily Test", Language: "en"}
	on := KeysFor(&cfg)
	if on.Times != off.Times || on.Heads == off.Heads {
		t.Errorf("news on: times key changed %v, heads key changed %v; want false, true", on.Times != off.Times, on.Heads != off.Heads)
	}
	cfg.News.Paths = []string{"/news/**"}
	cfg.News.Publication.Language = "de"
	if KeysFor(&cfg) != on {
		t.Error("news.paths or the language changed the keys")
	}
}

// TestKeysDated: under pages.head_dates, the Heads key is not the one a
// store of version 6 was written under (its headsKey did not depend on
// head_dates: the key it gave a site is the one of the site without
// them), so that store's pages are read again once, for which of them
// take their head's date; their times and sums are kept (the Times key
// is the same).
func TestKeysDated(t *testing.T) {
	cfg := config.Default()
	cfg.Root, cfg.BaseURL = "/srv/www", "https://static.test/"
	if !cfg.Pages.HeadDates {
		t.Fatal("pages.head_dates is off by default: this test assumes it on")
	}
	now := KeysFor(&cfg)
	cfg.Pages.HeadDates = false
	v6 := sha256.Sum256(headsKey(&cfg))
	if now.Heads == v6 {
		t.Error("a version 6 store of a site with head_dates keeps its heads: its pages would never say which took their head's date")
	}
	if KeysFor(&cfg).Heads != v6 {
		t.Error("without head_dates, the Heads key changed: every page would be read again for nothing")
	}
}

// TestKeysImages: turning images on changes the Heads key (pages are read
// again for their images), not the Times key; with images off, image_hosts
// change nothing.
func TestKeysImages(t *testing.T) {
	cfg := config.Default()
	cfg.Root, cfg.BaseURL = "/srv/www", "https://static.test/"
	off := KeysFor(&cfg)
	cfg.Pages.ImageHosts = []string{"cdn.static.test"}
	if KeysFor(&cfg) != off {
		t.Error("image_hosts changed the keys with images off")
	}
	cfg.Pages.Images = true
	on := KeysFor(&cfg)
	if on.Times != off.Times || on.Heads == off.Heads {
		t.Errorf("images on: times key changed %v, heads key changed %v; want false, true", on.Times != off.Times, on.Heads != off.Heads)
	}
	cfg.Pages.ImageHosts = nil
	if KeysFor(&cfg).Heads == on.Heads {
		t.Error("image_hosts do not change the heads key with images on")
	}
}

// TestBlockOfWrongShape: a block whose checksum holds but whose pages do
// not decode (no crash makes one; a bug could) loses its directory only:
// the directory is not known (its pages are read again), the blocks after
// it are, and nothing counts as torn.
func TestBlockOfWrongShape(t *testing.T) {
	bad := appendBlock(nil, "bad", listings["x/y"])
	// Cut the payload's last page short, and seal it with a checksum
	// that holds.
	n, off := binary.Uvarint(bad)
	payload := append([]byte(nil), bad[off:off+int(n)-3]...)
	bad = binary.AppendUvarint(nil, uint64(len(payload)))
	bad = append(bad, payload...)
	bad = binary.LittleEndian.AppendUint32(bad, crc32.Checksum(payload, castagnoli))
	body := append(appendBlock(nil, "x/y", listings["x/y"]), bad...)
	body = append(body, appendBlock(nil, "sums", listings["sums"])...)
	s := openBody(t, body)
	if s.Torn != 0 {
		t.Errorf("torn %d, want 0", s.Torn)
	}
	if s.Listing("bad") != nil {
		t.Error("a block that does not decode is known")
	}
	samePages(t, s, "x/y", listings["x/y"])
	samePages(t, s, "sums", listings["sums"])
	var each []string
	s.Each(func(dir string, _ *tree.Listing) { each = append(each, dir) })
	if !reflect.DeepEqual(each, []string{"sums", "x/y"}) {
		t.Errorf("Each: %q, want sums and x/y", each)
	}
}

// openBody opens a store of testKeys whose blocks are body; the store is
// closed when the test ends.
func openBody(t *testing.T, body []byte) *Store {
	t.Helper()
	path := filepath.Join(t.TempDir(), Name)
	if err := os.WriteFile(path, append(header(testKeys), body...), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path, testKeys)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// TestModel: the template model a store's prints were made under is read
// back with them; a store written without one has none.
func TestModel(t *testing.T) {
	dir := t.TempDir()
	with, without := filepath.Join(dir, "with"), filepath.Join(dir, "without")
	w, err := Create(with, testKeys)
	if err != nil {
		t.Fatal(err)
	}
	model := []byte("a model\x00with \xff bytes")
	w.SetModel(model)
	w.Add("prints", listings["prints"])
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	writeStore(t, without, listings)
	for _, c := range []struct {
		path string
		want []byte
	}{{with, model}, {without, nil}} {
		s, err := Open(c.path, testKeys)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Model(); !bytes.Equal(got, c.want) || s.Torn != 0 {
			t.Errorf("%s: model %q, torn %d; want %q, 0", filepath.Base(c.path), got, s.Torn, c.want)
		}
		if c.want != nil {
			samePages(t, s, "prints", listings["prints"])
		}
		s.Close()
	}
}

// TestModelOutlivesClose: the model a store gives is the caller's, not
// the mapping's, which Close takes away (a fault, not an error, if read
// after).
func TestModelOutlivesClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), Name)
	w, err := Create(path, testKeys)
	if err != nil {
		t.Fatal(err)
	}
	w.SetModel([]byte("model bytes"))
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path, testKeys)
	if err != nil {
		t.Fatal(err)
	}
	m := s.Model()
	s.Close()
	if string(m) != "model bytes" {
		t.Errorf("model after Close: %q", m)
	}
}
