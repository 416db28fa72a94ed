package head

import (
	"bytes"
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
