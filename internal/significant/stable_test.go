package significant

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"

	"github.com/sitemapd/sitemapd/internal/benchpage"
)

var update = flag.Bool("update", false, "rewrite testdata/prints.golden")

// TestPrintsStable holds Read and Print to what they made when the page
// store's prints were recorded: a page store keeps each page's Print sum,
// and a Print that moved for the same bytes would move that page's
// lastmod once, on every site, at an upgrade. testdata/prints.golden was
// written by the reader as it was before it was made faster (7cb5edb), on
// the real pages the tests keep (generators' output in testdata/bench,
// the head package's real pages, the fuzz corpus); any change to what is
// read, hashed or kept shows here (each page's whole Page is digested,
// not only its Print). Rewrite it (-update) only when the pages
// themselves changed (testdata edited: check the diff is theirs alone),
// or with a page store version bump.
func TestPrintsStable(t *testing.T) {
	srcs, keys := stableSources(t)
	main, _ := ParseSelector("article")
	ignore, _ := ParseSelectors([]string{".sidebar", "nav"})
	optSets := []Options{
		{URL: "https://docs.example/dir/page.html"},
		{URL: "/dir/", Main: main, Ignore: ignore},
	}
	pages := make([][]*Page, len(optSets))
	l := NewLearner(nil)
	for i, opts := range optSets {
		for _, k := range keys {
			p, err := Read(srcs[k], opts)
			if err != nil {
				t.Fatal(k, err)
			}
			pages[i] = append(pages[i], p)
			if i == 0 {
				l.Add(p)
			}
		}
	}
	model := l.Model()
	var out bytes.Buffer
	for i := range optSets {
		for j, k := range keys {
			p := pages[i][j]
			var none *Model
			// ReadPrint, reading every page in turn into Pages used
			// again, prints what Read and Print do.
			for _, m := range []*Model{none, model} {
				if pr, err := ReadPrint(srcs[k], optSets[i], m); err != nil || pr != m.Print(p) {
					t.Errorf("%s: ReadPrint = %x, %v; Print(Read) = %x", k, pr.Bytes(), err, m.Print(p).Bytes())
				}
			}
			fmt.Fprintf(&out, "%d %s page=%016x none=%x model=%x\n", i, k, pageDigest(p), none.Print(p).Bytes(), model.Print(p).Bytes())
		}
	}
	checkGolden(t, "prints.golden", out.String())
}

// checkGolden compares got with testdata/name line by line (-update
// writes it first).
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	for i := range min(len(gl), len(wl)) {
		if gl[i] != wl[i] {
			t.Errorf("%s: got  %s\nwant %s", name, gl[i], wl[i])
		}
	}
	if len(gl) != len(wl) {
		t.Errorf("%s: %d lines, want %d", name, len(gl), len(wl))
	}
}

// stableSources are the pages TestPrintsStable reads, by name, and
// their names in order.
func stableSources(t *testing.T) (map[string][]byte, []string) {
	srcs := map[string][]byte{"benchpage": []byte(benchpage.Page("page.html", 99))}
	for _, name := range stablePages(t) {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		srcs[name] = fuzzInput(b)
	}
	return srcs, slices.Sorted(maps.Keys(srcs))
}

// stablePages are the real pages TestPrintsStable reads.
func stablePages(t *testing.T) []string {
	var names []string
	for _, pattern := range []string{"testdata/bench/*.html", "../head/testdata/*.html", "testdata/fuzz/FuzzRead/*"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, m...)
	}
	if len(names) < 40 {
		t.Fatalf("%d pages: testdata moved?", len(names))
	}
	return names
}

// fuzzInput is a fuzz corpus file's input (its []byte value), or b as it
// is for any other file.
func fuzzInput(b []byte) []byte {
	const head = "go test fuzz v1\n[]byte("
	if !bytes.HasPrefix(b, []byte(head)) {
		return b
	}
	var s string
	if _, err := fmt.Sscanf(strings.TrimSpace(string(b[len(head):])), "%q", &s); err != nil {
		return b
	}
	return []byte(s)
}

// pageDigest hashes everything a Page keeps.
func pageDigest(p *Page) uint64 {
	var b []byte
	u := func(v uint64) { b = binary.LittleEndian.AppendUint64(b, v) }
	u(p.title)
	u(uint64(len(p.data)))
	for _, d := range p.data {
		u(d)
	}
	u(uint64(len(p.nodes)))
	for _, n := range p.nodes {
		u(uint64(uint32(n.parent)) | uint64(uint32(n.tok0))<<32)
		u(uint64(n.ntok) | uint64(n.tag)<<16 | uint64(n.flags)<<24)
		u(n.role)
	}
	u(uint64(len(p.toks)))
	for _, k := range p.toks {
		u(k)
	}
	u(uint64(len(p.blocks)))
	for _, bl := range p.blocks {
		u(uint64(uint32(bl.node)) | uint64(bl.kind)<<32)
		u(uint64(bl.weight))
		u(bl.hash)
	}
	var flags uint64
	if p.main {
		flags |= 1
	}
	if p.landmk {
		flags |= 2
	}
	u(flags)
	return xxhash.Sum64(b)
}

// addRef is textBuf.add as first written, a byte at a time: the
// reference its faster copy is held to (FuzzTextBuf).
func (t *textBuf) addRef(s []byte) {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case spaces[c]:
			t.space = true
			i++
		case c == 0:
			i++
		case c == 0xC2 && i+1 < len(s) && s[i+1] == 0xA0:
			t.space = true
			i += 2
		default:
			if t.space && len(t.b) > 0 {
				t.b = append(t.b, ' ')
			}
			t.space = false
			t.b = append(t.b, c)
			i++
		}
	}
}

// FuzzTextBuf: text added in any pieces collapses as the reference does.
//
//	go test -run '^$' -fuzz FuzzTextBuf ./internal/significant
func FuzzTextBuf(f *testing.F) {
	for _, s := range []string{"Lorem ipsum  dolor\tsit\u00a0amet, \u00a9 caf\u00e9 ", " a b  c ", "\x00a\x00 b\xc2", "\xc2\xa0\xc2\xc2\xa0x",
		"Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.",
		"abcdefg hijklmn  opqrstu\tvwxyz12 3456789 ", "1234567 1234567 1234567\xc2\xa0123456 "} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, s []byte, cut uint8) {
		var got, want textBuf
		k := int(cut) % (len(s) + 1)
		got.add(s[:k])
		got.add(s[k:])
		want.addRef(s[:k])
		want.addRef(s[k:])
		if !bytes.Equal(got.b, want.b) || got.space != want.space {
			t.Fatalf("add(%q, %q) = %q (space %v), want %q (space %v)", s[:k], s[k:], got.b, got.space, want.b, want.space)
		}
	})
}

// FuzzJSONHash: a JSON-LD script's hash is the same whether the fast
// reader or encoding/json reads it (decodedJSONHash, the rule).
//
//	go test -run '^$' -fuzz FuzzJSONHash ./internal/significant
func FuzzJSONHash(f *testing.F) {
	for _, name := range stablePagesF(f) {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for _, m := range jsonLDScript.FindAllSubmatch(b, -1) {
			f.Add(m[1])
		}
	}
	for _, s := range []string{
		`{"@context":"https://schema.org","@type":"Article","headline":"A \u00e9 title","dateModified":"2026-11-01T10:00:00Z","author":[{"@type":"Person","name":"Ann"}],"wordCount":1234,"rating":-1.5e3,"draft":false,"image":null}`,
		`{"a":1,"a":2}`, `{"b":[1,2,{"c":true}],"a":{}} trailing`, `[] `, ` {"x":"\u0041"}`, `{"x":"tab	in"}`,
		"{\"x\":\"\xff\"}", `{"x":01}`, `{"x":1.}`, `{"x":-0.5E+2}`, `[1,]`, `{"a":1,}`, `[truex]`, `"top"`, `12`, `{"a":[[[[[]]]]]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if got, want := jsonHash(raw), decodedJSONHash(raw); got != want {
			_, fast := fastJSONHash(raw)
			t.Fatalf("jsonHash(%q) = %x (fast: %v), encoding/json's %x", raw, got, fast, want)
		}
	})
}

var jsonLDScript = regexp.MustCompile(`(?s)<script[^>]*application/ld\+json[^>]*>(.*?)</script>`)

// stablePagesF is stablePages for a fuzz target.
func stablePagesF(f *testing.F) []string {
	var names []string
	for _, pattern := range []string{"testdata/bench/*.html", "../head/testdata/*.html"} {
		m, _ := filepath.Glob(pattern)
		names = append(names, m...)
	}
	if len(names) < 40 {
		f.Fatalf("%d pages: testdata moved?", len(names))
	}
	return names
}

// TestFastJSONTaken: the JSON-LD of the real pages in testdata (Hugo,
// Jekyll, Ghost, Yoast's escaped slashes) is read by fastJSONHash, not
// left to encoding/json: FuzzJSONHash compares two readers, not one.
func TestFastJSONTaken(t *testing.T) {
	n := 0
	for _, name := range stablePages(t) {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range jsonLDScript.FindAllSubmatch(b, -1) {
			n++
			if _, ok := fastJSONHash(m[1]); !ok {
				t.Errorf("%s: a JSON-LD script left to encoding/json:\n%s", name, m[1])
			}
		}
	}
	if n < 8 {
		t.Errorf("%d JSON-LD scripts in testdata, want 8 or more", n)
	}
}

// TestTagName: tagName's name and hash are the lower-case name's and
// nameHash of it, as the reader had them before it hashed as it read:
// ASCII's lower case, and for a name too long for its buffer (no element
// the reader knows) bytes.ToLower's, which lowers more than ASCII.
func TestTagName(t *testing.T) {
	long := "my-very-long-custom-element-name-\u00c9l\u00c9ment"
	for _, c := range []struct{ src, want string }{
		{"<P>", "p"}, {"<DiV class=x>", "div"}, {"<h1/>", "h1"}, {"<x-\u00c9\tid=a>", "x-\u00c9"},
		{"<" + long + ">", strings.ToLower(long)}, {"<a", "a"},
	} {
		r := &reader{src: []byte(c.src)}
		name, h, end := r.tagName(1)
		wantEnd := len(c.src)
		if k := strings.IndexAny(c.src[1:], " \t/>"); k >= 0 {
			wantEnd = 1 + k
		}
		if string(name) != c.want || h != nameHash([]byte(c.want)) || end != wantEnd {
			t.Errorf("tagName(%q) = %q, %x, %d; want %q, %x", c.src, name, h, end, c.want, nameHash([]byte(c.want)))
		}
	}
}
