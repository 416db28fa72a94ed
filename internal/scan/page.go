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
	"github.com/sitemapd/sitemapd/internal/sitemap"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// page maps one page file to its entry, applying excludes, rules, the
// protocol's limits and what the page's head says (dirFD, if not -1, is
// its directory, open). ok is false for a file that is neither listed nor
// remembered; an entry whose head keeps it out is remembered but not
// listed (Head.Hidden). Every page left out is noted in g (Group.Left).
func (w *Walk) page(g *Group, relDir, name, rel string, mtime time.Time, size int64, dirFD int, cache *headCache) (p tree.Page, ok bool) {
	s := w.s
	// Globs match the file's path and its URL's (they differ for index
	// files and pretty URLs).
	up, fp := s.loc.PagePath(relDir, name), "/"+rel
	switch {
	case s.filter.Excluded(fp) || s.filter.Excluded(up):
		w.leave(g, tree.Excluded, s.loc.Loc(up), rel, "")
		return tree.Page{}, false
	case s.filter.ErrorPage(fp) || s.filter.ErrorPage(up):
		w.leave(g, tree.ErrorPage, s.loc.Loc(up), rel, "")
		return tree.Page{}, false
	}
	loc := s.loc.Loc(up)
	if !s.robots.AllowsAll() {
		if sp, _ := s.loc.SitePath(loc); !s.robots.Allowed(sp) {
			w.leave(g, tree.Robots, loc, rel, "")
			return tree.Page{}, false
		}
	}
	if len(loc) > sitemap.MaxLocLen {
		s.log.Warn("not listed: URL longer than the protocol allows",
			zap.String("path", w.abs(rel)), zap.Int("length", len(loc)), zap.Int("max", sitemap.MaxLocLen))
		w.leave(g, tree.TooLong, loc, rel, "")
		return tree.Page{}, false
	}
	u := sitemap.URL{Loc: loc, LastMod: tree.LastMod(mtime.UnixNano(), w.o.Now)}
	if u.LastMod.IsZero() {
		s.log.Warn("no lastmod: file modification time is in the future",
			zap.String("path", w.abs(rel)), zap.Time("mtime", mtime))
	}
	if r := matchRule(s.rules, up); r != nil {
		u.ChangeFreq, u.Priority = r.changefreq, r.priority
	}
	p = tree.Page{Name: name, URL: u, MTime: mtime.UnixNano(), Size: size}
	if s.heads && isHTML(name) {
		if gone := w.head(g, &p, rel, dirFD, cache); gone {
			return tree.Page{}, false
		}
		p.URL.Alternates = tree.Alternates(p.Head.Alts)
	}
	return p, true
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
	g.Left.add(why, loc, elsewhere)
	g.mu.Unlock()
}

// isHTML reports whether a page is an HTML document, whose head is read.
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

// headCache looks up heads remembered in a directory's listing, read from
// a file of the same mtime and size: the same file, as far as a stat can
// tell, so its head need not be read again.
type headCache struct {
	l   *tree.Listing
	idx map[string]int
}

func (c *headCache) lookup(name string, mtime, size int64) (tree.Head, bool) {
	if c == nil || c.l == nil || !c.l.HasSizes() {
		return tree.Head{}, false
	}
	if c.idx == nil {
		c.idx = make(map[string]int, c.l.Len())
		c.l.All(func(i int, name string) { c.idx[name] = i })
	}
	i, ok := c.idx[name]
	if !ok || c.l.MTime(i) != mtime || c.l.Size(i) != size {
		return tree.Head{}, false
	}
	return c.l.Head(i), true
}

// head decides what a page's head does to its entry: it reads the head
// (unless remembered for this mtime and size) and applies the rules that
// are on. dirFD is the page's directory, open, or -1. gone is true when
// the file vanished meanwhile. A head that cannot be read leaves the page
// listed, with a warning, and is read again next time (size tree.Unread).
func (w *Walk) head(g *Group, ent *tree.Page, rel string, dirFD int, cache *headCache) (gone bool) {
	if h, ok := cache.lookup(ent.Name, ent.MTime, ent.Size); ok {
		ent.Head = h
		if h.Hidden() {
			w.leave(g, h.Out, ent.URL.Loc, rel, "")
		}
		return false
	}
	s := w.s
	p := w.abs(rel)
	// Plain system calls, not os.Open: open, read, close, where an
	// os.File costs nine (it probes the poller and the file's flags),
	// and the walk opens every page. O_NONBLOCK: a page swapped for a
	// fifo since its stat fails its read instead of blocking the walk.
	// Relative to the directory being read, when it is open: the kernel
	// then looks up one name, not the whole path.
	const flags = unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NONBLOCK
	var fd int
	var err error
	if dirFD >= 0 {
		fd, err = unix.Openat(dirFD, ent.Name, flags, 0)
	} else {
		fd, err = unix.Open(p, flags, 0)
	}
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			return true
		}
		s.log.Warn("listed without reading its head: cannot open", zap.String("path", p), zap.Error(err))
		ent.Size = tree.Unread
		return false
	}
	defer unix.Close(fd)
	// Up to the size stat saw: a small page takes one read, with no
	// second one to find the end, into a buffer used again for the next
	// page; a larger one is read as far as its head goes.
	var info head.Info
	if ent.Size <= smallPage {
		bp := smallPages.Get().(*[]byte)
		var n int
		if n, err = io.ReadFull(fdReader(fd), (*bp)[:max(ent.Size, 0)]); err == io.ErrUnexpectedEOF {
			err = nil // shrunk since its stat: read what is there
		}
		if err == nil {
			info, err = head.ReadBytes((*bp)[:n], ent.URL.Loc)
		}
		smallPages.Put(bp)
	} else {
		info, err = head.Read(io.LimitReader(fdReader(fd), ent.Size), ent.URL.Loc)
	}
	if err != nil {
		s.log.Warn("listed without reading its head: read failed", zap.String("path", p), zap.Error(err))
		ent.Size = tree.Unread
		return false
	}
	for _, problem := range info.Problems {
		s.log.Warn("page head: "+problem, zap.String("path", p))
	}
	if info.Truncated {
		w.truncated.Add(1)
		if !w.o.Quiet {
			s.log.Warn("page head longer than the limit: tags past it are not read",
				zap.String("path", p), zap.Int("limit", head.Limit))
		}
	}
	var elsewhere string
	ent.Head, elsewhere = s.decide(info, p, ent.URL.Loc, s.loc.File(rel))
	if info.Canonicals != nil {
		g.mu.Lock()
		g.Left.Canonicals++
		g.mu.Unlock()
	}
	if ent.Head.Hidden() {
		w.leave(g, ent.Head.Out, ent.URL.Loc, rel, elsewhere)
	}
	return false
}

// Summary logs what heads did in the walk, in place of a line per page:
// sites whose every page has a long head would otherwise log one warning
// per page on every build. (Pages left out are in each publish's summary.)
func (w *Walk) Summary() {
	if n := w.truncated.Load(); n > 0 {
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
