package build

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/scan"
	"github.com/sitemapd/sitemapd/internal/sitemap"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// publishGroup sorts a group's URLs, encodes its parts and stages every
// part whose bytes changed, with what the publish changed and u, the
// update to remember (daemon mode). It reports whether the group was
// staged; if not, the group is marked failed, its previously published
// parts stay as they are and stay listed.
func (e *Engine) publishGroup(r *run, g *scan.Group, u *tree.Update) bool {
	r.save(e, g.Dir)
	r.left.Merge(&g.Left)
	st := e.state(g.Dir)
	if g.Err != nil {
		if st.parts == nil {
			st.parts = e.publishedParts(g.Dir)
		}
		if st.textParts == nil {
			st.textParts = e.publishedTextParts(g.Dir)
		}
		e.fail(r, g.Dir, fmt.Errorf("group %s not updated: %w", e.groupPath(g.Dir), g.Err))
		return false
	}
	// What the group published: compared with in daemon mode, and, after a
	// rebuild, removed where the new publish does not claim it again (a
	// full build finds every stale file in its walk).
	var old, oldText []string
	if !r.full || e.mem != nil {
		old = e.partsOf(g.Dir)
	}
	if !r.full {
		oldText = st.textParts
		if oldText == nil {
			oldText = e.publishedTextParts(g.Dir)
		}
	}
	// A change of a remembered group encodes only the parts whose URLs it
	// touched (parts.go); otherwise every part is encoded, and staged
	// where its bytes differ from its file's.
	var names []string
	var parts []part
	var chunks []sitemap.Chunk
	changed := false
	var err error
	n := len(g.URLs)
	if l := e.viewURLs(r, g, st, u); l != nil {
		names, parts, changed, n, err = e.encodeLocal(r, g.Dir, l)
	} else {
		urls := sortURLs(g.URLs)
		g.URLs, n = urls, len(urls)
		chunks = sitemap.Chunks(urls, e.cfg.PartSize)
		parts, changed, err = e.stageChunks(r, chunks, func(key string) string { return e.partName(g.Dir, key) })
		names = partNames(parts)
	}
	if e.dry != nil {
		e.dry.group(g.Dir, n, names)
	}
	if err != nil {
		st.published = nil // some of its parts may land
		e.fail(r, g.Dir, fmt.Errorf("group %s not updated: %w", e.groupPath(g.Dir), e.appHint(err)))
		return false
	}
	st.textParts = nil
	if e.cfg.TextSitemaps() {
		st.textParts = e.publishText(r, g.Dir, chunks)
	}
	if r.full && e.mem == nil {
		// A build: what the group published before is read only where
		// the shrink guard or a ledger (WithWriteAhead) needs it, where it
		// may differ. Bytes unchanged in as many files list the same URLs.
		old = names
		if (e.guarded() || e.owe != nil) && (changed || e.hasOtherParts(r, g.Dir, names)) {
			old = e.publishedParts(g.Dir)
		}
	}
	s := staging{upd: u, urls: n, due: g.Due, feed: e.groupEntries(g.URLs)}
	if e.mem != nil || e.recorded != nil {
		s.parts = parts // for local parts (daemon), or the groups record
	}
	// What the read found is kept for the page store's append (a rebuild;
	// a full build wrote it to the new store already) and for what the
	// daemon holds of a group memory does not. A full build without memory
	// keeps nothing: its memory is bounded by its largest group, not the
	// tree.
	if !r.full || (e.mem != nil && (u == nil || u.View == nil)) {
		s.read = g.Listings
		if s.read == nil && u != nil {
			s.read = u.Set // a refresh: the directories it re-read
		}
	}
	prev := n // the same bytes list the same URLs
	// Equal bytes in as many files: not one URL or lastmod changed. A
	// group that failed last time may have lost its files with its
	// directory, so it is compared whatever its files say.
	if changed || len(names) != len(old) || st.failed {
		if before := e.remembered(g.Dir); before != nil && u != nil && u.View != nil {
			s.changes = tree.Compare(before, u.View, r.now, e.scan.PageLoc)
			prev = tree.CountListed(before)
		} else if e.mem != nil || e.guarded() || e.owe != nil {
			// Not remembered (a restart, a build, or a group that follows
			// symlinks): what it published is in its files, not yet
			// replaced (the commit comes later).
			published := e.readURLs(old)
			s.changes = tree.Diff(published, g.URLs)
			prev = len(published)
		}
	}
	r.account(e, g, prev, n, s.changes.Removed)
	if e.mem == nil {
		// Nothing remembers the update (a build): kept until the commit,
		// it would keep every listing of the tree alive.
		s.upd = nil
	}
	if r.counted {
		s.changes = s.changes.Counted()
	}
	e.noteStaged(r, g, s, names)
	if !r.full {
		r.stale = append(append(r.stale, old...), oldText...)
	}
	return true
}

// noteStaged notes a group's publish, s, whose files are names (staged, or
// kept as they are), to take effect at the commit.
func (e *Engine) noteStaged(r *run, g *scan.Group, s staging, names []string) {
	r.staged[g.Dir] = s
	st := e.state(g.Dir)
	st.parts = names
	st.links = nil
	if len(g.Links) > 0 {
		st.links = slices.Compact(slices.Sorted(slices.Values(g.Links)))
	}
	st.failed = false
	if st.parts == nil && st.textParts == nil && st.links == nil {
		delete(e.groups, g.Dir) // nothing to keep: an empty group
	}
	r.rep.Groups++
	r.rep.URLs += s.urls
	r.rep.Sitemaps += len(names)
}

// viewURLs computes the URLs of a group a change refreshed
// (scan.Group.FromView), for a full encoding, or returns what encodeLocal
// needs to compute those of the parts it touched only. Either way the
// group's Due is computed over all its pages.
func (e *Engine) viewURLs(r *run, g *scan.Group, st *group, u *tree.Update) *localParts {
	if !g.FromView {
		return nil
	}
	if l := e.local(r, g.Dir, st, u); l != nil {
		g.Due = e.scan.Due(u.View, r.now)
		return l
	}
	g.URLs, g.Due = e.scan.AppendURLs(nil, u.View, r.now)
	return nil
}

// sortURLs sorts URLs by Loc, keeping one of each Loc: the order, and the
// parts, of a group's sitemap.
//
// An entry is 120 bytes, which a sort would move some log n times: the
// Locs are sorted with their indexes, and each entry is then moved once,
// in place, following the cycles of that order.
func sortURLs(urls []sitemap.URL) []sitemap.URL {
	type key struct {
		loc string
		at  int // the entry's index before the sort; -1 once it is in its place
	}
	keys := make([]key, len(urls))
	for i := range urls {
		keys[i] = key{urls[i].Loc, i}
	}
	slices.SortFunc(keys, func(a, b key) int { return strings.Compare(a.loc, b.loc) })
	// Entry k of the order is the one at keys[k].at: walk each cycle.
	for k := range keys {
		if keys[k].at < 0 {
			continue
		}
		first := urls[k]
		j := k
		for keys[j].at != k {
			next := keys[j].at
			urls[j] = urls[next]
			keys[j].at = -1
			j = next
		}
		urls[j] = first
		keys[j].at = -1
	}
	return slices.CompactFunc(urls, func(a, b sitemap.URL) bool { return a.Loc == b.Loc })
}

// encodePart encodes one part of a sitemap, to be named name, and stages
// it if its bytes differ from its file's; it returns what is remembered
// of it.
func (e *Engine) encodePart(r *run, name string, c sitemap.Chunk) (p part, changed bool, err error) {
	p = part{
		name:  name,
		first: c.URLs[0].Loc, last: c.URLs[len(c.URLs)-1].Loc, n: len(c.URLs),
		ends: c.Key != "" && !c.Sized,
	}
	e.partsEncoded++
	err = e.enc.URLSet(c.URLs, func(data []byte) error {
		_, ch, err := e.put(r.batch, r.rep, p.name, data)
		changed = changed || ch
		return err
	})
	return p, changed, err
}

// stageChunks encodes chunks as sitemaps and stages each whose bytes
// changed, named by name(key). It returns the parts, whether any file
// changes, and the first error, at which it stops (the parts then end
// with the chunk that failed).
func (e *Engine) stageChunks(r *run, chunks []sitemap.Chunk, name func(key string) string) (parts []part, changed bool, err error) {
	for _, c := range chunks {
		p, ch, err := e.encodePart(r, name(c.Key), c)
		parts, changed = append(parts, p), changed || ch
		if err != nil {
			return parts, changed, err
		}
	}
	return parts, changed, nil
}

// publishText encodes and stages a group's text sitemaps, one a chunk,
// and returns the names they take. A text sitemap that cannot be staged (a
// hand-made one in the way) is reported, and the group's XML sitemaps are
// published all the same.
func (e *Engine) publishText(r *run, dir string, chunks []sitemap.Chunk) []string {
	var names []string
	for _, c := range chunks {
		name := path.Join(dir, e.outName(config.ChunkName(e.cfg.TextName(), c.Key)))
		names = append(names, name)
		err := sitemap.Text(c.URLs, func(part []byte) error {
			stored, changed, err := e.put(r.batch, r.rep, name, part)
			if err != nil {
				r.textErrs = append(r.textErrs, fmt.Errorf("text sitemap not written: %w", err))
				return nil
			}
			e.text.Stage(name, stored, changed)
			return nil
		})
		if err != nil {
			r.textErrs = append(r.textErrs, err)
		}
	}
	return names
}

// groupFailed notes a group that could not be published, to be retried,
// and returns the error to report, or nil when there is nothing to report:
// the group's directory vanished while it was being published, which the
// event of its move or removal handles.
func (e *Engine) groupFailed(dir string, err error) error {
	e.state(dir).failed = true
	if e.outDir == e.cfg.Root && errors.Is(err, fs.ErrNotExist) {
		e.log.Info("group not written: its directory vanished meanwhile", zap.String("dir", e.groupPath(dir)))
		return nil
	}
	return err
}

// claimed reports whether an output file is one the engine publishes now:
// a part of its group, or one of the index files.
func (e *Engine) claimed(p string, index []string) bool {
	if g := e.groups[e.depth.GroupOf(tree.Parent(p))]; g != nil && (slices.Contains(g.parts, p) || slices.Contains(g.textParts, p)) {
		return true
	}
	return slices.Contains(index, p) || e.claimsExtra(p)
}

// remembered is what memory holds of a group (nil without memory).
func (e *Engine) remembered(dir string) map[string]*tree.Listing {
	if e.mem == nil {
		return nil
	}
	return e.mem.Listings(dir)
}

// hasOtherParts reports whether a full build met, in a group's directory,
// parts of its sitemap other than names (the walk, or the scan of a
// separate output tree, saw every output: the directory is not read again).
func (e *Engine) hasOtherParts(r *run, dir string, names []string) bool {
	for _, p := range r.met[dir] {
		if e.isPart(path.Base(p), e.cfg.SitemapName) && !slices.Contains(names, p) {
			return true
		}
	}
	return false
}

// isPart reports whether file is a part of the output called base as
// written now (gzipped or not, as configured).
func (e *Engine) isPart(file, base string) bool {
	return file == e.outName(strings.TrimSuffix(file, ".gz")) && config.IsPartName(file, base)
}

// partsOf lists the sitemap files a group published: as remembered, or,
// for a group new to this engine (a start, or a directory moved in, which
// may bring sitemap files of its own), as found on disk.
func (e *Engine) partsOf(dir string) []string {
	if g := e.groups[dir]; g != nil && g.parts != nil {
		return g.parts
	}
	return e.publishedParts(dir)
}

// publishedParts lists the parts of a group that are on disk and ours.
func (e *Engine) publishedParts(dir string) []string {
	return e.publishedPartsOf(dir, e.cfg.SitemapName)
}

// publishedTextParts lists the text parts of a group that are on disk and
// ours.
func (e *Engine) publishedTextParts(dir string) []string {
	return e.publishedPartsOf(dir, e.cfg.TextName())
}

// publishedPartsOf lists the parts of the output called base in a group's
// directory that are on disk and ours (sitemaps, or text sitemaps), sorted:
// numbered parts (PartName, as versions before content-defined parts named
// them) and keyed ones (ChunkName) alike.
func (e *Engine) publishedPartsOf(dir, base string) []string {
	d := dir
	if d == "" {
		d = "."
	}
	files, err := e.pub.ReadDirNames(d)
	if err != nil {
		return nil
	}
	var names []string
	for _, file := range files {
		if !e.isPart(file, base) {
			continue // a .gz without gzip on, or the reverse, or another file
		}
		name := path.Join(dir, file)
		if ok, _ := e.pub.Owned(name); ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// readURLs reads back the URLs (loc -> lastmod text) of sitemap files we
// wrote. A file it cannot read counts as empty, so its URLs show as added,
// which errs towards telling engines too much rather than too little.
func (e *Engine) readURLs(names []string) map[string]string {
	urls := map[string]string{}
	for _, n := range names {
		f, err := e.pub.Open(n)
		if err != nil {
			continue
		}
		var r io.Reader = f
		if strings.HasSuffix(n, ".gz") {
			zr, err := gzip.NewReader(f)
			if err != nil {
				f.Close()
				continue
			}
			r = zr
		}
		_ = sitemap.ReadURLs(r, urls) // what was read counts; the rest shows as added
		f.Close()
	}
	return urls
}

// partNames are the file names of parts, in order.
func partNames(parts []part) []string {
	names := make([]string, len(parts))
	for i, p := range parts {
		names[i] = p.name
	}
	return names
}
