package build

// What a publish owes before its files land, and how one that cannot go on
// is abandoned: its changes not recorded as owed (notRecorded), or its
// output directory no longer the one its path names (checkOutput). A run
// abandoned lands nothing; its groups are marked for the daemon's retry.

import (
	"fmt"
	"maps"
	"slices"

	"github.com/sitemapd/sitemapd/internal/changeset"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// OutputReplacedError is a publish not made because the output directory
// was moved away or replaced (or a symlink to it swapped) since the engine
// opened it: its files would land in the directory it holds, out of
// sight. The engine must be made anew on the directory the path names.
type OutputReplacedError struct{ Dir string }

func (e *OutputReplacedError) Error() string {
	return fmt.Sprintf("output directory %s was moved or replaced since sitemapd opened it: nothing written into the old one, out of sight", e.Dir)
}

// checkOutput refuses to publish into an output directory that is no
// longer the one its path names.
func (e *Engine) checkOutput() error {
	if e.pub.Replaced() {
		return &OutputReplacedError{Dir: e.opts.outDir}
	}
	return nil
}

// writeAhead hands what the publish will change to WithWriteAhead's
// function before any of its files lands. What it hands may be more than
// lands (a group whose files fail), never less.
func (e *Engine) writeAhead(r *run) error {
	if e.opts.owe == nil || !e.out.lands() {
		return nil
	}
	var owed changeset.Changes
	owed.Merge(r.gone)
	for _, dir := range slices.Sorted(maps.Keys(r.staged)) {
		owed.Merge(r.staged[dir].changes)
	}
	owed.Merge(r.owedByURLFiles())
	files := len(r.rep.Written) > 0
	if owed.Empty() && !files {
		return nil
	}
	return e.opts.owe(owed, files)
}

// notRecorded abandons a publish whose changes could not be recorded as
// owed (the ledger cannot be saved: a full or read-only state_dir). Its
// files must not land: after a crash, the restart would find the pages
// already published and owe nothing, and search engines would never be
// told. The old files stay, the engine's model of what is published stays
// as it was (a run's groups are taken only at the commit), and every group the run staged, or found gone, is marked failed, so that the
// daemon retries them (with its backoff) until the ledger can be saved.
func (e *Engine) notRecorded(r *run, err error) (*Report, error) {
	e.abort(r)
	e.failRun(r)
	return &Report{LeftOut: r.left.Tally, Duration: e.opts.now().Sub(r.start)},
		fmt.Errorf("nothing published, the old sitemaps stay: what search engines are owed could not be recorded first: %w", err)
}

// failRun marks failed, for the daemon to retry, every group an abandoned
// run staged and, after a full walk, every group it did not meet that the
// engine or the page store knows: a retry reads them again.
func (e *Engine) failRun(r *run) {
	failed := slices.Collect(maps.Keys(r.staged))
	if r.full {
		if e.model.mem != nil {
			e.model.mem.Groups(func(dir string) {
				if !r.seen[dir] {
					failed = append(failed, dir)
				}
			})
		}
		for dir := range e.model.groups {
			if !r.seen[dir] {
				failed = append(failed, dir)
			}
		}
		if e.pages.old != nil {
			e.pages.old.Each(func(dir string, _ *tree.Listing) {
				if g := e.opts.depth.GroupOf(dir); !r.seen[g] {
					failed = append(failed, g)
				}
			})
		}
	}
	for _, dir := range failed {
		e.model.state(dir).failed = true
	}
}
