package tree

import (
	"math/bits"
	"slices"
	"strings"

	"github.com/sitemapd/sitemapd/internal/sitemap"
)

// DirID identifies a directory (device and inode): a new directory at a
// remembered path is another one, and a symlink loop comes back to an ID
// already on its path.
type DirID struct{ Dev, Ino uint64 }

// Stamp fingerprints what a stat tells of a file: its mtime and ctime (Unix
// nanoseconds), size and inode. A file whose stamp is the one remembered is
// taken to hold the same bytes, and is not read again. It is never NoStamp.
//
// mtime and size alone are not enough: a page rewritten in place with its
// old size and mtime put back (cp -p, rsync --inplace, install -p, with a
// reproducible build's fixed mtimes) would never be read again. ctime is
// set by the kernel on every write, chmod, chown and link, and no user can
// set it back; the inode tells a file renamed into place from the one it
// replaced. A change of ctime alone (a chmod) costs a read, never a
// lastmod: a page whose bytes hash as before keeps its time.
func Stamp(mtime, size, ctime int64, ino uint64) uint64 {
	// splitmix64's finalizer, folded over each word: any change to one
	// moves every bit, so 64 bits tell two stats apart as well as more
	// would.
	x := mix(uint64(mtime)*0x9e3779b97f4a7c15 ^ uint64(size))
	x = mix(x ^ uint64(ctime)*0x9e3779b97f4a7c15)
	x = mix(x ^ ino)
	if x == NoStamp {
		x = 1
	}
	return x
}

func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// NoStamp is the stamp remembered for a page whose bytes must be read
// again: one whose head could not be read, or known from a state whose
// heads were kept for another configuration. No file has it.
const NoStamp = 0

// Kept says what a Listing keeps of each page beyond its name and time.
type Kept uint8

const (
	// KeepStamps keeps each page's stamp: the daemon reads a page's bytes
	// (its head, its content hash) only when its file changed.
	KeepStamps Kept = 1 << iota
	// KeepSums keeps each page's content hash (pages.lastmod: content
	// and significant).
	KeepSums
	// KeepPrints keeps each page's print: the hash of what the page says
	// and its parts' short hashes (pages.lastmod: significant), in one
	// word (print.go).
	KeepPrints
)

// columns are the per-page words a Listing keeps, in the order they lie
// in its words: each kept one takes a column of one word a page.
var columns = [...]Kept{KeepStamps, KeepSums, KeepPrints}

// column is where the column'th word of page i lies in words kept as
// keep says (column: 0 stamps, 1 sums, 2 prints with their parts), or -1
// when that column is not kept.
func column(keep Kept, n, col, i int) int {
	if keep&columns[col] == 0 {
		return -1
	}
	before := 0
	for _, k := range columns[:col] {
		if keep&k != 0 {
			before++
		}
	}
	return before*n + i
}

// wordsPerPage is how many words a page takes in a listing that keeps keep.
func wordsPerPage(keep Kept) int {
	w := 0
	for _, k := range columns {
		if keep&k != 0 {
			w++
		}
	}
	return w
}

// Head is what is kept of what a page's HTML says: whether its head keeps
// the page out of the sitemap, and why (a Reason that FromHead, or
// Listed), the page's hreflang alternates, packed (PackAlternate), and
// the images it shows (pages.images), packed (PackImage), and, with
// the news sitemap on, the news article it is, packed (news.Pack).
type Head struct {
	Out    Reason
	Alts   string // hreflang, NUL, href, NUL, … ("" for none)
	Images string // URL, NUL, URL, NUL, … ("" for none)
	News   string // news.Pack's ("" for none)
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

// PackImage appends one image URL to a packed list (Head.Images).
func PackImage(b *strings.Builder, loc string) {
	b.WriteString(loc)
	b.WriteByte(0)
}

// Images unpacks Head.Images.
func Images(packed string) []string {
	if packed == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(packed, "\x00"), "\x00")
}

// Page is one page found by a read.
type Page struct {
	Name string
	URL  sitemap.URL // filled by a walk, not when kept from a Listing
	// Time is when the page last changed, as its lastmod shows it (Unix
	// nanoseconds, through LastMod): its file's mtime, or the mtime at
	// which its bytes last changed (pages.lastmod: content), or the date
	// its head states (pages.head_dates).
	Time  int64
	Stamp uint64 // Stamp of its file when its bytes were read, or NoStamp
	Sum   uint64 // hash of its bytes (pages.lastmod: content), or 0
	// Print is the hash of what the page says (pages.lastmod:
	// significant), 0 when not known; Parts the short hashes of the
	// parts it is made of, to tell which one changed (significant.Parts).
	// A Listing keeps both in one word, short (ShortPrint).
	Print, Parts uint64
	// Dated says Time is the date the page's head states
	// (pages.head_dates), not its file's mtime or its content's: where
	// its lastmod comes from, for the status page.
	Dated bool
	Head  Head
}

// Listing is what is remembered of one directory: its pages, as base names
// and times packed together (some 25 bytes a page where a URL would take
// over 100: the daemon holds one Listing per directory of the site), and
// its real subdirectories. URLs are computed from it when its group is
// encoded. As Kept says, it may also keep each page's stamp and content
// hash, to tell a changed file and an unchanged one rewritten; and when
// heads are read, whether a page's head keeps it out (a hidden page is
// remembered, not listed, so that its head is not read again until the
// file changes) and its alternates. A Listing is never changed once made.
type Listing struct {
	names string  // page base names, each followed by a NUL (never in a name)
	times []int64 // Page.Time, one per name
	// words are a column of one word a page for each kept column
	// (columns): Stamp, Sum, Print with its Parts; then, only when some page is
	// Dated, a bit a page saying which are (datedAt): no field of its own,
	// so a directory with no dated page pays nothing, one with some a
	// word for 64 pages.
	words   []uint64
	kept    Kept
	out     []Reason  // why each page is hidden; nil when none is
	alts    []string  // packed alternates (Head.Alts); nil when no page has any
	images  []string  // packed images (Head.Images); nil when no page has any
	news    []article // the pages that are news articles, by index; nil when none is
	subdirs []string
	id      DirID // the directory itself: a new one at the same path is another
	latest  int64 // the latest time of a listed page (0 for none): Latest
}

// NewListing packs the pages of a directory, keeping what keep says.
func NewListing(pages []Page, keep Kept, subdirs []string, id DirID) *Listing {
	n := 0
	for i := range pages {
		n += len(pages[i].Name) + 1
	}
	b := newBuilder(keep, len(pages), n)
	for i := range pages {
		b.add(&pages[i])
	}
	return b.finish(subdirs, id)
}

// Len is the number of pages, hidden or not.
func (l *Listing) Len() int { return len(l.times) }

// NameBytes is the length of the pages' names together, plus one a page.
func (l *Listing) NameBytes() int { return len(l.names) }

// ID is the directory the listing was read from.
func (l *Listing) ID() DirID { return l.id }

// Subdirs are the directory's real subdirectories (relative to the root),
// in the order read. The slice must not be changed.
func (l *Listing) Subdirs() []string { return l.subdirs }

// SameNames reports whether o lists the same pages as l, by name and in
// the same order (a page's file edited in place, or rewritten): their
// entries can then be compared index by index.
func (l *Listing) SameNames(o *Listing) bool { return l.names == o.names }

// Kept says what the listing keeps of each page.
func (l *Listing) Kept() Kept { return l.kept }

// All calls f for every page of the listing, hidden or not.
func (l *Listing) All(f func(i int, name string)) {
	rest := l.names
	for i := range l.times {
		j := strings.IndexByte(rest, 0)
		f(i, rest[:j])
		rest = rest[j+1:]
	}
}

// Cursor steps through a listing's pages in order without allocating:
// a walk meets a directory's names in the order it met them last time
// (the directory's own order, unchanged while the directory is), so
// looking them up in step costs nothing where a map of every name
// would be built per directory per walk.
type Cursor struct {
	l    *Listing
	rest string
	i    int
}

// Cursor starts at the listing's first page.
func (l *Listing) Cursor() Cursor { return Cursor{l: l, rest: l.names} }

// Peek is the page at the cursor: its index and name, or ok false at the
// end.
func (c *Cursor) Peek() (i int, name string, ok bool) {
	if c.i >= len(c.l.times) {
		return 0, "", false
	}
	j := strings.IndexByte(c.rest, 0)
	return c.i, c.rest[:j], true
}

// Advance moves the cursor past the page Peek shows.
func (c *Cursor) Advance() {
	if c.i < len(c.l.times) {
		c.rest = c.rest[strings.IndexByte(c.rest, 0)+1:]
		c.i++
	}
}

// Each calls f for every listed (not hidden) page of the listing, with
// its Time.
func (l *Listing) Each(f func(i int, name string, t int64)) {
	l.All(func(i int, name string) {
		if l.listed(i) {
			f(i, name, l.times[i])
		}
	})
}

// Articles calls f for every listed page of the listing that is a news
// article, with what it keeps of it (Head.News): nothing to do for a
// listing without any.
func (l *Listing) Articles(f func(name, packed string)) {
	if l.news == nil {
		return
	}
	next := 0
	l.All(func(i int, name string) {
		if next < len(l.news) && l.news[next].i == i {
			if l.listed(i) {
				f(name, l.news[next].packed)
			}
			next++
		}
	})
}

// article is a page of a listing that is a news article: its index and
// what it keeps of it (Head.News). Few pages of a site are articles: a
// listing keeps theirs only, not a column for all its pages.
type article struct {
	i      int
	packed string
}

// listed reports whether page i is listed (its head does not hide it).
func (l *Listing) listed(i int) bool { return l.out == nil || l.out[i] == Listed }

// entry is page i's Entry: zero when it is hidden.
func (l *Listing) entry(i int) Entry {
	if !l.listed(i) {
		return Entry{}
	}
	return Entry{Listed: true, Time: l.times[i], Dated: l.datedAt(i), Head: l.Head(i)}
}

// dates is the bitmap of Dated pages at the end of words, nil for none.
func (l *Listing) dates() []uint64 {
	return l.words[wordsPerPage(l.kept)*len(l.times):]
}

// datedAt reports whether page i is Dated.
func (l *Listing) datedAt(i int) bool {
	d := l.dates()
	return len(d) > 0 && d[i/64]>>(i%64)&1 != 0
}

// Dated reports whether page i's time is the date its head states
// (Page.Dated).
func (l *Listing) Dated(i int) bool { return l.datedAt(i) }

// CountDated counts the listed (not hidden) pages whose time is the date
// their head states: a directory without any costs nothing to count,
// one with some a word's bits for 64 pages, and a hidden page a look.
func (l *Listing) CountDated() int {
	n := 0
	for w, word := range l.dates() {
		if l.out == nil {
			n += bits.OnesCount64(word)
			continue
		}
		for ; word != 0; word &= word - 1 {
			if l.out[w*64+bits.TrailingZeros64(word)] == Listed {
				n++
			}
		}
	}
	return n
}

// Latest is the latest time of a page the listing lists (Each), 0 when
// it lists none: a directory whose latest time has come has no page still
// to come, which a change of its group need not look for page by page.
func (l *Listing) Latest() int64 { return l.latest }

// Time is page i's Page.Time.
func (l *Listing) Time(i int) int64 { return l.times[i] }

// word is page i's word of a column (see column), 0 when not kept.
func (l *Listing) word(col, i int) uint64 {
	if j := column(l.kept, len(l.times), col, i); j >= 0 {
		return l.words[j]
	}
	return 0
}

// Stamp is page i's stamp, or NoStamp when stamps are not kept.
func (l *Listing) Stamp(i int) uint64 { return l.word(0, i) }

// Sum is page i's content hash, or 0 when sums are not kept.
func (l *Listing) Sum(i int) uint64 { return l.word(1, i) }

// Print is the hash of what page i says and its parts' short hashes, as
// ShortPrint keeps them, or zeros when prints are not kept (or the page's
// is not known).
func (l *Listing) Print(i int) (pr, parts uint64) { return unpackPrint(l.word(2, i)) }

// Head returns what the head of page i said.
func (l *Listing) Head(i int) Head {
	var h Head
	if l.out != nil {
		h.Out = l.out[i]
	}
	if l.alts != nil {
		h.Alts = l.alts[i]
	}
	if l.images != nil {
		h.Images = l.images[i]
	}
	if l.news != nil {
		if j, ok := slices.BinarySearchFunc(l.news, i, func(a article, i int) int { return a.i - i }); ok {
			h.News = l.news[j].packed
		}
	}
	return h
}

// Page returns page i (named name, as All gives it) without its URL.
func (l *Listing) Page(i int, name string) Page {
	p := Page{Name: name, Time: l.times[i], Stamp: l.Stamp(i), Sum: l.Sum(i), Dated: l.datedAt(i), Head: l.Head(i)}
	p.Print, p.Parts = l.Print(i)
	return p
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
