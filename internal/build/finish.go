package build

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"

	"github.com/sitemapd/sitemapd/internal/changeset"
	"github.com/sitemapd/sitemapd/internal/publish"
	"github.com/sitemapd/sitemapd/internal/tree"
)

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
		e.model.refused = nil
		if r.counted {
			r.gone = r.gone.Counted()
		}
	}
	if err := e.writeAhead(r); err != nil {
		return e.notRecorded(r, err)
	}
	if r.store != nil {
		e.pages.commitStore(r.store)
		r.store = nil
	} else if !r.full {
		e.pages.appendRead(r.staged)
	}
	e.commit(r)
	if r.full {
		e.forgetUnseen(r)
	}
	e.publishRoot(r)
	e.removeStale(r)
	if r.full {
		e.pages.saveRecord(e.model.groups, r.digests, r.kept)
	}
	if e.model.mem != nil && e.out.lands() && (r.full || len(r.rep.Written) > 0 || len(r.rep.Removed) > 0) {
		e.model.times.save(e.cfg, e.log, e.model.groups)
	}
	if !r.full && e.model.refused != nil && len(e.Failed()) == 0 {
		// The groups a refusal marked failed are all published now, the
		// guard passing: what made it refuse (a volume not mounted, a
		// deploy half done) is over.
		e.model.refused = nil
	}
	if r.full {
		// What the run staged holds the listings memory took (each
		// group's update): let them go first, or the repack cannot free
		// the originals as it copies them (repack.go).
		r.staged = nil
		e.pages.repack()
	}
	r.rep.Duration = e.opts.now().Sub(r.start)
	return r.rep, errors.Join(r.errs...)
}

// publishRoot publishes, once the groups' files are committed, the files
// at the root of the output that list them: the news sitemap (which the
// index lists), the index, the feed, after a full walk the files beside
// the index, and robots.txt's Sitemap lines when the index files are
// others (or after a full walk).
func (e *Engine) publishRoot(r *run) {
	if err := e.publishNews(r); err != nil {
		r.errs = append(r.errs, err)
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
	if r.full || !slices.Equal(r.oldIndex, e.model.indexNames(e.opts.names)) {
		if err := e.publishRobots(r.rep); err != nil {
			r.errs = append(r.errs, fmt.Errorf("robots.txt: %w", err))
		}
	}
}

// removeStale removes the outputs nothing claims any more (unless their
// group failed) and stale temp files, and saves the record of text
// sitemaps.
func (e *Engine) removeStale(r *run) {
	text := e.model.text
	r.stale = append(r.stale, r.oldIndex...)
	if r.full {
		// After a full walk every text sitemap of ours is a part of some
		// group, or stale: the record knows them all, wherever they are.
		text.Names(func(name string) { r.stale = append(r.stale, name) })
	}
	for _, p := range r.temps {
		if err := e.out.removeTemp(p, r.start); err != nil {
			r.errs = append(r.errs, err)
		}
	}
	index := e.model.indexNames(e.opts.names)
	removed := map[string]bool{}
	for _, p := range r.stale {
		if !removed[p] && !e.claimed(p, index) && !r.kept[e.opts.depth.GroupOf(tree.Parent(p))] {
			removed[p] = true
			e.remove(p, r)
		}
	}
	if r.full {
		// After a full publish every text sitemap of ours is a part of some
		// group, or one that could not be removed: the record keeps those
		// only (names moved away or deleted while sitemapd was not
		// looking go).
		text.Names(func(name string) {
			if e.claimed(name, index) {
				return
			}
			if _, err := e.pub.Stat(name); errors.Is(err, fs.ErrNotExist) {
				text.Forget(name)
			}
		})
		text.Settled()
	}
	r.errs = append(r.errs, e.out.saveText(text))
	r.errs = append(r.errs, r.textErrs...)
}

// forgetUnseen ends a full walk: the groups it did not meet are gone,
// their pages removed.
func (e *Engine) forgetUnseen(r *run) {
	e.pages.forgetUnseen(r.seen)
	e.model.left.keepOnly(r.seen)
	for dir, g := range e.model.groups {
		if !r.seen[dir] {
			r.stale = append(append(r.stale, g.parts...), g.textParts...)
			delete(e.model.groups, dir)
			e.model.feedStale, e.news.stale = true, true
		}
	}
	if mem := e.model.mem; mem != nil {
		r.rep.Changes.Merge(r.gone)
		mem.Groups(func(dir string) {
			if !r.seen[dir] {
				mem.Forget(dir)
			}
		})
	}
}

// unseen returns the pages of the remembered groups a full walk did not
// meet, and, at an engine's first, of the groups the page store knows: they
// are gone.
func (e *Engine) unseen(r *run) changeset.Changes {
	var c changeset.Changes
	if mem := e.model.mem; mem != nil {
		mem.Groups(func(dir string) {
			if !r.seen[dir] {
				c.Merge(changeset.Compare(mem.Listings(dir), nil, r.now, e.scan.PageLoc))
			}
		})
		c.Merge(e.pages.goneSince(r.seen, r.now))
	}
	return c
}

// commit commits the groups' files and settles the engine's model of what
// is published with the outcome. The record of text sitemaps goes first:
// a text file on disk must be one it knows, whenever the process stops;
// if the record cannot be written, the text files stay as they are. Then
// the model takes the groups' states the run staged (run.next): committed
// groups report their changes and are remembered as read. A group any of
// whose files did not land is remembered as it was, lists the parts that
// are on disk, and is marked for retry, so that the engine's view of what
// is published stays true.
func (e *Engine) commit(r *run) {
	drop, err := e.out.prepareText(e.model.text)
	for _, name := range drop {
		r.batch.Drop(name)
		r.rep.Written = slices.DeleteFunc(r.rep.Written, func(p string) bool { return p == filepath.Join(e.opts.outDir, name) })
	}
	r.errs = append(r.errs, err)
	failed, err := e.commitFiles(r.batch, r.rep)
	e.model.text.Settle(failed)
	r.errs = append(r.errs, err)
	r.errs = append(r.errs, e.settleURLFiles(r, failed)...)
	e.model.take(r.next)
	r.alts.commit(e.model.alts, r.rep)
	bad := map[string]bool{}
	for name, ferr := range failed {
		if e.extras.of(name) != nil {
			continue // settleURLFiles's
		}
		dir := tree.Parent(name)
		bad[dir] = true
		if ferr = e.groupFailed(e.model.state(dir), dir, ferr); ferr != nil {
			r.errs = append(r.errs, fmt.Errorf("group %s not updated: %w", e.groupPath(dir), ferr))
		}
	}
	for _, dir := range slices.Sorted(maps.Keys(r.staged)) {
		if !bad[dir] {
			e.landGroup(r, dir, r.staged[dir])
		}
	}
	for dir := range bad {
		g := e.model.state(dir)
		g.parts, g.textParts, g.urls, g.published = e.disk.parts(dir), e.disk.textParts(dir), -1, nil
		e.model.unknownEntries(g)
	}
}

// landGroup settles a group whose files all landed: its changes are
// reported, memory applies its update, and its state knows what it
// lists.
func (e *Engine) landGroup(r *run, dir string, st staging) {
	e.model.left.land(dir, e.loc.Loc(e.loc.PagePath(dir, "")), st.left)
	if mem := e.model.mem; mem != nil {
		r.rep.Changes.Merge(st.changes)
		if st.upd != nil {
			mem.Apply(dir, st.upd)
		}
		if st.upd == nil || st.upd.View == nil {
			e.pages.hold(dir, st.read)
		} else {
			e.pages.hold(dir, nil)
		}
	}
	e.news.land(e.model.groups[dir], st.news)
	if g := e.model.groups[dir]; g != nil {
		g.urls, g.due = st.urls, st.due
		e.model.setEntries(g, st.feed)
		landed(e.disk, g, st.parts)
		e.model.times.land(e.cfg, g.published)
	} else {
		e.model.feedStale = true // the group is empty now
	}
}

// commitFiles commits a batch and takes the files that did not land out of
// rep.Written. It returns them with their errors, and the batch's error.
func (e *Engine) commitFiles(batch *publish.Batch, rep *Report) (map[string]error, error) {
	failed, err := batch.Commit()
	for name := range failed {
		abs := filepath.Join(e.opts.outDir, name)
		rep.Written = slices.DeleteFunc(rep.Written, func(p string) bool { return p == abs })
	}
	return failed, err
}

// remove removes one of our outputs that nothing claims any more.
func (e *Engine) remove(p string, r *run) {
	removed, err := e.out.remove(p)
	var fe *publish.ForeignError
	switch {
	case errors.As(err, &fe):
		// Named like ours but not ours, and not in our way: leave it.
	case err != nil:
		r.errs = append(r.errs, err)
	default:
		if removed {
			r.rep.Removed = append(r.rep.Removed, filepath.Join(e.opts.outDir, p))
		}
		e.model.text.Forget(p)
	}
}
