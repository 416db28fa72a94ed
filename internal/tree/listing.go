package tree

import (
	"strings"

	"github.com/sitemapd/sitemapd/internal/sitemap"
)

// DirID identifies a directory (device and inode): a new directory at a
// remembered path is another one, and a symlink loop comes back to an ID
// already on its path.
type DirID struct{ Dev, Ino uint64 }

// Unread is the size remembered for a page whose head could not be read:
// no file has it, so the next look reads the head again.
const Unread = -1

// Head is what is kept of a page's head: whether it keeps the page out of
// the sitemap, and why (a Reason that FromHead, or Listed), and the page's
// hreflang alternates, packed (PackAlternate).
type Head struct {
	Out  Reason
	Alts string // hreflang, NUL, href, NUL, … ("" for none)
}

// Hidden reports whether the head keeps the page out of the sitemap.
func (h Head) Hidden() bool { return h.Out != Listed }

// PackAlternate appends one alternate to a packed list (Head.Alts).
func PackAlternate(b *strings.Builder, lang, href string) {
	b.WriteString(lang)
	b.WriteByte(0)
	b.WriteString(href)
	b.WriteByte(0)
}

// Alternates unpacks Head.Alts.
func Alternates(packed string) []sitemap.Alternate {
	if packed == "" {
		return nil
	}
	parts := strings.Split(strings.TrimSuffix(packed, "\x00"), "\x00")
	out := make([]sitemap.Alternate, 0, len(parts)/2)
	for i := 0; i+1 < len(parts); i += 2 {
		out = append(out, sitemap.Alternate{Lang: parts[i], Href: parts[i+1]})
	}
	return out
}

// Page is one page found by a read.
type Page struct {
	Name  string
	URL   sitemap.URL // filled by a walk, not when kept from a Listing
	MTime int64       // Unix nanoseconds
	Size  int64
	Head  Head
}

// Listing is what is remembered of one directory: its pages, as base names
// and mtimes packed together (some 25 bytes a page where a URL would take
// over 100: the daemon holds one Listing per directory of the site), and
// its real subdirectories. URLs are computed from it when its group is
// encoded. With head reading on it also keeps each page's size, whether
// its head keeps it out (a hidden page is remembered, not listed, so that
// its head is not read again until the file changes) and its alternates.
// A Listing is never changed once made.
type Listing struct {
	names   string   // page base names, each followed by a NUL (never in a name)
	mtimes  []int64  // Unix nanoseconds, one per name
	sizes   []int64  // file sizes, one per name; nil without head reading
	out     []Reason // why each page is hidden; nil when none is
	alts    []string // packed alternates (Head.Alts); nil when no page has any
	subdirs []string
	id      DirID // the directory itself: a new one at the same path is another
}

// NewListing packs the pages of a directory. Sizes are kept when heads are
// read, to tell a changed file.
func NewListing(pages []Page, keepSizes bool, subdirs []string, id DirID) *Listing {
	n := 0
	for i := range pages {
		n += len(pages[i].Name) + 1
	}
	var b strings.Builder
	b.Grow(n)
	// Exact sizes: a daemon keeps a listing per directory for as long as
	// it runs.
	l := &Listing{id: id}
	if len(pages) > 0 {
		l.mtimes = make([]int64, len(pages))
		if keepSizes {
			l.sizes = make([]int64, len(pages))
		}
	}
	for i := range pages {
		p := &pages[i]
		b.WriteString(p.Name)
		b.WriteByte(0)
		l.mtimes[i] = p.MTime
		if keepSizes {
			l.sizes[i] = p.Size
		}
		if p.Head.Hidden() {
			if l.out == nil {
				l.out = make([]Reason, len(pages))
			}
			l.out[i] = p.Head.Out
		}
		if p.Head.Alts != "" {
			if l.alts == nil {
				l.alts = make([]string, len(pages))
			}
			l.alts[i] = p.Head.Alts
		}
	}
	l.names = b.String()
	if len(subdirs) > 0 {
		l.subdirs = append(make([]string, 0, len(subdirs)), subdirs...)
	}
	return l
}

// Len is the number of pages, hidden or not.
func (l *Listing) Len() int { return len(l.mtimes) }

// ID is the directory the listing was read from.
func (l *Listing) ID() DirID { return l.id }

// Subdirs are the directory's real subdirectories (relative to the root),
// in the order read. The slice must not be changed.
func (l *Listing) Subdirs() []string { return l.subdirs }

// HasSizes reports whether sizes were kept (heads were read).
func (l *Listing) HasSizes() bool { return l.sizes != nil }

// All calls f for every page of the listing, hidden or not.
func (l *Listing) All(f func(i int, name string)) {
	rest := l.names
	for i := range l.mtimes {
		j := strings.IndexByte(rest, 0)
		f(i, rest[:j])
		rest = rest[j+1:]
	}
}

// Each calls f for every listed (not hidden) page of the listing.
func (l *Listing) Each(f func(i int, name string, mtime int64)) {
	l.All(func(i int, name string) {
		if l.out == nil || l.out[i] == Listed {
			f(i, name, l.mtimes[i])
		}
	})
}

// MTime is page i's mtime, in Unix nanoseconds.
func (l *Listing) MTime(i int) int64 { return l.mtimes[i] }

// Size is page i's size, or Unread when sizes are not kept.
func (l *Listing) Size(i int) int64 {
	if l.sizes == nil {
		return Unread
	}
	return l.sizes[i]
}

// Head returns what the head of page i said.
func (l *Listing) Head(i int) Head {
	var h Head
	if l.out != nil {
		h.Out = l.out[i]
	}
	if l.alts != nil {
		h.Alts = l.alts[i]
	}
	return h
}

// Page returns page i (named name, as All gives it) without its URL.
func (l *Listing) Page(i int, name string) Page {
	return Page{Name: name, MTime: l.mtimes[i], Size: l.Size(i), Head: l.Head(i)}
}

// Pages returns every page of the listing, without URLs.
func (l *Listing) Pages() []Page {
	out := make([]Page, 0, l.Len())
	l.All(func(i int, name string) { out = append(out, l.Page(i, name)) })
	return out
}

// CountListed counts the listed (not hidden) pages of some listings.
func CountListed(listings map[string]*Listing) int {
	n := 0
	for _, l := range listings {
		n += l.Len()
		for _, r := range l.out {
			if r != Listed {
				n--
			}
		}
	}
	return n
}
