package build

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/changeset"
	"github.com/sitemapd/sitemapd/internal/outname"
	"github.com/sitemapd/sitemapd/internal/scan"
	"github.com/sitemapd/sitemapd/internal/sitemap"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// publishGroup is one group's step of a publish: its listings become
// URLs, sorted; the URLs become parts, encoded (all of them, or those a
// change touched); each part whose bytes changed is staged; and what the
// publish changes (the URLs added, changed, removed, and the group's state
// to take) is staged to take effect at the commit. It reports whether the
// group was staged; if not, the state it takes at the commit is marked
// failed, and its previously published parts stay as they are and stay
// listed.
func (e *Engine) publishGroup(r *run, g *scan.Group, u *tree.Update) bool {
	r.left.Merge(&g.Left)
	next := r.group(e.model, g.Dir)
	if g.Err != nil {
		e.keepParts(g.Dir, next)
		e.fail(r, g.Dir, fmt.Errorf("group %s not updated: %w", e.groupPath(g.Dir), g.Err))
		return false
	}
	old := e.previous(r, g.Dir, next)
	enc, err := e.encodeGroup(r, g, next, u)
	e.out.planGroup(g.Dir, enc.n, enc.names)
	if err != nil {
		next.published = nil // some of its parts may land
		e.fail(r, g.Dir, fmt.Errorf("group %s not updated: %w", e.groupPath(g.Dir), e.extras.appHint(err)))
		return false
	}
	next.textParts = nil
	if e.cfg.TextSitemaps() {
		next.textParts = e.publishText(r, g.Dir, enc.chunks)
	}
	s := e.stagingOf(r, g, u, enc)
	changes, prev := e.changesOf(r, g, u, e.comparedWith(r, g.Dir, old.parts, enc), enc, next.failed)
	r.account(e.cfg.BaseURL, g, prev, enc.n, changes.Removed)
	if r.counted {
		changes = changes.Counted()
	}
	s.changes = changes
	e.noteStaged(r, g, s, enc.names)
	if !r.full {
		r.stale = append(append(r.stale, old.parts...), old.text...)
	}
	return true
}

// encoded is a group's sitemap as a publish encoded it: its parts' names
// and what is remembered of them, its chunks (for its text sitemaps; nil
// when only the parts a change touched were encoded), whether any of its
// files changes, and how many URLs it lists.
type encoded struct {
	names   []string
	parts   []part
	chunks  []sitemap.Chunk
	changed bool
	n       int
}

// previousFiles are the files a group published before a publish.
type previousFiles struct{ parts, text []string }

// keepParts notes, in a group's state to come, its parts and text parts
// on disk where it does not know them: its read failed, and they stay.
func (e *Engine) keepParts(dir string, next *group) {
	if next.parts == nil {
		next.parts = e.disk.parts(dir)
	}
	if next.textParts == nil {
		next.textParts = e.disk.textParts(dir)
	}
}

// previous returns what a group published (cur: its state before the
// publish), as known, or, for a group new to this engine (a start, or a
// directory moved in, which may bring sitemap files of its own), as found
// on disk: compared with in daemon mode, and, after a rebuild, removed
// where the new publish does not claim it again (a full build finds every
// stale file in its walk).
func (e *Engine) previous(r *run, dir string, cur *group) previousFiles {
	var old previousFiles
	if !r.full || e.model.mem != nil {
		old.parts = cur.parts
		if old.parts == nil {
			old.parts = e.disk.parts(dir)
		}
	}
	if !r.full {
		old.text = cur.textParts
		if old.text == nil {
			old.text = e.disk.textParts(dir)
		}
	}
	return old
}

// encodeGroup encodes a group's parts and stages each whose bytes differ
// from its file's. A change of a remembered group encodes only the parts
// whose URLs it touched (parts.go); otherwise every part is encoded, from
// the group's URLs sorted. cur is the group's state as published.
func (e *Engine) encodeGroup(r *run, g *scan.Group, cur *group, u *tree.Update) (encoded, error) {
	if l := e.viewURLs(r, g, cur, u); l != nil {
		return e.encodeLocal(r, g.Dir, l)
	}
	urls := sortURLs(g.URLs)
	g.URLs = urls
	r.alts.filter(urls)
	enc := encoded{chunks: sitemap.Chunks(urls, e.cfg.PartSize), n: len(urls)}
	var err error
	enc.parts, enc.changed, err = e.stageChunks(r, enc.chunks, func(key string) string { return e.extras.partName(g.Dir, key) })
	enc.names = partNames(enc.parts)
	return enc, err
}

// comparedWith returns the files whose URLs a group's new parts are
// compared with (old, in daemon mode and in rebuilds). A build reads what
// the group published before only where the shrink guard or a ledger
// (WithWriteAhead) needs it, where it may differ: bytes unchanged in as
// many files list the same URLs.
func (e *Engine) comparedWith(r *run, dir string, old []string, enc encoded) []string {
	if !r.full || e.model.mem != nil {
		return old
	}
	if (e.guarded() || e.opts.owe != nil) && (enc.changed || hasOtherParts(e.opts.names, r.met[dir], enc.names)) {
		return e.disk.parts(dir)
	}
	return enc.names
}

// stagingOf returns what a group's publish is to change at the commit,
// but its changes (changesOf).
func (e *Engine) stagingOf(r *run, g *scan.Group, u *tree.Update, enc encoded) staging {
	s := staging{upd: u, urls: enc.n, due: g.Due, feed: e.groupEntries(g.URLs), news: e.news.articles(g, u, r.now),
		left: e.model.left.next(g, u, enc.n)}
	if e.model.mem != nil || e.pages.recorded != nil {
		s.parts = enc.parts // for local parts (daemon), or the groups record
	}
	if e.model.mem == nil {
		// Nothing remembers the update (a build): kept until the commit,
		// it would keep every listing of the tree alive.
		s.upd = nil
	}
	// What the read found is kept for the page store's append (a rebuild;
	// a full build wrote it to the new store already) and for what the
	// daemon holds of a group memory does not. A full build without memory
	// keeps nothing: its memory is bounded by its largest group, not the
	// tree.
	if !r.full || (e.model.mem != nil && (u == nil || u.View == nil)) {
		s.read = g.Listings
		if s.read == nil && u != nil {
			s.read = u.Set // a refresh: the directories it re-read
		}
	}
	return s
}

// changesOf returns the URLs a group's publish adds, changes and removes,
// and how many it listed before, by memory (the listings before and
// after) or else by the files it published (old). Equal bytes in as many
// files: not one URL or lastmod changed (and the same bytes list the same
// URLs). A group that failed last time may have lost its files with its
// directory, so it is compared whatever its files say.
func (e *Engine) changesOf(r *run, g *scan.Group, u *tree.Update, old []string, enc encoded, failed bool) (changeset.Changes, int) {
	if !enc.changed && len(enc.names) == len(old) && !failed {
		return changeset.Changes{}, enc.n
	}
	if before := e.model.remembered(g.Dir); before != nil && u != nil && u.View != nil {
		return changeset.Compare(before, u.View, r.now, e.scan.PageLoc), tree.CountListed(before)
	}
	if e.model.mem != nil || e.guarded() || e.opts.owe != nil {
		if c, n, ok := e.pages.publishedBefore(g.Dir, u, old, r.now); ok {
			return c, n
		}
		// Not remembered (a restart, a build, or a group that follows
		// symlinks): what it published is in its files, not yet
		// replaced (the commit comes later).
		published := e.disk.urls(old)
		c := changeset.Diff(published, g.URLs)
		c.Dated = datedAmong(g, e.scan.PageLoc, c.Added, c.Changed)
		return c, len(published)
	}
	return changeset.Changes{}, enc.n
}

// noteStaged notes a group's publish, s, whose files are names (staged, or
// kept as they are), to take effect at the commit, with the group's state
// to come.
func (e *Engine) noteStaged(r *run, g *scan.Group, s staging, names []string) {
	r.staged[g.Dir] = s
	next := r.group(e.model, g.Dir)
	next.parts = names
	next.links = nil
	if len(g.Links) > 0 {
		next.links = slices.Compact(slices.Sorted(slices.Values(g.Links)))
	}
	next.failed = false
	if next.parts == nil && next.textParts == nil && next.links == nil {
		r.next[g.Dir] = nil // nothing to keep: an empty group
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
	e.enc.parts++
	err = e.enc.URLSet(c.URLs, func(data []byte) error {
		stored, ch, err := e.put(r.batch, r.rep, p.name, data)
		if err != nil {
			return err
		}
		p.sum = partSum(stored)
		if ch {
			e.model.times.keep(e.cfg, e.log, r.batch, p.name, p.sum)
		}
		changed = changed || ch
		return nil
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
		name := path.Join(dir, e.opts.names.Out(outname.Chunk(e.opts.names.Text(), c.Key)))
		names = append(names, name)
		err := sitemap.Text(c.URLs, func(part []byte) error {
			stored, changed, err := e.put(r.batch, r.rep, name, part)
			if err != nil {
				r.textErrs = append(r.textErrs, fmt.Errorf("text sitemap not written: %w", err))
				return nil
			}
			e.model.text.Stage(name, stored, changed)
			return nil
		})
		if err != nil {
			r.textErrs = append(r.textErrs, err)
		}
	}
	return names
}

// groupFailed marks a group that could not be published (g, its state),
// to be retried, and returns the error to report, or nil when there is
// nothing to report: the group's directory vanished while it was being
// published, which the event of its move or removal handles.
func (e *Engine) groupFailed(g *group, dir string, err error) error {
	g.failed = true
	if e.opts.outDir == e.cfg.Root && errors.Is(err, fs.ErrNotExist) {
		e.log.Info("group not written: its directory vanished meanwhile", zap.String("dir", e.groupPath(dir)))
		return nil
	}
	return err
}

// claimed reports whether an output file is one the engine publishes now:
// a part of its group, one of the index files, an extra's, or the news
// sitemap's.
func (e *Engine) claimed(p string, index []string) bool {
	return e.model.claims(p) || slices.Contains(index, p) || e.extras.claims(p) || e.news.claims(p)
}

// hasOtherParts reports whether a full build met, in a group's directory
// (met: the outputs there), parts of its sitemap other than names (the
// walk, or the scan of a separate output tree, saw every output: the
// directory is not read again).
func hasOtherParts(out *outname.Site, met, names []string) bool {
	for _, p := range met {
		if out.PartOf(path.Base(p), out.Sitemap()) && !slices.Contains(names, p) {
			return true
		}
	}
	return false
}

// partNames are the file names of parts, in order.
func partNames(parts []part) []string {
	names := make([]string, len(parts))
	for i, p := range parts {
		names[i] = p.name
	}
	return names
}
