package head

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/sitemapd/sitemapd/internal/benchpage"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// page is the URL every test page is read at.
const page = "https://example.com/dir/page.html"

// format writes an Info one fact a line, for golden files.
func format(info Info) string {
	var b strings.Builder
	fmt.Fprintf(&b, "noindex: %v\n", info.NoIndex)
	for _, c := range info.Canonicals {
		fmt.Fprintf(&b, "canonical: %s\n", c)
	}
	for _, a := range info.Alternates {
		fmt.Fprintf(&b, "alternate: %s %s\n", a.Lang, a.Href)
	}
	if info.Redirect != "" {
		fmt.Fprintf(&b, "redirect: %s\n", info.Redirect)
	}
	if !info.Modified.IsZero() {
		fmt.Fprintf(&b, "modified: %s\n", info.Modified.Format(time.RFC3339Nano))
	}
	if !info.Article.Published.IsZero() {
		fmt.Fprintf(&b, "article: %s %q\n", info.Article.Published.Format(time.RFC3339Nano), info.Article.Title)
	}
	fmt.Fprintf(&b, "truncated: %v\n", info.Truncated)
	for _, p := range info.Problems {
		fmt.Fprintf(&b, "problem: %s\n", p)
	}
	for _, p := range info.Article.Problems {
		fmt.Fprintf(&b, "article problem: %s\n", p)
	}
	return b.String()
}

// TestGolden reads each page in testdata and compares what it found with
// the page's .golden file (go test -update rewrites them).
func TestGolden(t *testing.T) {
	pages, _ := filepath.Glob("testdata/*.html")
	if len(pages) == 0 {
		t.Fatal("no test pages")
	}
	// Heads whose inline style pushes a robots meta tag, a canonical link
	// and a meta refresh 200 KiB in, within Limit, and past it: those are
	// not read, and the result says the head was cut.
	cases := map[string][]byte{"long-head": styledHead(200 << 10), "too-long-head": styledHead(Limit)}
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cases[strings.TrimSuffix(filepath.Base(p), ".html")] = b
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			info, err := Read(bytes.NewReader(src), page)
			if err != nil {
				t.Fatal(err)
			}
			got := format(info)
			// The tokenizer reads its input in pieces: the outcome must
			// not depend on where they end. (Pages of hundreds of
			// kilobytes are read in pieces of 1021 bytes, not one: the
			// tokenizer moves what it holds of a token to the front of
			// its buffer at each read, and the race detector checks
			// every move.)
			var pieces io.Reader = iotest.OneByteReader(bytes.NewReader(src))
			if len(src) > 64<<10 {
				pieces = &chunkReader{r: bytes.NewReader(src), n: 1021}
			}
			slow, err := Read(pieces, page)
			if err != nil {
				t.Fatal(err)
			}
			if s := format(slow); s != got {
				t.Errorf("read in pieces:\n%s\nread whole:\n%s", s, got)
			}
			// Read from memory, as small pages are: the same outcome.
			if whole, err := ReadBytes(src, page); err != nil || format(whole) != got {
				t.Errorf("ReadBytes (%v):\n%s\nRead:\n%s", err, format(whole), got)
			}
			golden := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test -update writes it)", err)
			}
			if got != string(want) {
				t.Errorf("got:\n%s\nwant (%s):\n%s", got, golden, want)
			}
		})
	}
}

// TestLateHead reads heads whose inline style pushes their tags far in:
// up to Limit they are seen, past it they are not, and Truncated says so.
func TestLateHead(t *testing.T) {
	for _, tc := range []struct {
		style             int // bytes of style before the tags
		noindex, truncate bool
	}{
		{200 << 10, true, false},
		{Limit - 4<<10, true, false},
		{Limit + 1, false, true},
	} {
		src := styledHead(tc.style)
		info, err := Read(bytes.NewReader(src), page)
		if err != nil {
			t.Fatal(err)
		}
		var redirect string
		if tc.noindex {
			redirect = "https://example.com/dir/moved.html"
		}
		if info.NoIndex != tc.noindex || info.Truncated != tc.truncate || info.Redirect != redirect {
			t.Errorf("%d bytes of style: noindex %v, truncated %v, redirect %q; want %v, %v, %q",
				tc.style, info.NoIndex, info.Truncated, info.Redirect, tc.noindex, tc.truncate, redirect)
		}
	}
}

// styledHead is a head with n bytes (or a few more) of inline style, then
// a robots noindex, a canonical link and a meta refresh.
func styledHead(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`<!doctype html><html><head><title>long</title><meta name="robots" content="nofollow"><style>`)
	for start := b.Len(); b.Len()-start < n; {
		b.WriteString(".c{color:#123456}\n")
	}
	b.WriteString(`</style><meta name="robots" content="noindex"><link rel="canonical" href="/elsewhere">`)
	b.WriteString(`<meta http-equiv="refresh" content="0; url=moved.html"></head><body>`)
	return b.Bytes()
}

// TestReadsOnlyTheHead checks that a page is read no further than its
// head, and never past Limit, whatever its size.
func TestReadsOnlyTheHead(t *testing.T) {
	body := strings.Repeat("<p>paragraph</p>\n", 100_000) // 1.7 MB
	for _, tc := range []struct {
		name string
		page string
		max  int64
	}{
		{"head ends", `<html><head><title>t</title></head><body>` + body, 4096},
		{"body starts", `<title>t</title><p>` + body, 4096},
		{"no end in sight", `<head><script>` + body, Limit},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &countReader{r: strings.NewReader(tc.page)}
			if _, err := Read(r, page); err != nil {
				t.Fatal(err)
			}
			if r.n > tc.max {
				t.Errorf("read %d bytes of a %d-byte page; want at most %d", r.n, len(tc.page), tc.max)
			}
		})
	}
}

// TestOrdinaryPageMemory checks that the memory a read takes follows the
// head read, not Limit: an ordinary page's head of a few kilobytes costs a
// few kilobytes, however large Limit is.
func TestOrdinaryPageMemory(t *testing.T) {
	src := []byte(benchpage.Page("page.html", 99))
	const runs = 100
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		if _, err := Read(bytes.NewReader(src), page); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / runs; per > 32<<10 {
		t.Errorf("a read of a page with a %d-byte head allocates %d bytes", bytes.Index(src, []byte("</head>")), per)
	}
}

// chunkReader reads at most n bytes at a time.
type chunkReader struct {
	r io.Reader
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	return c.r.Read(p[:min(len(p), c.n)])
}

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// TestMentions checks the test that lets a page go untokenized: no
// "<meta", "<link" or "<base" in any case, no such element.
func TestMentions(t *testing.T) {
	for _, tc := range []struct {
		page string
		want bool
	}{
		{"", false},
		{"<!doctype html><title>x</title><p>meta link base</p>", false},
		{"<me", false},
		{"<meta name=robots content=noindex>", true},
		{"<title>x</title><LINK rel=canonical href=/>", true},
		{"<BaSe href=/>", true},
		{"<metadata>", true}, // a false alarm costs a tokenizer run only
		{"a <-meta <:link", false},
		{`<Meta Http-Equiv="Refresh" content="0; url=/">`, true},
		{`<SCRIPT type="application/ld+json">{"dateModified":"2024-01-02"}</script>`, true},
		{"<scr", false},
	} {
		if got := mentions([]byte(tc.page)); got != tc.want {
			t.Errorf("mentions(%q) = %v, want %v", tc.page, got, tc.want)
		}
	}
}

// TestReadError passes on an error from the reader: a page that could not
// be read is not a page without a noindex.
func TestReadError(t *testing.T) {
	boom := errors.New("disk on fire")
	_, err := Read(io.MultiReader(strings.NewReader("<head><title>"), iotest.ErrReader(boom)), page)
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want %v", err, boom)
	}
}

// FuzzRead reads any bytes as a page: never a panic, never a link or
// redirect that is not absolute http(s), a modification date in UTC that
// reads back as itself, and the same outcome from a reader as from memory.
func FuzzRead(f *testing.F) {
	pages, _ := filepath.Glob("testdata/*.html")
	for _, p := range pages {
		b, _ := os.ReadFile(p)
		f.Add(b)
	}
	for _, tc := range modifiedCases {
		f.Add([]byte(tc.page))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		info, err := Read(bytes.NewReader(src), page)
		if err != nil {
			t.Fatal(err)
		}
		whole, err := ReadBytes(src, page)
		if err != nil {
			t.Fatal(err)
		}
		if len(src) < Limit && format(whole) != format(info) {
			t.Errorf("ReadBytes:\n%s\nRead:\n%s", format(whole), format(info))
		}
		for _, a := range info.Alternates {
			if !strings.HasPrefix(a.Href, "http://") && !strings.HasPrefix(a.Href, "https://") {
				t.Errorf("alternate %q", a.Href)
			}
		}
		if r := info.Redirect; r != "" && !strings.HasPrefix(r, "http://") && !strings.HasPrefix(r, "https://") {
			t.Errorf("redirect %q", r)
		}
		if m := info.Modified; !m.IsZero() {
			back, err := parseDate(m.Format(time.RFC3339Nano))
			if m.Location() != time.UTC || err != nil || !back.Equal(m) {
				t.Errorf("modified %v (%v): reads back as %v, %v", m, m.Location(), back, err)
			}
		}
		for _, c := range info.Canonicals {
			if !strings.HasPrefix(c, "http://") && !strings.HasPrefix(c, "https://") {
				t.Errorf("canonical %q", c)
			}
		}
	})
}
