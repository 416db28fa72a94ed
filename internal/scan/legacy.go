package scan

import (
	"fmt"
	"io"

	"github.com/cespare/xxhash/v2"
	"golang.org/x/sys/unix"

	"github.com/sitemapd/sitemapd/internal/head"
)

// Before v0.3.2, a page of over smallPage bytes read as a stream (every
// page under pages.lastmod: content, and pages read before their prints
// are) had the bytes after its head hashed twice: the reader teed into
// the digest, and io.Copy wrote what it read into it again. A page read
// whole had its bytes' true hash. Page stores written then hold such
// sums, so the same bytes, read now, look changed: a lastmod would move,
// and the URL be owed, for nothing. legacySum tells them apart, once: a
// page whose bytes hash to what the store holds the old way has the same
// bytes, and gets its true sum from then on.

// mayBeLegacy reports whether a page whose stored sum is known, and
// whose bytes now hash to sum (printed: its print was made), is to be
// hashed the old way too: its bytes look changed, it is large enough to
// have been streamed, and no print of both versions can decide. Under
// pages.lastmod: content a large page that really changed is thus read
// twice: a cost of its change, not of a build that finds nothing new.
func (rd reading) mayBeLegacy(size int64, sum uint64, printed bool) bool {
	return rd.known.sum != 0 && sum != rd.known.sum && size > smallPage &&
		(!printed || !rd.known.printed)
}

// legacySum hashes the page open as fd (size bytes, at pageURL) as a
// stream was hashed before v0.3.2: from its start, what the head reader
// took (when heads were read) once, and the rest twice, in io.Copy's
// pieces. It reads the page again from its start.
func legacySum(fd int, size int64, heads bool, pageURL string) (uint64, error) {
	if _, err := unix.Seek(fd, 0, io.SeekStart); err != nil {
		return 0, err
	}
	d := xxhash.New()
	r := io.TeeReader(io.LimitReader(fdReader(fd), size), d)
	if heads {
		if _, err := head.Read(r, pageURL); err != nil {
			return 0, err
		}
	}
	if _, err := io.Copy(d, r); err != nil {
		return 0, err
	}
	return d.Sum64(), nil
}

// checkLegacy sets pr.legacy when the page (open as fd, of size bytes
// when stat saw it) looks changed only by how its stored sum was made.
func (w *Walk) checkLegacy(pr *pageRead, fd int, size int64, rd reading, pageURL string) error {
	if !rd.content || !rd.mayBeLegacy(size, pr.sum, pr.printed) {
		return nil
	}
	sum, err := legacySum(fd, size, rd.heads, pageURL)
	if err != nil {
		return fmt.Errorf("read failed: %w", err)
	}
	pr.legacy = sum == rd.known.sum
	return nil
}
