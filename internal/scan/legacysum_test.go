package scan

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
	"go.uber.org/zap"
	"golang.org/x/sys/unix"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/head"
	"github.com/sitemapd/sitemapd/internal/siteurl"
)

// streamedSum is the hash v0.3.1 and earlier recorded for a page read as
// a stream: their code, as it was (read.go), the oracle of legacySum.
func streamedSum(b []byte, heads bool, loc string) uint64 {
	r := io.Reader(io.LimitReader(bytes.NewReader(b), int64(len(b))))
	d := xxhash.New()
	r = io.TeeReader(r, d)
	if heads {
		head.Read(r, loc) //nolint:errcheck
	}
	io.Copy(d, r) //nolint:errcheck
	return d.Sum64()
}

// legacyPage is an HTML page of about n bytes.
func legacyPage(n int) []byte {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><title>A page</title><meta name="description" content="What it says">` +
		`<link rel="canonical" href="https://docs.test/a.html"></head><body><main>`)
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "<p>Paragraph %d of the page, which says something of its own.</p>\n", i)
	}
	b.WriteString("</main></body></html>\n")
	return []byte(b.String())
}

// TestLegacySum: legacySum is the hash the code before made of a page
// streamed, head read first or not, whatever its size; and a page whose
// known hash is that one is read as the same bytes, whole (a page to
// print) or streamed (a PDF, or pages.lastmod: content), while another
// known hash is not.
func TestLegacySum(t *testing.T) {
	for _, n := range []int{smallPage + 1, 40 << 10, 3*legacyChunk + 17, 200 << 10} {
		b := legacyPage(n)
		for _, heads := range []bool{true, false} {
			want := streamedSum(b, heads, "https://docs.test/a.html")
			if got := legacySum(b, heads, "https://docs.test/a.html"); got != want {
				t.Errorf("%d bytes, heads %v: legacySum %x, the code before made %x", len(b), heads, got, want)
			}
			if want == xxhash.Sum64(b) {
				t.Errorf("%d bytes: the old hash is the bytes' xxhash: the test tells nothing", len(b))
			}
		}
	}

	root := t.TempDir()
	b := legacyPage(40 << 10)
	if err := os.WriteFile(filepath.Join(root, "a.html"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load([]byte("root: "+root+"\nbase_url: https://docs.test/\nstate_dir: \"\"\n"), filepath.Join(root, "sitemapd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s := New(cfg, zap.NewNop(), siteurl.New(cfg), Options{})
	w, err := s.NewWalk(context.Background(), WalkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var ust unix.Stat_t
	if err := unix.Stat(filepath.Join(root, "a.html"), &ust); err != nil {
		t.Fatal(err)
	}
	old := streamedSum(b, true, "https://docs.test/a.html")
	for _, print := range []bool{true, false} {
		for _, c := range []struct {
			known uint64
			same  bool
		}{{old, true}, {old + 1, false}, {0, false}} {
			rd := reading{heads: true, content: true, print: print, known: c.known}
			pr, err := w.read("a.html", "a.html", "https://docs.test/a.html", statOf(&ust), -1, rd)
			if err != nil {
				t.Fatal(err)
			}
			if pr.sum != xxhash.Sum64(b) || pr.legacy != c.same {
				t.Errorf("print %v, known %x: sum %x, legacy %v; want %x, %v", print, c.known, pr.sum, pr.legacy, xxhash.Sum64(b), c.same)
			}
		}
	}
}
