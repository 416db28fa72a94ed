package scan

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/cespare/xxhash/v2"
	"golang.org/x/sys/unix"

	"github.com/sitemapd/sitemapd/internal/head"
	"github.com/sitemapd/sitemapd/internal/significant"
)

// reading says what read reads of a page: its head, its images, the
// hash of its bytes, and (print) what it says, unless its bytes' hash
// tells that is not needed.
type reading struct {
	heads, images, content, print bool
	unless                        func(sum uint64) bool
	// known is what the page store has of the page: its bytes' hash (0
	// for none) and whether it has a print (see legacySum).
	known struct {
		sum     uint64
		printed bool
	}
}

// what read read of a page.
type pageRead struct {
	sum     uint64
	info    head.Info
	images  []string
	print   significant.Print
	printed bool // print was made
	// legacy says the bytes are those whose hash the page store has, as
	// hashed before v0.3.2 (legacySum).
	legacy bool
}

// wantsPrint reports whether the page whose bytes hash to sum is to be
// read for its print.
func (rd reading) wantsPrint(sum uint64) bool {
	return rd.print && (rd.unless == nil || !rd.unless(sum))
}

// read reads a page's file (dirFD is its directory, open, or -1): what rd
// says (loc is its URL), up to the size stat saw.
//
// It fails with errInFlux, having read all the same, when the file's stamp
// after the read is not st's: it was being written.
func (w *Walk) read(rel, name, loc string, st fileStat, dirFD int, rd reading) (pr pageRead, err error) {
	// Plain system calls, not os.Open: open, read, close, where an
	// os.File costs nine (it probes the poller and the file's flags),
	// and the walk opens every page. O_NONBLOCK: a page swapped for a
	// fifo since its stat fails its read instead of blocking the walk.
	// Relative to the directory being read, when it is open: the kernel
	// then looks up one name, not the whole path.
	// O_NOFOLLOW for a page that was a file when its directory was
	// read: one swapped for a link since is not followed out of the root.
	flags := unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NONBLOCK
	if !st.viaLink {
		flags |= unix.O_NOFOLLOW
	}
	var fd int
	if dirFD >= 0 {
		fd, err = unix.Openat(dirFD, name, flags, 0)
	} else {
		fd, err = unix.Open(w.abs(rel), flags, 0)
	}
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			return pr, err
		}
		return pr, fmt.Errorf("cannot open: %w", err)
	}
	defer unix.Close(fd)
	defer func() {
		var after unix.Stat_t
		switch {
		case err != nil || unix.Fstat(fd, &after) != nil:
		case after.Mode&unix.S_IFMT != unix.S_IFREG:
			// Swapped for a FIFO (which read nothing, as it was opened
			// non-blocking) or a device since its stat.
			err = fmt.Errorf("cannot read: no longer a regular file")
		case after.Mtim.Nano() != st.mtime || after.Ctim.Nano() != st.ctime || after.Size != st.size:
			err = errInFlux
		}
	}()
	size := max(st.size, 0)
	if size <= smallPage || (rd.print && size <= significant.Limit) {
		// A small page takes one read, with no second one to find the
		// end, into a buffer used again for the next page. So does a
		// page that may be printed: the print reads it whole, and one
		// read serves its hash, head, print and images.
		pr, err = w.readWhole(fd, size, rel, loc, rd)
	} else {
		pr, err = w.readStreamed(fd, size, rel, loc, rd)
	}
	if err != nil {
		return pr, err
	}
	return pr, w.checkLegacy(&pr, fd, st.size, rd, loc)
}

// readWhole reads what rd says of the page open as fd, of size bytes,
// from one read of it into a buffer.
func (w *Walk) readWhole(fd int, size int64, rel, loc string, rd reading) (pr pageRead, err error) {
	bp := pageBuf(size)
	defer putPageBuf(bp)
	n, err := io.ReadFull(fdReader(fd), (*bp)[:size])
	if err != nil && err != io.ErrUnexpectedEOF { // shrunk since its stat: read what is there
		return pr, fmt.Errorf("read failed: %w", err)
	}
	b := (*bp)[:n]
	if rd.content {
		pr.sum = xxhash.Sum64(b)
	}
	if rd.wantsPrint(pr.sum) {
		pr.print, pr.printed = w.printOf(b, rel, loc, pr.sum, rd.content)
	}
	if rd.heads {
		if pr.info, err = head.ReadBytes(b, loc); err != nil {
			return pr, err
		}
	}
	if rd.images {
		if pr.images, err = w.images(bytes.NewReader(b), loc, rel); err != nil {
			return pr, err
		}
	}
	return pr, nil
}

// readStreamed reads what rd says of a larger page, open as fd, of size
// bytes, as far as its head goes, and, for its hash, to its end; for its
// images, again from its start, as it streams (the page cache has it):
// holding a whole page would cost the memory of the largest.
func (w *Walk) readStreamed(fd int, size int64, rel, loc string, rd reading) (pr pageRead, err error) {
	r := io.Reader(io.LimitReader(fdReader(fd), size))
	var d *xxhash.Digest
	if rd.content {
		d = xxhash.New()
		r = io.TeeReader(r, d)
	}
	if rd.heads {
		if pr.info, err = head.Read(r, loc); err != nil {
			return pr, fmt.Errorf("read failed: %w", err)
		}
	}
	if rd.content {
		// r tees into d: the rest goes through it once, so that the sum
		// is the bytes' xxhash, as a page read whole has it. (Copying
		// into d hashed the rest twice: the same bytes read the other way,
		// under the other pages.lastmod rule or with prints deferred,
		// looked changed.)
		if _, err := io.Copy(io.Discard, r); err != nil {
			return pr, fmt.Errorf("read failed: %w", err)
		}
		pr.sum = d.Sum64()
	}
	if rd.images {
		if pr.images, err = w.readImages(fd, int(size), loc, rel); err != nil {
			return pr, fmt.Errorf("read failed: %w", err)
		}
	}
	return pr, nil
}

// largePage is the largest buffer pageBuf keeps for the next page: a few
// walkers each holding one cost some MiB at most; a larger page (up to
// significant.Limit) gets a buffer of its own, as printing it did before.
const largePage = 256 << 10

var largePages = sync.Pool{New: func() any { b := make([]byte, largePage); return &b }}

// pageBuf is a buffer of at least size bytes for a page read whole, to
// be given back with putPageBuf.
func pageBuf(size int64) *[]byte {
	switch {
	case size <= smallPage:
		return smallPages.Get().(*[]byte)
	case size <= largePage:
		return largePages.Get().(*[]byte)
	}
	b := make([]byte, size)
	return &b
}

func putPageBuf(bp *[]byte) {
	switch cap(*bp) {
	case smallPage:
		smallPages.Put(bp)
	case largePage:
		largePages.Put(bp)
	}
}
