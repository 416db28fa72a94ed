package scan

import (
	"errors"
	"io"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"
	"golang.org/x/sys/unix"

	"github.com/sitemapd/sitemapd/internal/head"
	"github.com/sitemapd/sitemapd/internal/news"
	"github.com/sitemapd/sitemapd/internal/sitemap"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// fileStat is what a stat told of a page's file.
type fileStat struct {
	mtime, ctime, size int64 // times in Unix nanoseconds
	nlink              uint64
	dev, ino           uint64 // the file's identity, for its other names
	viaLink            bool   // the page is a symlink to a file, followed
}

func statOf(st *unix.Stat_t) fileStat {
	return fileStat{mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(), size: st.Size, nlink: uint64(st.Nlink), dev: uint64(st.Dev), ino: st.Ino}
}

// stamp is the file's tree.Stamp.
func (st fileStat) stamp() uint64 { return tree.Stamp(st.mtime, st.size, st.ctime, st.ino) }

// page maps one page file to its entry, applying excludes, rules, the
// protocol's limits and what the page's head says (dirFD, if not -1, is
// its directory, open). ok is false for a file that is neither listed nor
// remembered; an entry whose head keeps it out is remembered but not
// listed (Head.Hidden). Every page left out is noted in g (Group.Left).
// kn is what is known of the directory's pages from before. With urls,
// p.URL is the page's entry; without (a recorded directory, whose URLs
// are made from its listing when its group is taken), p.URL is empty.
func (w *Walk) page(g *Group, relDir, name, rel string, st fileStat, dirFD int, kn *known, urls bool) (p tree.Page, ok bool) {
	s := w.s
	if st.nlink > 1 && kn != nil {
		if _, isKnown := kn.lookup(name); !isKnown {
			w.newName(g, rel, name, st)
		}
	}
	var buf [256]byte
	why, up, locb := s.ruledOut(relDir, name, rel, buf[:0])
	loc := ""
	locString := func() string {
		if loc == "" {
			loc = string(locb)
		}
		return loc
	}
	if why != tree.Listed {
		if why == tree.TooLong {
			w.log.Warn("not listed: URL longer than the protocol allows",
				zap.String("path", w.abs(rel)), zap.Int("length", len(locb)), zap.Int("max", sitemap.MaxLocLen))
		}
		w.leave(g, why, locString(), rel, "")
		return tree.Page{}, false
	}
	p = tree.Page{Name: name, Time: st.mtime}
	if gone := w.state(g, &p, rel, st, dirFD, kn, locString); gone {
		return tree.Page{}, false
	}
	lastMod := w.lastMod(g, p.Time, rel, !p.Head.Hidden())
	if urls {
		p.URL = withHead(s.urlAt(up, locString(), p.Time, w.o.Now), p.Head)
		p.URL.LastMod = lastMod
	}
	return p, true
}

// lastMod is the lastmod of a page of time t, as of now. A time past the
// walk's start may be a file written since: it is compared with the clock
// again before it counts as one to come, so that a deploy landing during a
// walk is not a burst of pages without lastmod. A page still to come is
// noted in its group (Group.Due) if it is listed, for a republish when its
// time comes.
func (w *Walk) lastMod(g *Group, t int64, rel string, listed bool) time.Time {
	if lm := tree.LastMod(t, w.o.Now); !lm.IsZero() {
		return lm
	}
	if lm := tree.LastMod(t, w.clock()); !lm.IsZero() {
		return lm
	}
	w.future.note(w.abs(rel), t)
	if listed {
		g.mu.Lock()
		g.due(t)
		g.mu.Unlock()
	}
	return time.Time{}
}

func (w *Walk) clock() time.Time {
	if w.o.Clock != nil {
		return w.o.Clock()
	}
	return time.Now()
}

// leave notes a page left out of group g for a reason: counted for the
// publish's summary, named at debug level, and kept by URL for the shrink
// guard. elsewhere is, for a canonical pointing away from base_url, the
// base its canonical URLs seem to have (see canonicalBase).
func (w *Walk) leave(g *Group, why tree.Reason, loc, rel, elsewhere string) {
	if ce := w.s.log.Check(zap.DebugLevel, "not listed"); ce != nil {
		ce.Write(zap.Stringer("reason", why), zap.String("path", w.abs(rel)))
	}
	g.mu.Lock()
	g.Left.add(why, loc, tree.Parent(rel), elsewhere)
	g.mu.Unlock()
}

// ruledOut returns the rule that leaves a page out by its path alone,
// whatever the page says (Listed for none: pages.exclude, error_pages,
// robots.txt, the protocol's length limit), the page's URL path, and its
// URL appended to buf. The URL is made in bytes: most pages of a recorded directory
// need only its length (and robots.txt's answer), and a string of it is
// made only where one is kept.
func (s *Scanner) ruledOut(relDir, name, rel string, buf []byte) (why tree.Reason, up string, locb []byte) {
	// Globs match the file's path and its URL's (they differ for index
	// files and pretty URLs).
	up, fp := s.loc.PagePath(relDir, name), "/"+rel
	locb = s.loc.AppendLoc(buf, up)
	switch {
	case s.filter.Excluded(fp) || s.filter.Excluded(up):
		return tree.Excluded, up, locb
	case s.filter.ErrorPage(fp) || s.filter.ErrorPage(up):
		return tree.ErrorPage, up, locb
	}
	if !s.robots.AllowsAll() {
		if sp, _ := s.loc.SitePath(string(locb)); !s.robots.Allowed(sp) {
			return tree.Robots, up, locb
		}
	}
	if len(locb) > sitemap.MaxLocLen {
		return tree.TooLong, up, locb
	}
	return tree.Listed, up, locb
}

// isHTML reports whether a page is an HTML document, whose head (and,
// for its images, body) is read.
func isHTML(name string) bool {
	i := strings.LastIndexByte(name, '.')
	if i < 0 {
		return false
	}
	switch strings.ToLower(name[i:]) {
	case ".html", ".htm", ".xhtml":
		return true
	}
	return false
}

// known looks up what is known of a directory's pages from before (the
// daemon's memory, or the page store): a page whose file has the stamp
// known is not read again. Names are looked up in the order the
// directory gives them, which is the listing's order while the directory
// is unchanged, so a cursor answers without a map; the first name met out
// of step builds the map, once.
//
// The last answer is kept: a page with other names is looked up twice
// (page, then state), which would put the cursor out of step.
type known struct {
	l   *tree.Listing
	cur tree.Cursor
	on  bool // cur is started
	idx map[string]int
	few bool // only a few names are looked up: scan for each, build no map

	last     string // the name last looked up ("" before any: no page's)
	lastPage tree.Page
	lastOK   bool
}

func (k *known) lookup(name string) (tree.Page, bool) {
	if k == nil || k.l == nil {
		return tree.Page{}, false
	}
	if k.last == name {
		return k.lastPage, k.lastOK
	}
	p, ok := k.find(name)
	k.last, k.lastPage, k.lastOK = name, p, ok
	return p, ok
}

func (k *known) find(name string) (tree.Page, bool) {
	if k.few {
		i, ok := k.l.Find(name)
		if !ok {
			return tree.Page{}, false
		}
		return k.l.Page(i, name), true
	}
	if k.idx == nil {
		if !k.on {
			k.cur, k.on = k.l.Cursor(), true
		}
		if i, n, ok := k.cur.Peek(); ok && n == name {
			k.cur.Advance()
			return k.l.Page(i, name), true
		}
		k.idx = make(map[string]int, k.l.Len())
		k.l.All(func(i int, name string) { k.idx[name] = i })
	}
	i, ok := k.idx[name]
	if !ok {
		return tree.Page{}, false
	}
	return k.l.Page(i, name), true
}

// state fills in what a page's bytes tell: its content hash, what its
// head says, and so its Time. They are read only when the file's stamp is
// not the one known; otherwise what is known holds. gone is true when the
// file vanished meanwhile. A file that cannot be read is listed by its
// mtime, with a warning, and read again next time (NoStamp).
//
// loc gives the page's URL, made when first asked for: a page known and
// listed needs none.
func (w *Walk) state(g *Group, p *tree.Page, rel string, st fileStat, dirFD int, kn *known, loc func() string) (gone bool) {
	s := w.s
	if handled, gone := w.busy(g, p, rel, st, kn, loc); handled {
		return gone
	}
	if s.keep == 0 {
		// Nothing is read, nothing kept: Time is the mtime.
		if st.nlink > 1 {
			if k, ok := kn.lookup(p.Name); ok && k.Time != st.mtime {
				w.relinked(g, rel, k)
			}
		}
		return false
	}
	stamp := st.stamp()
	k, wasKnown := kn.lookup(p.Name)
	if w.o.StalePrints {
		k.Print, k.Parts = 0, 0
	}
	if wasKnown && st.nlink > 1 && k.Stamp != stamp {
		w.relinked(g, rel, k)
	}
	// An HTML page with no print (a store of an older version, or prints
	// of another model) is read once more for one, though its file is
	// as known: its next change is then judged by what it says.
	unprinted := s.sig != nil && k.Print == 0 && isHTML(p.Name) && kn != nil && !w.o.DeferPrints
	if wasKnown && k.Stamp == stamp && !unprinted {
		p.Stamp = k.Stamp
		keepKnown(p, k)
		w.agree(rel, p, p.Sum)
		if p.Head.Hidden() {
			w.leave(g, p.Head.Out, loc(), rel, "")
		}
		return false
	}
	p.Stamp = stamp
	rd, reads := w.readingOf(p.Name, k, wasKnown, kn != nil)
	if !reads {
		return false
	}
	heads, content := rd.heads, rd.content
	r, err := w.read(rel, p.Name, loc(), st, dirFD, rd)
	sum, info := r.sum, r.info
	if r.legacy {
		k.Sum = sum // the same bytes as the store's, hashed the old way
	}
	if err != nil {
		if done, gone := w.readFailed(g, p, rel, k, wasKnown, err, loc); done {
			return gone
		}
		sum = 0 // a new page being written: no version of it yet
	}
	if content {
		w.judge(rel, p, k, wasKnown, sum, r.print, r.printed)
	}
	if heads {
		w.applyHead(g, p, rel, loc(), info)
	}
	if content {
		w.agree(rel, p, k.Sum)
	}
	if !p.Head.Hidden() {
		// A hidden page's images would never be listed.
		p.Head.Images = packImages(r.images)
	}
	return false
}

// readingOf says what to read of a page file of that name, known as k
// (wasKnown) in a directory whose pages are known (inTree: not one
// reached through a symlinked directory, whose hash would have nothing to
// be compared with), and whether there is anything to read.
func (w *Walk) readingOf(name string, k tree.Page, wasKnown, inTree bool) (reading, bool) {
	s := w.s
	rd := reading{heads: s.heads && isHTML(name), images: s.images != nil && isHTML(name), content: s.content && inTree}
	if !rd.heads && !rd.images && !rd.content {
		return rd, false
	}
	if rd.content && s.sig != nil && isHTML(name) && !w.o.DeferPrints {
		// Made only if the bytes changed, or the page has none yet.
		rd.print = true
		rd.unless = func(sum uint64) bool { return wasKnown && k.Sum == sum && k.Print != 0 }
	}
	if rd.content && wasKnown {
		rd.known.sum, rd.known.printed = k.Sum, k.Print != 0
	}
	return rd, true
}

// readFailed settles page p (known as k, if wasKnown) whose read failed
// with err. It reports done when the page's state is settled (gone: the
// file vanished); not done for a new page written to as it was read,
// which is listed as read, with no hash.
func (w *Walk) readFailed(g *Group, p *tree.Page, rel string, k tree.Page, wasKnown bool, err error, loc func() string) (done, gone bool) {
	switch {
	case errors.Is(err, unix.ENOENT):
		return true, true
	case errors.Is(err, errInFlux):
		// Written to as it was read: what was read may be half a file,
		// and its hash would make a rewrite of the same bytes look like
		// two changes. It is listed as known (or as read, if new) and
		// read again next time, which the write's last event brings.
		p.Stamp = tree.NoStamp
		if !wasKnown {
			return false, false
		}
		keepKnown(p, k)
		if p.Head.Hidden() {
			w.leave(g, p.Head.Out, loc(), rel, "")
		}
		return true, false
	}
	w.log.Warn("listed by its mtime, without reading it: "+err.Error(), zap.String("path", w.abs(rel)))
	p.Stamp = tree.NoStamp
	return true, false
}

// keepKnown keeps what is known of page p (k) but its stamp: its time
// and where it came from, its hash and print, what its head said.
func keepKnown(p *tree.Page, k tree.Page) {
	p.Time, p.Dated, p.Sum, p.Print, p.Parts, p.Head = k.Time, k.Dated, k.Sum, k.Print, k.Parts, k.Head
}

// relinked notes a page with other names (hard links) whose file
// changed: the others changed too, though nothing says so where they are.
func (w *Walk) relinked(g *Group, rel string, was tree.Page) {
	g.mu.Lock()
	g.Relinked = append(g.Relinked, Relinked{Dir: tree.Parent(rel), Name: was.Name, Was: was})
	g.mu.Unlock()
}

// newName notes a page file with other names (hard links) under a name
// nothing knows: a link just made, a file with other names moved in, or a
// name left out (excluded, an error page, disallowed by robots.txt), which
// nothing remembers. If its stamp is none the engine knows, the file
// changed since its other names were read (edited through this name), and
// those names are found by the file's identity (Group.Linked).
func (w *Walk) newName(g *Group, rel, name string, st fileStat) {
	g.mu.Lock()
	g.Linked = append(g.Linked, Linked{Dir: tree.Parent(rel), Name: name,
		Stamp: st.stamp(), MTime: st.mtime, Dev: st.dev, Ino: st.ino})
	g.mu.Unlock()
}

// applyHead applies what a page's head says to its entry; loc is its URL.
func (w *Walk) applyHead(g *Group, p *tree.Page, rel, loc string, info head.Info) {
	s := w.s
	path := w.abs(rel)
	for _, problem := range info.Problems {
		w.log.Warn("page head: "+problem, zap.String("path", path))
	}
	if info.Truncated {
		w.truncated.Add(1)
		if !w.o.Quiet {
			w.log.Warn("page head longer than the limit: tags past it are not read",
				zap.String("path", path), zap.Int("limit", head.Limit))
		}
	}
	if s.cfg.Pages.HeadDates && !info.Modified.IsZero() {
		// A date still to come is the page's time all the same: like a
		// future mtime, it shows no lastmod until it comes, and then it
		// does, in the daemon (Group.Due) as in a build. (Falling back to
		// the file's time would leave the daemon on that fallback after
		// the date passed, as nothing reads the page again.)
		p.Time, p.Dated = info.Modified.UnixNano(), true
	}
	var elsewhere string
	p.Head, elsewhere = s.decide(w.log, info, path, loc, rel)
	if info.Canonicals != nil {
		g.mu.Lock()
		g.Left.Canonicals++
		g.mu.Unlock()
	}
	if p.Head.Hidden() {
		w.leave(g, p.Head.Out, loc, rel, elsewhere)
	} else if s.news {
		p.Head.News = w.article(path, info.Article)
	}
}

// article is what a listed page keeps of the news article its head says
// it is (news.Pack), with the news sitemap on; why a page that says it is
// one is none, or one published in the future, is logged as it is read
// (once a version of the page).
func (w *Walk) article(path string, a head.Article) string {
	for _, problem := range a.Problems {
		w.log.Warn("not in the news sitemap: "+problem, zap.String("path", path))
	}
	if a.Published.After(w.o.Now) {
		w.log.Warn("news article published in the future: not in the news sitemap until then",
			zap.String("path", path), zap.Time("published", a.Published))
	}
	return news.Pack(a.Published, a.Title)
}

// Summary logs what heads did in the walk, in place of a line per page:
// sites whose every page has a long head would otherwise log one warning
// per page on every build. (Pages left out are in each publish's summary.)
func (w *Walk) Summary() {
	w.collapsed.flush()
	w.future.warn(w.s.log, "pages whose time is in the future (the file's modification time, or the date its head states): listed without lastmod until then")
	if n := w.truncated.Load(); n > 0 && w.o.Quiet {
		w.s.log.Warn("pages whose head is longer than the limit: tags past it are not read",
			zap.Int64("pages", n), zap.Int("limit", head.Limit))
	}
}

// smallPage is the largest page read whole, at once.
const smallPage = 8 << 10

var smallPages = sync.Pool{New: func() any { b := make([]byte, smallPage); return &b }}

// fdReader reads a file descriptor.
type fdReader int

func (fd fdReader) Read(b []byte) (int, error) {
	for {
		n, err := unix.Read(int(fd), b)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(b) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// errInFlux is read's error for a file written to while it was read.
var errInFlux = errors.New("written to while read")

// futures counts the pages of a walk whose time is still to come, for one
// warning at its end rather than one a page.
type futures struct {
	mu      sync.Mutex
	n       int
	example string // the page of the earliest time
	first   int64
}

func (f *futures) note(path string, t int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == 0 || t < f.first {
		f.example, f.first = path, t
	}
	f.n++
}

func (f *futures) warn(log *zap.Logger, msg string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n > 0 {
		log.Warn(msg, zap.Int("pages", f.n), zap.String("example", f.example), zap.Time("earliest", time.Unix(0, f.first)))
	}
}
