package scan

import (
	"bytes"
	"io"

	"github.com/cespare/xxhash/v2"

	"github.com/sitemapd/sitemapd/internal/head"
)

// Page stores written before the bytes hash was made one (up to v0.3.1)
// hold, for a page over smallPage read as a stream (every such page
// under pages.lastmod: content and in every store before significant;
// non-HTML pages, such as PDFs, and pages over significant.Limit under
// it), the xxhash of its bytes with those after its head written twice,
// one io.Copy buffer at a time: the digest took them from the read's
// TeeReader and again from io.Copy. A page whose hash is not the one
// known is checked against that one too, so that such a store's pages,
// redeployed with the same bytes, keep their lastmods.

// legacyChunk is io.Copy's buffer, which cut the rest of the page.
const legacyChunk = 32 << 10

// legacySum is the hash an older version recorded for the page b, read
// as a stream, its head read first if heads.
func legacySum(b []byte, heads bool, loc string) uint64 {
	d := xxhash.New()
	n := 0
	if heads {
		cr := &countingReader{r: bytes.NewReader(b)}
		head.Read(cr, loc) //nolint:errcheck // what it read is what counts
		n = cr.n
	}
	d.Write(b[:n])
	for rest := b[n:]; len(rest) > 0; {
		c := rest[:min(len(rest), legacyChunk)]
		d.Write(c)
		d.Write(c)
		rest = rest[len(c):]
	}
	return d.Sum64()
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// streamHashes hash a page read as a stream: its bytes' xxhash, as a
// page read whole has it, and, when a hash of it is known, legacySum's.
type streamHashes struct {
	d, old *xxhash.Digest
}

func newStreamHashes(known uint64) *streamHashes {
	h := &streamHashes{d: xxhash.New()}
	if known != 0 {
		h.old = xxhash.New()
	}
	return h
}

// Write takes what is read of the page, through a TeeReader.
func (h *streamHashes) Write(b []byte) (int, error) {
	h.d.Write(b)
	if h.old != nil {
		h.old.Write(b)
	}
	return len(b), nil
}

// rest reads the rest of the page from r, the TeeReader that writes to
// h: once into the xxhash (copying it into the digest as well hashed
// it twice: the same bytes read whole, or streamed, looked changed), and
// each io.Copy buffer a second time into legacySum's.
func (h *streamHashes) rest(r io.Reader) error {
	sink := io.Writer(io.Discard)
	if h.old != nil {
		sink = h.old
	}
	_, err := io.Copy(sink, r)
	return err
}

// sums are the page's hash, and whether known is its legacySum instead.
func (h *streamHashes) sums(known uint64) (sum uint64, legacy bool) {
	sum = h.d.Sum64()
	return sum, h.old != nil && sum != known && h.old.Sum64() == known
}
