package head

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sitemapd/sitemapd/internal/benchpage"
)

// BenchmarkRead reads the head of a page as site generators write them,
// from memory: the parsing cost per page, without the file system.
func BenchmarkRead(b *testing.B) {
	src := []byte(benchpage.Page("page.html", 99))
	b.SetBytes(int64(bytes.Index(src, []byte("</head>"))))
	for b.Loop() {
		if _, err := Read(bytes.NewReader(src), page); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadLongHead reads a page whose head holds 200 KiB of inline
// style before its robots meta tag: what a long head costs.
func BenchmarkReadLongHead(b *testing.B) {
	src := []byte(strings.Replace(benchpage.Page("page.html", 99), "<style>\n", "<style>\n"+strings.Repeat(".c{color:#123456}\n", 200<<10/18), 1))
	src = bytes.Replace(src, []byte("</style>"), []byte(`</style><meta name="robots" content="noindex">`), 1)
	b.SetBytes(int64(bytes.Index(src, []byte("</head>"))))
	for b.Loop() {
		if _, err := Read(bytes.NewReader(src), page); err != nil {
			b.Fatal(err)
		}
	}
}
