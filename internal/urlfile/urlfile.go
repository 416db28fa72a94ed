// Package urlfile reads the files of extra_urls: the URLs of pages that are
// not files in the document root (an application's), one a line, each
// optionally followed by a tab and a W3C date, its lastmod:
//
//	https://shop.test/cart/	2024-05-01
//	https://shop.test/item/42	2024-05-01T10:30:00+02:00
//	# a comment; blank lines are skipped
//	https://shop.test/about
//
// A line that cannot be listed (a URL that is malformed or not under
// base_url, a date that is not a W3C date, a second line for the same URL)
// is refused with a Warning naming the file and line, and the others are
// read: one bad line must not take the rest of the file out of the
// sitemaps. Read is a pure function of the bytes and the configuration.
//
// Limits: a line is at most MaxLine bytes (a longer one is refused); the
// whole file is held in memory, about 100 bytes a URL.
package urlfile

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/head"
)

// MaxLine is the longest line read: a URL of 2,047 characters, a tab and a
// date, with room to spare for percent-encoding still to be done.
const MaxLine = 8 << 10

// Entry is one URL of a file, with the time its line states (zero for
// none).
type Entry struct {
	Loc  string // as config.Config.SiteURL returns it
	Time time.Time
	Line int // where the file states it
}

// Warning is a line refused.
type Warning struct {
	File string
	Line int
	Msg  string
}

func (w Warning) String() string { return fmt.Sprintf("%s:%d: %s", w.File, w.Line, w.Msg) }

// Read reads a URL file's lines from r (file names it in warnings) and
// returns its entries sorted by Loc, and the lines it refused in line
// order. Its error is r's only: the entries and warnings read before it
// are returned with it, and are not the file's whole.
func Read(r io.Reader, file string, cfg *config.Config) ([]Entry, []Warning, error) {
	var out []Entry
	var warns []Warning
	first := map[string]int{} // loc -> line
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, long, err := readLine(br)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		warn := func(format string, args ...any) {
			warns = append(warns, Warning{File: file, Line: n, Msg: fmt.Sprintf(format, args...)})
		}
		if n == 1 {
			line = bytes.TrimPrefix(line, []byte("\uFEFF")) // a byte-order mark
		}
		if long {
			warn("line longer than %d bytes: not a URL", MaxLine)
			continue
		}
		text := strings.TrimRight(string(line), " \t\r")
		text = strings.TrimLeft(text, " ")
		if text == "" || text[0] == '#' {
			continue
		}
		raw, date, dated := strings.Cut(text, "\t")
		raw = strings.TrimRight(raw, " ")
		var t time.Time
		if dated {
			date = strings.TrimLeft(date, " \t")
			var err error
			if t, err = head.ParseDate(date); err != nil {
				warn("lastmod %q %v (e.g. 2024-05-01 or 2024-05-01T10:30:00Z)", date, err)
				continue
			}
		}
		loc, err := cfg.SiteURL(raw)
		if err != nil {
			warn("%v", err)
			continue
		}
		if prev, dup := first[loc]; dup {
			warn("%s is line %d's URL already: the first is listed", loc, prev)
			continue
		}
		first[loc] = n
		out = append(out, Entry{Loc: loc, Time: t, Line: n})
	}
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.Loc, b.Loc) })
	return out, warns, nil
}

// readLine returns the next line without its end; long reports a line
// over MaxLine, whose bytes are skipped.
func readLine(br *bufio.Reader) (line []byte, long bool, err error) {
	var buf []byte
	for {
		part, prefix, err := br.ReadLine()
		if err != nil {
			if err == io.EOF && (buf != nil || long) {
				return buf, long, nil
			}
			return nil, false, err
		}
		if !long {
			buf = append(buf, part...)
			if len(buf) > MaxLine {
				long, buf = true, nil
			}
		}
		if !prefix {
			if buf == nil && !long {
				buf = []byte{}
			}
			return buf, long, nil
		}
	}
}
