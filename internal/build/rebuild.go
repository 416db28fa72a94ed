package build

import (
	"context"
	"maps"
	"slices"

	"github.com/sitemapd/sitemapd/internal/scan"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// groupRead is one group read by a rebuild, before it is published.
type groupRead struct {
	g *scan.Group
	u *tree.Update
}

// Rebuild re-reads the given groups (directories relative to the root, as
// tree.Depth folds them), publishes them and the index, and removes the
// parts they no longer need. It costs work in proportion to those groups,
// not to the site. opts say what the daemon knows of the files being
// written meanwhile (WithBatchTime, WithBusy), as for an Update.
func (e *Engine) Rebuild(ctx context.Context, groups []string, opts ...UpdateOption) (*Report, error) {
	return e.rebuild(ctx, groups, nil, nil, batchOptions(opts))
}

// Update republishes after changes in the given directories (relative to
// the root): it rebuilds the groups that hold or link to them. With
// WithChanges, only those directories are re-read and their groups are
// re-encoded from memory, so a change costs work in proportion to the
// directory, not to its group; otherwise each group is walked whole.
//
// names optionally lists, per directory, the only entries that changed (as
// the watcher reports them); a directory without names is re-read whole.
// opts say more of the change (WithBusy).
func (e *Engine) Update(ctx context.Context, dirty []string, names map[string][]string, opts ...UpdateOption) (*Report, error) {
	var uo updateOptions
	for _, o := range opts {
		o(&uo)
	}
	byGroup := map[string][]string{}
	for _, d := range dirty {
		g := e.opts.depth.GroupOf(d)
		byGroup[g] = append(byGroup[g], d)
	}
	return e.rebuild(ctx, e.model.groupsFor(dirty), byGroup, names, uo)
}

func (e *Engine) rebuild(ctx context.Context, groups []string, dirty map[string][]string, names map[string][]string, uo updateOptions) (*Report, error) {
	if err := e.checkOutput(); err != nil {
		return nil, err
	}
	r := e.begin(false)
	groups = slices.Clone(groups)
	slices.Sort(groups)
	reads := map[string]groupRead{}
	for _, dir := range slices.Compact(groups) {
		g, u, err := e.readGroup(ctx, r, dir, dirty[dir], names, uo)
		if err != nil {
			e.abort(r)
			return nil, err
		}
		reads[dir] = groupRead{g, u}
	}
	if err := e.readOtherNames(ctx, r, reads, dirty, names, uo); err != nil {
		e.abort(r)
		return nil, err
	}
	if err := stageAlternates(ctx, e, r, reads, uo); err != nil {
		e.abort(r)
		return nil, err
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

// readOtherNames reads again, into reads, the groups of the other names
// of the files the reads found changed (otherNames): a file changed
// through one name changed under its others too.
func (e *Engine) readOtherNames(ctx context.Context, r *run, reads map[string]groupRead, dirty map[string][]string, names map[string][]string, uo updateOptions) error {
	more := e.otherNames(reads, dirty, names)
	if more == nil {
		return nil
	}
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
		g, u, err := e.readGroup(ctx, r, group, dirty[group], names, uo)
		if err != nil {
			return err
		}
		reads[group] = groupRead{g, u}
	}
	return nil
}

// readGroup reads one group for a rebuild: from memory and the dirty
// directories where it can, whole otherwise.
func (e *Engine) readGroup(ctx context.Context, r *run, dir string, dirty []string, names map[string][]string, uo updateOptions) (*scan.Group, *tree.Update, error) {
	o := scan.WalkOptions{Now: r.now, Clock: e.opts.now, Known: e.pages.known, Busy: uo.busyPage(), Judged: r.judged.note,
		DeferPrints: e.pages.tmpl.owed}
	if e.opts.changes && !uo.at.IsZero() {
		// The daemon's publish of a watcher's batch: a page changed
		// since it was made is busy, to be read once its events come.
		// Less watch.settle: a change the batch holds that recent, the
		// watcher names busy anyway (watch.Batch.Busy).
		o.Unseen = uo.at.Add(-e.cfg.Watch.Settle)
	}
	mem := e.model.mem
	if st := e.model.groups[dir]; len(dirty) > 0 && mem != nil && mem.Remembers(dir) && (st == nil || (!st.failed && len(st.links) == 0)) {
		g, u, ok, err := e.scan.Refresh(ctx, mem, dir, dirty, names, o)
		if err != nil || ok {
			return g, u, err
		}
	}
	o.Record = mem != nil
	w, err := e.scan.NewWalk(ctx, o)
	if err != nil {
		return nil, nil, err
	}
	defer e.progress.track(w)()
	g := w.Group(dir)
	w.Summary()
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	return g, tree.WholeUpdate(g.Listings, g.FollowsLinks()), nil
}
