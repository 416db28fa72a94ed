package build

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
	"golang.org/x/sys/unix"

	"github.com/sitemapd/sitemapd/internal/publish"
	"github.com/sitemapd/sitemapd/internal/sitemap"
)

// Group is the content of one sitemap group: the pages of one directory
// (and, at the fold depth, of its whole subtree), as URLs sorted by Loc.
type Group struct {
	// Dir is the group's directory relative to the root, slash-separated;
	// "" is the root. The group's sitemap lives in this directory.
	Dir  string
	URLs []sitemap.URL
	// Err is set when part of the group could not be read; its URLs are
	// then incomplete and must not replace a published sitemap.
	Err error

	pending atomic.Int64 // directory visits not yet finished
	mu      sync.Mutex
	own     []string // sitemapd outputs found in the group (rel paths)
	temps   []string // stale temp files found in the group (rel paths)
	links   []string // directories (rel to the real root) that followed symlinks list pages of
	// listings are the directories read, for the engine's memory of the
	// tree (record mode only); gone are directories found missing.
	listings map[string]*listing
	gone     []string
}

func (g *Group) fail(err error) {
	g.mu.Lock()
	g.Err = errors.Join(g.Err, err)
	g.mu.Unlock()
}

// dirID identifies a directory for symlink loop detection.
type dirID struct{ dev, ino uint64 }

// visit is one directory to read.
type visit struct {
	rel     string // relative to the root, slash-separated
	depth   int
	group   *Group
	viaLink bool   // reached through a symlinked directory
	parent  *visit // ancestors, for loop detection
	id      dirID
}

// walker reads a subtree in parallel and hands each group to done as soon
// as every directory of that group has been read. Directories are visited
// depth first, so groups complete one after another and memory holds about
// one group per worker rather than the whole tree.
type walker struct {
	e        *Engine
	ctx      context.Context
	root     string // absolute
	realRoot string // root with symlinks resolved
	now      time.Time
	sem      chan struct{}
	wg       sync.WaitGroup
	done     func(*Group)
	single   bool // read one group only: do not enter directories that start another
	record   bool // keep each directory's listing in its Group
	// known, if set, names directories already remembered: the walk lists
	// them as subdirectories but does not enter them (an incremental
	// refresh of one directory).
	known func(rel string) bool
	files atomic.Int64 // entries seen, for progress reports
	// hidden counts pages left out by their heads, truncated heads cut at
	// head.Limit; quiet holds back a warning per truncated head for one
	// summary (a full build).
	hidden, truncated atomic.Int64
	quiet             bool
}

func (e *Engine) newWalker(ctx context.Context, done func(*Group)) (*walker, error) {
	real, err := filepath.EvalSymlinks(e.cfg.Root)
	if err != nil {
		return nil, fmt.Errorf("resolve document root: %w", err)
	}
	return &walker{
		e: e, ctx: ctx, root: e.cfg.Root, realRoot: real, now: e.now(),
		sem:  make(chan struct{}, 2*runtime.GOMAXPROCS(0)),
		done: done,
	}, nil
}

// walk reads the subtree at rel, which is group g's directory (or, for a
// folded directory, a directory inside g), and waits until it is read.
func (w *walker) walk(rel string, g *Group) {
	depth := 0
	if rel != "" {
		depth = strings.Count(rel, "/") + 1
	}
	w.start(&visit{rel: rel, depth: depth, group: g})
	w.wg.Wait()
}

func (w *walker) start(v *visit) {
	v.group.pending.Add(1)
	w.wg.Add(1)
	select {
	case w.sem <- struct{}{}:
		go func() {
			w.visit(v)
			<-w.sem
		}()
	default:
		w.visit(v)
	}
}

func (w *walker) finish(v *visit) {
	if v.group.pending.Add(-1) == 0 {
		w.done(v.group)
	}
	w.wg.Done()
}

func (w *walker) abs(rel string) string {
	if rel == "" {
		return w.root
	}
	return w.root + "/" + rel
}

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

func (w *walker) visit(v *visit) {
	defer w.finish(v)
	if err := w.ctx.Err(); err != nil {
		v.group.fail(err)
		return
	}
	dirPath := w.abs(v.rel)
	d, err := w.e.openDir(dirPath)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && v.rel != "" {
			if w.record {
				v.group.mu.Lock()
				v.group.gone = append(v.group.gone, v.rel)
				v.group.mu.Unlock()
			}
			return // removed while we walked: nothing to list
		}
		v.group.fail(fmt.Errorf("read directory %s: %w", dirPath, err))
		return
	}
	defer d.Close()
	cfg := w.e.cfg
	if cfg.Pages.FollowSymlinks || w.record {
		var st unix.Stat_t
		if err := unix.Fstat(int(d.Fd()), &st); err != nil {
			v.group.fail(fmt.Errorf("stat directory %s: %w", dirPath, err))
			return
		}
		v.id = dirID{dev: st.Dev, ino: st.Ino}
		for p := v.parent; p != nil; p = p.parent {
			if p.id == v.id {
				w.e.log.Warn("not following symlink: it loops back to an enclosing directory",
					zap.String("path", dirPath), zap.String("target", w.abs(p.rel)))
				return
			}
		}
	}
	entries, err := d.ReadDir(-1)
	if err != nil {
		v.group.fail(fmt.Errorf("read directory %s: %w", dirPath, err))
		return
	}
	w.files.Add(int64(len(entries)))
	dfd := int(d.Fd())

	f := w.e.filter
	var pages []pageEntry
	var subdirs []string // real subdirectories listed (record mode)
	var cache *headCache
	if !v.viaLink && w.e.readsHeads() {
		// Heads read before, of files unchanged since, are not read again:
		// what memory holds, or else the head store.
		var l *listing
		if w.e.mem != nil {
			l = w.e.mem.dirs[v.rel]
		}
		if l == nil {
			l = w.e.store.listing(v.rel)
		}
		cache = &headCache{l: l}
	}
	// index.html and index.htm would both be "dir/": keep the one listed
	// first in pages.index_files.
	indexRank, indexAt, indexName := -1, -1, ""
	for _, ent := range entries {
		name := ent.Name()
		if f.ignored(name) {
			w.noteOwn(v, name)
			continue
		}
		typ := ent.Type()
		rel := joinRel(v.rel, name)
		var mtime time.Time
		var size int64
		switch {
		case typ.IsDir():
			if !f.excluded("/" + rel) {
				if w.record && !v.viaLink {
					subdirs = append(subdirs, rel)
				}
				w.descend(v, rel, v.viaLink)
			}
			continue
		case typ.IsRegular():
			if !f.isPage(name) {
				continue
			}
			var st unix.Stat_t
			if err := unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				if !errors.Is(err, unix.ENOENT) {
					v.group.fail(fmt.Errorf("stat %s: %w", w.abs(rel), err))
				}
				continue
			}
			mtime, size = time.Unix(st.Mtim.Unix()), st.Size
		case typ&fs.ModeSymlink != 0:
			if !cfg.Pages.FollowSymlinks {
				continue
			}
			st, target, ok := w.followLink(rel)
			if !ok {
				continue
			}
			if st.IsDir() || f.isPage(name) {
				// Changes under the target must rebuild this group too.
				if !st.IsDir() {
					target = path.Dir(target)
				}
				v.group.mu.Lock()
				v.group.links = append(v.group.links, target)
				v.group.mu.Unlock()
			}
			if st.IsDir() {
				if !f.excluded("/" + rel) {
					w.descend(v, rel, true)
				}
				continue
			}
			if !st.Mode().IsRegular() || !f.isPage(name) {
				continue
			}
			mtime, size = st.ModTime(), st.Size()
		default:
			continue // sockets, devices, fifos
		}
		p, ok := w.page(v.rel, name, rel, mtime, size, dfd, cache)
		if !ok {
			continue
		}
		if rank, isIndex := w.e.mapper.indexFiles[name]; isIndex {
			if indexAt >= 0 {
				// The server serves the first index file, listed or
				// hidden by its head.
				loser := name
				if rank < indexRank {
					loser = indexName
					pages[indexAt], indexRank, indexName = p, rank, name
				}
				w.e.log.Warn("not listed: another index file of the same directory has the same URL",
					zap.String("path", w.abs(joinRel(v.rel, loser))))
				continue
			}
			indexRank, indexAt, indexName = rank, len(pages), name
		}
		pages = append(pages, p)
	}
	g := v.group
	g.mu.Lock()
	for i := range pages {
		if !pages[i].head.hidden {
			g.URLs = append(g.URLs, pages[i].url)
		}
	}
	if w.record && !v.viaLink {
		if g.listings == nil {
			g.listings = map[string]*listing{}
		}
		g.listings[v.rel] = newListing(pages, w.e.readsHeads(), subdirs, v.id)
	}
	g.mu.Unlock()
}

// noteOwn records sitemapd's own files met in the walk, so the engine can
// remove stale ones.
func (w *walker) noteOwn(v *visit, name string) {
	if w.e.outDir != w.root || v.viaLink {
		// Outputs live elsewhere (the engine scans that tree itself), or
		// this is a symlinked view of a directory whose outputs belong to
		// whichever group walks it for real.
		return
	}
	var list *[]string
	switch {
	case publish.IsTemp(name):
		list = &v.group.temps
	case w.e.filter.isOutput(name):
		list = &v.group.own
	default:
		return
	}
	v.group.mu.Lock()
	*list = append(*list, joinRel(v.rel, name))
	v.group.mu.Unlock()
}

// descend starts the visit of a subdirectory, in a group of its own if it
// is a real directory no deeper than the fold depth. Directories reached
// through a symlink stay in the group that holds the link: a sitemap written
// into them would land in the link's target, which may have a group of its
// own.
func (w *walker) descend(v *visit, rel string, viaLink bool) {
	child := &visit{rel: rel, depth: v.depth + 1, group: v.group, viaLink: viaLink, parent: v}
	if !viaLink && child.depth <= w.e.cfg.Depth {
		if w.single {
			return
		}
		child.group = &Group{Dir: rel}
	}
	if w.known != nil && !viaLink && w.known(rel) {
		return
	}
	w.start(child)
}

// followLink stats a symlink's target, accepting it only if it resolves
// inside the document root. target is the target's path relative to the
// (resolved) root.
func (w *walker) followLink(rel string) (st fs.FileInfo, target string, ok bool) {
	p := w.abs(rel)
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		w.e.log.Warn("not listed: broken symlink", zap.String("path", p), zap.Error(err))
		return nil, "", false
	}
	if real != w.realRoot && !strings.HasPrefix(real, w.realRoot+"/") {
		w.e.log.Warn("not listed: symlink leaves the document root", zap.String("path", p), zap.String("target", real))
		return nil, "", false
	}
	if st, err = os.Stat(real); err != nil {
		return nil, "", false
	}
	return st, strings.TrimPrefix(strings.TrimPrefix(real, w.realRoot), "/"), true
}

// page maps one page file to its entry, applying excludes, rules, the
// protocol's limits and what the page's head says (dirFD, if not -1, is
// its directory, open). ok is false for a file that is neither listed nor
// remembered; an entry whose head keeps it out is remembered but not
// listed (head.hidden).
func (w *walker) page(relDir, name, rel string, mtime time.Time, size int64, dirFD int, cache *headCache) (p pageEntry, ok bool) {
	e := w.e
	up := e.mapper.urlPath(relDir, name)
	if e.filter.excluded("/"+rel) || e.filter.excluded(up) {
		return pageEntry{}, false
	}
	loc := e.mapper.loc(up)
	if !e.allowed(loc) {
		return pageEntry{}, false // robots.txt keeps crawlers out
	}
	if len(loc) > sitemap.MaxLocLen {
		e.log.Warn("not listed: URL longer than the protocol allows",
			zap.String("path", w.abs(rel)), zap.Int("length", len(loc)), zap.Int("max", sitemap.MaxLocLen))
		return pageEntry{}, false
	}
	u := sitemap.URL{Loc: loc, LastMod: mtime.Truncate(time.Second)}
	if mtime.After(w.now) {
		e.log.Warn("no lastmod: file modification time is in the future",
			zap.String("path", w.abs(rel)), zap.Time("mtime", mtime))
		u.LastMod = time.Time{}
	}
	if r := matchRule(e.rules, up); r != nil {
		u.ChangeFreq, u.Priority = r.changefreq, r.priority
	}
	p = pageEntry{name: name, url: u, mtime: mtime.UnixNano(), size: size}
	if e.readsHeads() && isHTML(name) {
		if gone := w.head(&p, rel, dirFD, cache); gone {
			return pageEntry{}, false
		}
		p.url.Alternates = alternates(p.head.alts)
	}
	return p, true
}
