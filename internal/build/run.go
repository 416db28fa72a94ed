package build

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"github.com/sitemapd/sitemapd/internal/feed"
	"github.com/sitemapd/sitemapd/internal/pagestore"
	"github.com/sitemapd/sitemapd/internal/publish"
	"github.com/sitemapd/sitemapd/internal/scan"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// run is the state of one publish, a full build or a rebuild of some
// groups, from its first read to its finishing step. Nothing of it outlives
// the publish: what lasts is in the Engine's groups, memory and record,
// changed only as files land.
type run struct {
	full     bool      // a walk of the whole tree
	counted  bool      // the changes' URLs are not kept, only counted (WithChangeURLs)
	start    time.Time // files older than this may be stale temp files
	now      time.Time // what lastmods are compared with
	batch    *publish.Batch
	rep      *Report
	errs     []error
	textErrs []error             // text sitemaps not written: reported last
	staged   map[string]staging  // groups whose files await the commit
	seen     map[string]bool     // groups read (a full build forgets the others)
	kept     map[string]bool     // groups that failed: their files stay as they are
	stale    []string            // outputs that go unless a group or the index claims them
	met      map[string][]string // a full build's outputs met (its walk, or the output tree's scan), by directory
	temps    []string            // temp files met, removed if older than start
	store    *pagestore.Writer   // the new page store of a full build, or nil
	oldIndex []string            // index files before the publish

	// For the shrink guard: of the pages the groups published listed
	// before, how many they list still, how many a rule now leaves out
	// (by reason) and how many are gone from the tree; how many they will
	// list; what the reads left out; and each group's state before the
	// publish, restored if it is refused (nil: there was none).
	still, after int
	dropped      tree.Tally
	deleted      map[string]bool // URLs listed before whose pages are gone
	left         scan.LeftOut
	saved        map[string]*group
	gone         tree.Changes // a full walk's pages of groups it did not meet

	urls urlRun // the extra_urls files' publishes (extras.go)

	digests map[string]uint64 // a full build's groups' digests, for the groups record (unchanged.go)
}

// staging is what a group's publish will change once its files are
// committed: the changes to report, the update to remember, the number of
// URLs it lists and when the first of its pages still to come is due. If
// the files fail to land, none of it happens. read are the directories
// the publish read, for the page store, which describes files, not
// sitemaps: they go to it whatever the commit does.
type staging struct {
	changes tree.Changes
	upd     *tree.Update // nil without memory
	urls    int
	due     int64
	read    map[string]*tree.Listing
	feed    []feed.Entry // its first entries of the feed of changes
	parts   []part       // the group's parts (daemon mode), remembered once they land
}

func (e *Engine) begin(full bool) *run {
	now := e.now()
	if e.dry != nil {
		e.dry.reset(e)
	}
	return &run{
		full: full, start: now, now: now, batch: e.pub.Begin(), rep: &Report{},
		staged: map[string]staging{}, seen: map[string]bool{}, kept: map[string]bool{}, saved: map[string]*group{},
		oldIndex: e.indexNames(), digests: map[string]uint64{},
		// Nothing remembers or is told of a build's changes: kept until
		// the commit, their URLs would keep every URL of the site alive.
		counted: (e.mem == nil && e.owe == nil) || (e.urls != nil && !e.urls()),
	}
}

// meet notes outputs a full build met, so that a group's parts on disk are
// known without reading its directory again.
func (r *run) meet(outputs []string) {
	if r.met == nil {
		r.met = map[string][]string{}
	}
	for _, p := range outputs {
		d := tree.Parent(p)
		r.met[d] = append(r.met[d], p)
	}
}

// abort abandons a publish before its commit: nothing it staged lands.
func (e *Engine) abort(r *run) {
	r.batch.Abort()
	e.text.Discard()
	if r.store != nil {
		r.store.Abort()
	}
}

// fail notes a group that could not be published.
func (e *Engine) fail(r *run, dir string, err error) {
	if err = e.groupFailed(dir, err); err != nil {
		r.errs = append(r.errs, err)
	}
	r.kept[dir] = true
}

// Build walks the whole tree, publishes every group's sitemaps and the
// index, and removes sitemap files that are no longer needed. Groups that
// cannot be read or written keep their published files; their errors are
// returned joined, after every other group has been written.
func (e *Engine) Build(ctx context.Context) (*Report, error) {
	if err := e.checkOutput(); err != nil {
		return nil, err
	}
	r := e.begin(true)
	e.loadRobots(e.log) // a full read is where new robots.txt rules take effect
	if e.outDir != e.cfg.Root {
		var err error
		if r.stale, r.temps, err = e.scanOutputs(); err != nil {
			r.batch.Abort()
			return nil, err
		}
		r.meet(r.stale)
	}
	r.store = e.newPageStore()
	e.loadGroups(r)
	w, err := e.scan.NewWalk(ctx, scan.WalkOptions{
		Now: r.now, Clock: e.now, Record: e.mem != nil || r.store != nil, Quiet: true, Known: e.known,
	})
	if err != nil {
		e.abort(r)
		return nil, err
	}
	defer e.track(w)()
	groups := make(chan *scan.Group, 1)
	stopProgress := e.reportProgress(w)
	go func() {
		w.Tree(func(g *scan.Group) { groups <- g })
		close(groups)
	}()
	for g := range groups {
		r.seen[g.Dir] = true
		r.stale = append(r.stale, g.Own...)
		r.meet(g.Own)
		r.temps = append(r.temps, g.Temps...)
		if r.store != nil {
			for d, l := range g.Listings {
				r.store.Add(d, l)
			}
		}
		if g.Err != nil {
			e.keepKnown(r.store, g.Dir, g.Listings)
		}
		if e.recorded != nil {
			digest := groupDigest(g.Listings)
			r.digests[g.Dir] = digest
			if rec, ok := e.unchanged(g, digest); ok {
				e.keepGroup(r, g, rec)
				continue
			}
		}
		w.AddURLs(g) // now, not while it waited: URLs are 5× its listings
		e.publishGroup(r, g, tree.WholeUpdate(g.Listings, g.FollowsLinks()))
	}
	stopProgress()
	w.Summary()
	if err := ctx.Err(); err != nil {
		e.abort(r)
		return nil, err
	}
	if !e.started {
		e.started = true
		e.warnCanonicals(&r.left)
	}
	// Sitemaps the last index listed may be in directories this walk no
	// longer enters (excluded since, or no longer a group): they go too,
	// unless a group claims them again.
	r.stale = append(r.stale, e.indexedParts()...)
	e.publishURLFiles(r)
	return e.finish(r)
}

// Rebuild re-reads the given groups (directories relative to the root, as
// tree.Depth folds them), publishes them and the index, and removes the
// parts they no longer need. It costs work in proportion to those groups,
// not to the site.
func (e *Engine) Rebuild(ctx context.Context, groups []string) (*Report, error) {
	return e.rebuild(ctx, groups, nil, nil)
}

// Update republishes after changes in the given directories (relative to
// the root): it rebuilds the groups that hold or link to them. With
// WithChanges, only those directories are re-read and their groups are
// re-encoded from memory, so a change costs work in proportion to the
// directory, not to its group; otherwise each group is walked whole.
//
// names optionally lists, per directory, the only entries that changed (as
// the watcher reports them); a directory without names is re-read whole.
func (e *Engine) Update(ctx context.Context, dirty []string, names map[string][]string) (*Report, error) {
	byGroup := map[string][]string{}
	for _, d := range dirty {
		g := e.depth.GroupOf(d)
		byGroup[g] = append(byGroup[g], d)
	}
	return e.rebuild(ctx, e.groupsFor(dirty), byGroup, names)
}

func (e *Engine) rebuild(ctx context.Context, groups []string, dirty map[string][]string, names map[string][]string) (*Report, error) {
	if err := e.checkOutput(); err != nil {
		return nil, err
	}
	r := e.begin(false)
	groups = slices.Clone(groups)
	slices.Sort(groups)
	reads := map[string]groupRead{}
	for _, dir := range slices.Compact(groups) {
		g, u, err := e.readGroup(ctx, r, dir, dirty[dir], names)
		if err != nil {
			e.abort(r)
			return nil, err
		}
		reads[dir] = groupRead{g, u}
	}
	// A file changed through one name changed under its others too: their
	// groups are read again, with those names.
	if more := e.otherNames(reads, dirty, names); more != nil {
		dirty, names = maps.Clone(dirty), maps.Clone(names)
		if dirty == nil {
			dirty = map[string][]string{}
		}
		if names == nil {
			names = map[string][]string{}
		}
		for group, byDir := range more {
			if _, ok := reads[group]; ok && len(dirty[group]) == 0 {
				continue // read whole already
			}
			for d, ns := range byDir {
				if !slices.Contains(dirty[group], d) {
					dirty[group] = append(dirty[group], d)
				}
				names[d] = append(slices.Clone(names[d]), ns...)
			}
			g, u, err := e.readGroup(ctx, r, group, dirty[group], names)
			if err != nil {
				e.abort(r)
				return nil, err
			}
			reads[group] = groupRead{g, u}
		}
	}
	for _, dir := range slices.Sorted(maps.Keys(reads)) {
		rd := reads[dir]
		if e.publishGroup(r, rd.g, rd.u) {
			r.stale = append(r.stale, rd.g.Own...)
			r.temps = append(r.temps, rd.g.Temps...)
		}
	}
	e.publishURLFiles(r)
	return e.finish(r)
}

// readGroup reads one group for a rebuild: from memory and the dirty
// directories where it can, whole otherwise.
func (e *Engine) readGroup(ctx context.Context, r *run, dir string, dirty []string, names map[string][]string) (*scan.Group, *tree.Update, error) {
	o := scan.WalkOptions{Now: r.now, Clock: e.now, Known: e.known}
	// A group whose last publish failed is read whole: memory is what was
	// published, and the failed read's changes are not in it. So is one
	// that follows symlinks, which memory does not hold.
	if st := e.groups[dir]; len(dirty) > 0 && e.mem != nil && e.mem.Remembers(dir) && (st == nil || (!st.failed && len(st.links) == 0)) {
		g, u, ok, err := e.scan.Refresh(ctx, e.mem, dir, dirty, names, o)
		if err != nil || ok {
			return g, u, err
		}
	}
	o.Record = e.mem != nil
	w, err := e.scan.NewWalk(ctx, o)
	if err != nil {
		return nil, nil, err
	}
	defer e.track(w)()
	g := w.Group(dir)
	w.Summary()
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	return g, tree.WholeUpdate(g.Listings, g.FollowsLinks()), nil
}

// finish is the last step of every publish, full or not: it commits the
// groups' files, then publishes the index (and, after a full walk, the
// files beside it), removes the outputs nothing claims any more and stale
// temp files, and saves the record of text sitemaps.
func (e *Engine) finish(r *run) (*Report, error) {
	r.rep.LeftOut = r.left.Tally
	if r.full {
		r.gone = e.unseen(r)
	}
	if err := e.guard(r); err != nil {
		return e.refuse(r, err)
	}
	if r.full {
		e.refused = nil
		if r.counted {
			r.gone = r.gone.Counted()
		}
	}
	if err := e.writeAhead(r); err != nil {
		return e.notRecorded(r, err)
	}
	if r.store != nil {
		e.commitPageStore(r.store)
		r.store = nil
	} else if !r.full {
		e.appendPageState(r)
	}
	e.commit(r)
	if r.full {
		e.forgetUnseen(r)
	}
	if err := e.publishIndex(r.rep); err != nil {
		r.errs = append(r.errs, err)
	}
	if err := e.publishFeed(r); err != nil {
		r.errs = append(r.errs, err)
	}
	if r.full {
		if err := e.publishExtras(r.rep); err != nil {
			r.errs = append(r.errs, err)
		}
	}
	if r.full || !slices.Equal(r.oldIndex, e.indexNames()) {
		if err := e.publishRobots(r.rep); err != nil {
			r.errs = append(r.errs, fmt.Errorf("robots.txt: %w", err))
		}
	}
	r.stale = append(r.stale, r.oldIndex...)
	if r.full {
		// After a full walk every text sitemap of ours is a part of some
		// group, or stale: the record knows them all, wherever they are.
		e.text.Names(func(name string) { r.stale = append(r.stale, name) })
	}
	for _, p := range r.temps {
		if err := e.removeTemp(p, r.start); err != nil {
			r.errs = append(r.errs, err)
		}
	}
	index := e.indexNames()
	removed := map[string]bool{}
	for _, p := range r.stale {
		if !removed[p] && !e.claimed(p, index) && !r.kept[e.depth.GroupOf(tree.Parent(p))] {
			removed[p] = true
			e.remove(p, r)
		}
	}
	if r.full {
		// After a full publish every text sitemap of ours is a part of some
		// group, or one that could not be removed: the record keeps those
		// only (names moved away or deleted while sitemapd was not
		// looking go).
		e.text.Names(func(name string) {
			if e.claimed(name, index) {
				return
			}
			if _, err := e.pub.Stat(name); errors.Is(err, fs.ErrNotExist) {
				e.text.Forget(name)
			}
		})
		e.text.Settled()
	}
	r.errs = append(r.errs, e.saveText())
	r.errs = append(r.errs, r.textErrs...)
	if r.full {
		e.saveGroups(r)
	}
	if !r.full && e.refused != nil && len(e.Failed()) == 0 {
		// The groups a refusal marked failed are all published now, the
		// guard passing: what made it refuse (a volume not mounted, a
		// deploy half done) is over.
		e.refused = nil
	}
	r.rep.Duration = e.now().Sub(r.start)
	return r.rep, errors.Join(r.errs...)
}

// forgetUnseen ends a full walk: the groups it did not meet are gone,
// their pages removed.
func (e *Engine) forgetUnseen(r *run) {
	if e.mem != nil {
		// Memory, and what the engine keeps of groups memory does not
		// hold, know every page from now on.
		e.pages.old.Close()
		e.pages.old = nil
	}
	for dir, g := range e.groups {
		if !r.seen[dir] {
			r.stale = append(append(r.stale, g.parts...), g.textParts...)
			delete(e.groups, dir)
			e.feedStale = true
		}
	}
	for d := range e.pages.held {
		if !r.seen[e.depth.GroupOf(d)] {
			delete(e.pages.held, d)
		}
	}
	if e.mem != nil {
		r.rep.Changes.Merge(r.gone)
		e.mem.Groups(func(dir string) {
			if !r.seen[dir] {
				e.mem.Forget(dir)
			}
		})
	}
}

// unseen returns the pages of the remembered groups a full walk did not
// meet: they are gone.
func (e *Engine) unseen(r *run) tree.Changes {
	var c tree.Changes
	if e.mem != nil {
		e.mem.Groups(func(dir string) {
			if !r.seen[dir] {
				c.Merge(tree.Compare(e.mem.Listings(dir), nil, r.now, e.scan.PageLoc))
			}
		})
	}
	return c
}

// commit commits the groups' files and settles the engine's state with
// the outcome. The record of text sitemaps goes first: a text file on disk
// must be one it knows, whenever the process stops; if the record cannot
// be written, the text files stay as they are. Committed groups report
// their changes and are remembered as read. A group any of whose files did
// not land is remembered as it was, lists the parts that are on disk, and
// is marked for retry, so that the engine's view of what is published
// stays true.
func (e *Engine) commit(r *run) {
	var drop []string
	var err error
	if e.dry == nil {
		drop, err = e.text.Prepare()
	}
	for _, name := range drop {
		r.batch.Drop(name)
		r.rep.Written = slices.DeleteFunc(r.rep.Written, func(p string) bool { return p == filepath.Join(e.outDir, name) })
	}
	r.errs = append(r.errs, err)
	failed, err := e.commitFiles(r.batch, r.rep)
	e.text.Settle(failed)
	r.errs = append(r.errs, err)
	r.errs = append(r.errs, e.settleURLFiles(r, failed)...)
	bad := map[string]bool{}
	for name, ferr := range failed {
		if e.urlFileOf(name) != nil {
			continue // settleURLFiles's
		}
		dir := tree.Parent(name)
		bad[dir] = true
		if ferr = e.groupFailed(dir, ferr); ferr != nil {
			r.errs = append(r.errs, fmt.Errorf("group %s not updated: %w", e.groupPath(dir), ferr))
		}
	}
	for _, dir := range slices.Sorted(maps.Keys(r.staged)) {
		if st := r.staged[dir]; !bad[dir] {
			if e.mem != nil {
				r.rep.Changes.Merge(st.changes)
				if st.upd != nil {
					e.mem.Apply(dir, st.upd)
				}
				if st.upd == nil || st.upd.View == nil {
					e.hold(dir, st.read)
				} else {
					e.hold(dir, nil)
				}
			}
			if g := e.groups[dir]; g != nil {
				g.urls, g.due = st.urls, st.due
				e.setEntries(g, st.feed)
				e.landed(g, st.parts)
			} else {
				e.feedStale = true // the group is empty now
			}
		}
	}
	for dir := range bad {
		g := e.state(dir)
		g.parts, g.textParts, g.urls, g.published = e.publishedParts(dir), e.publishedTextParts(dir), -1, nil
		e.unknownEntries(g)
	}
}

// commitFiles commits a batch and takes the files that did not land out of
// rep.Written. It returns them with their errors, and the batch's error.
func (e *Engine) commitFiles(batch *publish.Batch, rep *Report) (map[string]error, error) {
	failed, err := batch.Commit()
	for name := range failed {
		abs := filepath.Join(e.outDir, name)
		rep.Written = slices.DeleteFunc(rep.Written, func(p string) bool { return p == abs })
	}
	return failed, err
}

// remove removes one of our outputs that nothing claims any more.
func (e *Engine) remove(p string, r *run) {
	removed, err := e.unlink(p)
	var fe *publish.ForeignError
	switch {
	case errors.As(err, &fe):
		// Named like ours but not ours, and not in our way: leave it.
	case err != nil:
		r.errs = append(r.errs, err)
	default:
		if removed {
			r.rep.Removed = append(r.rep.Removed, filepath.Join(e.outDir, p))
		}
		e.text.Forget(p)
	}
}
