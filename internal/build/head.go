package build

import (
	"errors"
	"io"
	"net/url"
	"strings"
	"sync"

	"go.uber.org/zap"
	"golang.org/x/sys/unix"

	"github.com/sitemapd/sitemapd/internal/head"
	"github.com/sitemapd/sitemapd/internal/sitemap"
)

// pageHead is what the engine keeps of a page's head: whether it keeps the
// page out of the sitemap, and the page's alternates, packed.
type pageHead struct {
	hidden bool
	alts   string // hreflang, NUL, href, NUL, … ("" for none)
}

// unread is the size remembered for a page whose head could not be read:
// no file has it, so the next look reads the head again.
const unread = -1

// readsHeads reports whether any rule needs pages' heads.
func (e *Engine) readsHeads() bool {
	p := &e.cfg.Pages
	return p.NoIndex || p.Canonical || p.Hreflang
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
	l   *listing
	idx map[string]int
}

func (c *headCache) lookup(name string, mtime, size int64) (pageHead, bool) {
	if c == nil || c.l == nil || c.l.sizes == nil {
		return pageHead{}, false
	}
	if c.idx == nil {
		c.idx = make(map[string]int, len(c.l.mtimes))
		c.l.all(func(i int, name string) { c.idx[name] = i })
	}
	i, ok := c.idx[name]
	if !ok || c.l.mtimes[i] != mtime || c.l.sizes[i] != size {
		return pageHead{}, false
	}
	return c.l.head(i), true
}

// head decides what a page's head does to its entry: it reads the head
// (unless remembered for this mtime and size) and applies the rules that
// are on. dirFD is the page's directory, open, or -1. gone is true when
// the file vanished meanwhile. A head that cannot be read leaves the page
// listed, with a warning, and is read again next time (size unread).
func (w *walker) head(ent *pageEntry, rel string, dirFD int, cache *headCache) (gone bool) {
	if h, ok := cache.lookup(ent.name, ent.mtime, ent.size); ok {
		ent.head = h
		w.count(h)
		return false
	}
	e := w.e
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
		fd, err = unix.Openat(dirFD, ent.name, flags, 0)
	} else {
		fd, err = unix.Open(p, flags, 0)
	}
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			return true
		}
		e.log.Warn("listed without reading its head: cannot open", zap.String("path", p), zap.Error(err))
		ent.size = unread
		return false
	}
	defer unix.Close(fd)
	// Up to the size stat saw: a small page takes one read, with no
	// second one to find the end, into a buffer used again for the next
	// page; a larger one is read as far as its head goes.
	var info head.Info
	if ent.size <= smallPage {
		bp := smallPages.Get().(*[]byte)
		var n int
		if n, err = io.ReadFull(fdReader(fd), (*bp)[:max(ent.size, 0)]); err == io.ErrUnexpectedEOF {
			err = nil // shrunk since its stat: read what is there
		}
		if err == nil {
			info, err = head.ReadBytes((*bp)[:n], ent.url.Loc)
		}
		smallPages.Put(bp)
	} else {
		info, err = head.Read(io.LimitReader(fdReader(fd), ent.size), ent.url.Loc)
	}
	if err != nil {
		e.log.Warn("listed without reading its head: read failed", zap.String("path", p), zap.Error(err))
		ent.size = unread
		return false
	}
	for _, problem := range info.Problems {
		e.log.Warn("page head: "+problem, zap.String("path", p))
	}
	if info.Truncated {
		w.truncated.Add(1)
		if !w.quiet {
			e.log.Warn("page head longer than the limit: tags past it are not read",
				zap.String("path", p), zap.Int("limit", head.Limit))
		}
	}
	ent.head = e.decide(info, p, ent.url.Loc, e.mapper.loc("/"+rel))
	w.count(ent.head)
	return false
}

// headSummary logs what heads did in a full walk, in place of a line per
// page: sites whose every page has a long head would otherwise log one
// warning per page on every build.
func (e *Engine) headSummary(w *walker) {
	if n := w.hidden.Load(); n > 0 {
		e.log.Info("pages left out by their head (noindex, or canonical elsewhere; debug logs each)", zap.Int64("pages", n))
	}
	if n := w.truncated.Load(); n > 0 {
		e.log.Warn("pages whose head is longer than the limit: tags past it are not read",
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

// count tallies pages left out, for the summary of a full build.
func (w *walker) count(h pageHead) {
	if h.hidden {
		w.hidden.Add(1)
	}
}

// decide applies the head rules that are on to what a head says. loc is
// the page's URL in the sitemap and file its URL as a file path (they
// differ for index files and pretty URLs): a canonical naming either is the
// page itself.
func (e *Engine) decide(info head.Info, path, loc, file string) pageHead {
	rules := &e.cfg.Pages
	if rules.NoIndex && info.NoIndex {
		e.log.Debug("not listed: its head says noindex", zap.String("path", path))
		return pageHead{hidden: true}
	}
	if rules.Canonical {
		switch len(info.Canonicals) {
		case 0:
		case 1:
			c := info.Canonicals[0]
			if key := urlKey(c); key != urlKey(loc) && key != urlKey(file) {
				if sameResource(c, loc) {
					// Most likely base_url and the site's templates
					// disagree on scheme or host: say so, as the whole
					// site may be left out.
					e.log.Warn("not listed: its canonical URL differs from its URL in scheme or host only (is base_url right?)",
						zap.String("path", path), zap.String("canonical", c), zap.String("url", loc))
				} else {
					e.log.Debug("not listed: its canonical URL is another page",
						zap.String("path", path), zap.String("canonical", c))
				}
				return pageHead{hidden: true}
			}
		default:
			// Search engines ignore contradictory canonicals; so do we.
			e.log.Warn("page head: conflicting canonical links ignored",
				zap.String("path", path), zap.Strings("canonical", info.Canonicals))
		}
	}
	var h pageHead
	if rules.Hreflang {
		var b strings.Builder
		for _, a := range info.Alternates {
			if len(a.Href) > sitemap.MaxLocLen {
				e.log.Warn("page head: hreflang link longer than the protocol allows for a URL, left out",
					zap.String("path", path), zap.String("hreflang", a.Lang), zap.Int("length", len(a.Href)))
				continue
			}
			b.WriteString(a.Lang)
			b.WriteByte(0)
			b.WriteString(a.Href)
			b.WriteByte(0)
		}
		h.alts = b.String()
	}
	return h
}

// alternates unpacks pageHead.alts.
func alternates(packed string) []sitemap.Alternate {
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

// urlKey normalises a URL for comparison: scheme and host in lower case,
// no default port, the path percent-decoded (so "%7E" and "~" match), an
// empty path as "/".
func urlKey(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	switch scheme {
	case "http":
		host = strings.TrimSuffix(host, ":80")
	case "https":
		host = strings.TrimSuffix(host, ":443")
	}
	return scheme + "://" + host + resource(u)
}

// resource is a URL's path, percent-decoded, and query.
func resource(u *url.URL) string {
	p := u.Path
	if p == "" {
		p = "/"
	}
	if u.RawQuery != "" || u.ForceQuery {
		p += "?" + u.RawQuery
	}
	return p
}

// sameResource reports whether two URLs have the same path and query, so
// that they differ in scheme or host only.
func sameResource(a, b string) bool {
	ua, err := url.Parse(a)
	if err != nil {
		return false
	}
	ub, err := url.Parse(b)
	return err == nil && resource(ua) == resource(ub)
}
