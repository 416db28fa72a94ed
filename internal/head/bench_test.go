package head

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/sitemapd/sitemapd/internal/benchpage"
)

// benchPages are pages as site generators write them: benchpage's (the
// page bench/gentree writes, a 3 KB head), and pages of some 7 KB as Hugo
// (PaperMod: Open Graph, JSON-LD, a noscript of styles), Sphinx (Read the
// Docs theme: many scripts and stylesheets) and rustdoc (a real std page's
// head, a script writing links, a noscript) write them.
func benchPages(b *testing.B) []struct {
	name string
	src  []byte
} {
	pages := []struct {
		name string
		src  []byte
	}{{"benchpage", []byte(benchpage.Page("page.html", 99))}}
	for _, name := range []string{"hugo-papermod", "sphinx-rtd", "rustdoc"} {
		src, err := os.ReadFile("testdata/" + name + ".html")
		if err != nil {
			b.Fatal(err)
		}
		pages = append(pages, struct {
			name string
			src  []byte
		}{name, src})
	}
	return pages
}

// BenchmarkRead reads the head of pages from memory: the parsing cost per
// page, without the file system, by the tokenizer (readTokenized, what
// Read was) and by the fast path, as ReadBytes and as Read (a reader, in
// pieces). Its bytes are the head's.
//
//	go test -run '^$' -bench 'Read$' -count 10 ./internal/head | benchstat -col /impl -
func BenchmarkRead(b *testing.B) {
	for _, p := range benchPages(b) {
		b.Run("page="+p.name, func(b *testing.B) {
			benchImpls(b, p.src)
		})
	}
}

// BenchmarkReadLongHead reads a page whose head holds 200 KiB of inline
// style before its robots meta tag: what a long head costs.
func BenchmarkReadLongHead(b *testing.B) {
	src := []byte(strings.Replace(benchpage.Page("page.html", 99), "<style>\n", "<style>\n"+strings.Repeat(".c{color:#123456}\n", 200<<10/18), 1))
	src = bytes.Replace(src, []byte("</style>"), []byte(`</style><meta name="robots" content="noindex">`), 1)
	benchImpls(b, src)
}

func benchImpls(b *testing.B, src []byte) {
	for _, impl := range []struct {
		name string
		read func() (Info, error)
	}{
		{"tokenizer", func() (Info, error) { return readTokenized(bytes.NewReader(src), page) }},
		{"fast", func() (Info, error) { return ReadBytes(src, page) }},
		{"fast-reader", func() (Info, error) { return Read(bytes.NewReader(src), page) }},
	} {
		b.Run("impl="+impl.name, func(b *testing.B) {
			b.SetBytes(int64(bytes.Index(src, []byte("</head>"))))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := impl.read(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkImages reads the images of whole pages from memory (throughput
// is of the page's bytes): benchpage's page with an article's images, and
// the real-looking pages of BenchmarkRead; beside it, ReadBytes on the
// same page, the cost of its head alone.
func BenchmarkImages(b *testing.B) {
	pages := append(benchPages(b), struct {
		name string
		src  []byte
	}{"benchpage-images", []byte(benchpage.ImagePage("page.html", 99))})
	for _, p := range pages {
		b.Run("page="+p.name+"/impl=images", func(b *testing.B) {
			b.SetBytes(int64(len(p.src)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Images(bytes.NewReader(p.src), "https://bench.example/page.html", ImageOptions{Max: 1000}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("page="+p.name+"/impl=head", func(b *testing.B) {
			b.SetBytes(int64(len(p.src)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ReadBytes(p.src, "https://bench.example/page.html"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
