package build

import (
	"context"
	"time"

	"github.com/sitemapd/sitemapd/internal/changeset"
	"github.com/sitemapd/sitemapd/internal/feed"
	"github.com/sitemapd/sitemapd/internal/news"
	"github.com/sitemapd/sitemapd/internal/pagestore"
	"github.com/sitemapd/sitemapd/internal/publish"
	"github.com/sitemapd/sitemapd/internal/scan"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// run is the state of one publish, a full build or a rebuild of some
// groups, from its first read to its finishing step. Nothing of it outlives
// the publish: what lasts is in the Engine's model of what is published
// (published), which takes the groups' new states (next) only when the
// run commits, so that a run refused or abandoned has nothing to restore.
type run struct {
	full     bool      // a walk of the whole tree
	counted  bool      // the changes' URLs are not kept, only counted (WithChangeURLs)
	start    time.Time // files older than this may be stale temp files
	now      time.Time // what lastmods are compared with
	batch    *publish.Batch
	rep      *Report
	judged   *judged // notes the walks' judgements in rep.Lastmods
	errs     []error
	textErrs []error             // text sitemaps not written: reported last
	staged   map[string]staging  // groups whose files await the commit
	next     map[string]*group   // the states the groups take at the commit (nil: forgotten)
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
	// list; and what the reads left out.
	still, after int
	dropped      tree.Tally
	deleted      map[string]bool // URLs listed before whose pages are gone
	left         scan.LeftOut
	gone         changeset.Changes // a full walk's pages of groups it did not meet

	urls urlRun // the extra_urls files' publishes (extras.go)
	alts altRun // its stage of the hreflang graph (hreflang.go)

	digests map[string]uint64 // a full build's groups' digests, for the groups record (unchanged.go)
}

// staging is what a group's publish will change once its files are
// committed: the changes to report, the update to remember, the number of
// URLs it lists and when the first of its pages still to come is due. If
// the files fail to land, none of it happens. read are the directories
// the publish read, for the page store, which describes files, not
// sitemaps: they go to it whatever the commit does.
type staging struct {
	changes changeset.Changes
	upd     *tree.Update // nil without memory
	urls    int
	due     int64
	read    map[string]*tree.Listing
	feed    []feed.Entry   // its first entries of the feed of changes
	news    []news.Article // its news articles, fresh or to come (news.go)
	parts   []part         // the group's parts (daemon mode), remembered once they land
	left    *groupLeft     // what it lists and leaves out, for the status page
}

func (e *Engine) begin(full bool) *run {
	now := e.opts.now()
	e.out.begin(e.model.text)
	rep := &Report{}
	return &run{alts: newAltRun(e.model.alts, full, rep),
		full: full, start: now, now: now, batch: e.pub.Begin(), rep: rep, judged: &judged{l: &rep.Lastmods},
		staged: map[string]staging{}, next: map[string]*group{}, seen: map[string]bool{}, kept: map[string]bool{},
		oldIndex: e.model.indexNames(e.opts.names), digests: map[string]uint64{},
		// Nothing remembers or is told of a build's changes: kept until
		// the commit, their URLs would keep every URL of the site alive.
		counted: (e.model.mem == nil && e.opts.owe == nil) || (e.opts.urls != nil && !e.opts.urls()),
	}
}

// group returns the state a group is to take when the run commits: a copy
// of its state as published (its slices are replaced, never written to),
// made when the run first changes it.
func (r *run) group(m *published, dir string) *group {
	if g := r.next[dir]; g != nil {
		return g
	}
	g := &group{urls: -1}
	if _, forgotten := r.next[dir]; !forgotten && m.groups[dir] != nil {
		c := *m.groups[dir]
		g = &c
	}
	r.next[dir] = g
	return g
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
	e.model.text.Discard()
	if r.store != nil {
		r.store.Abort()
		e.pages.stored.pending = nil
	}
}

// fail notes a group that could not be published: it is marked failed in
// the state it takes at the commit, and its files stay.
func (e *Engine) fail(r *run, dir string, err error) {
	if err = e.groupFailed(r.group(e.model, dir), dir, err); err != nil {
		r.errs = append(r.errs, err)
	}
	r.kept[dir] = true
}

// Build walks the whole tree, publishes every group's sitemaps and the
// index, and removes sitemap files that are no longer needed. Groups that
// cannot be read or written keep their published files; their errors are
// returned joined, after every other group has been written.
//
// The daemon's full build of a watcher's batch (a rescan after lost
// events, new robots.txt rules) says when the batch was made
// (WithBatchTime, WithBusy): a deploy may still be writing pages, and a
// known page its walk finds written since, or empty, keeps its version
// until its events bring it (scan.WalkOptions.Unseen), as in an Update.
func (e *Engine) Build(ctx context.Context, opts ...UpdateOption) (*Report, error) {
	if err := e.checkOutput(); err != nil {
		return nil, err
	}
	r := e.begin(true)
	e.loadRobots(e.log) // a full read is where new robots.txt rules take effect
	if e.opts.outDir != e.cfg.Root {
		var err error
		if r.stale, r.temps, err = e.scanOutputs(); err != nil {
			r.batch.Abort()
			return nil, err
		}
		r.meet(r.stale)
	}
	// The build a Report.PrintsOwed asked for walks the tree the first build
	// walked a moment ago: what that walk warned of is not said again.
	repeat := e.pages.tmpl.owed
	stale, deferPrints, sample := e.pages.tmpl.prepare(ctx, e.progress.add, e.opts.defers)
	r.rep.PrintsOwed = deferPrints
	r.store = e.pages.newStore()
	e.pages.loadRecord(r.store != nil)
	w, err := e.scan.NewWalk(ctx, batchOptions(opts).fullWalk(scan.WalkOptions{
		Now: r.now, Clock: e.opts.now, Record: e.model.mem != nil || r.store != nil, Quiet: true, Known: e.pages.known,
		StalePrints: stale, DeferPrints: deferPrints, Sample: sample, Judged: r.judged.note,
	}, e.opts.changes, e.cfg.Watch.Settle))
	if err != nil {
		e.abort(r)
		return nil, err
	}
	defer e.progress.track(w)()
	groups := make(chan *scan.Group, 1)
	stopProgress := e.progress.report(w)
	go func() {
		w.Tree(func(g *scan.Group) { groups <- g })
		close(groups)
	}()
	for g := range groups {
		e.takeGroup(r, w, g)
	}
	publishHeld(e, r, w)
	stopProgress()
	if !repeat {
		w.Summary()
	}
	if err := ctx.Err(); err != nil {
		e.abort(r)
		return nil, err
	}
	if !e.model.started {
		e.model.started = true
		e.warnCanonicals(&r.left)
	}
	// Sitemaps the last index listed may be in directories this walk no
	// longer enters (excluded since, or no longer a group): they go too,
	// unless a group claims them again.
	r.stale = append(r.stale, e.indexedParts()...)
	e.publishURLFiles(r)
	return e.finish(r)
}

// takeGroup takes a group a full build's walk handed over: notes what it
// met, keeps what is known of it in the page store, and publishes it, or
// keeps its files as they are where the groups record (unchanged.go) or
// a daemon's memory (remembered.go) says they are right.
func (e *Engine) takeGroup(r *run, w *scan.Walk, g *scan.Group) {
	r.seen[g.Dir] = true
	r.stale = append(r.stale, g.Own...)
	r.meet(g.Own)
	r.temps = append(r.temps, g.Temps...)
	if r.store != nil {
		for d, l := range g.Listings {
			e.pages.addToStore(r.store, d, l)
		}
	}
	if g.Err != nil {
		e.pages.keepKnown(r.store, g.Dir, g.Listings)
	}
	// A group whose pages name alternates waits for the walk's end, and
	// is never kept as the record says: its entries depend on other
	// groups' pages too (hreflang.go).
	held := r.alts.take(e.scan, g)
	if e.pages.recorded != nil {
		digest := groupDigest(g.Listings)
		r.digests[g.Dir] = digest
		if rec, ok := e.pages.unchanged(g, digest); ok && !held {
			e.keepGroup(r, g, rec)
			return
		}
	}
	if held {
		return
	}
	if rec, ok := e.pages.asRemembered(e.model, r.full, g); ok {
		e.keepGroup(r, g, rec)
		return
	}
	w.AddURLs(g) // now, not while it waited: URLs are 5× its listings
	e.publishGroup(r, g, tree.WholeUpdate(g.Listings, g.FollowsLinks()))
}
