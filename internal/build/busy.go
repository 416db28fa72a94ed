package build

import (
	"path"
	"time"

	"github.com/sitemapd/sitemapd/internal/scan"
)

// UpdateOption adjusts one Update.
type UpdateOption func(*updateOptions)

// updateOptions are what one Update is told beside its directories.
type updateOptions struct {
	busy map[string]bool // root-relative paths of entries still being written
	at   time.Time       // WithBatchTime
}

// WithBatchTime says when the watcher made the batch the Update publishes
// (watch.Batch.At): a page whose file changed after it (less
// watch.settle) is taken as busy, its events still to come, and so is an
// empty page the batch did not name, which a writer may be truncating
// (scan.WalkOptions.Unseen).
func WithBatchTime(at time.Time) UpdateOption {
	return func(o *updateOptions) { o.at = at }
}

// WithBusy names, by directory (relative to the root), the entries the
// watcher found still being written when it handed out the change
// (watch.Batch.Busy): a page among them is not read, and keeps its
// published version (scan.WalkOptions.Busy), or, not published yet, waits.
// The watcher hands them out again once they are quiet, and they are read
// then: a file half written is never taken as a version of its page.
func WithBusy(busy map[string][]string) UpdateOption {
	return func(o *updateOptions) {
		for dir, names := range busy {
			for _, n := range names {
				if o.busy == nil {
					o.busy = map[string]bool{}
				}
				o.busy[path.Join(dir, n)] = true
			}
		}
	}
}

// busyPage is scan.WalkOptions.Busy for these options, nil for none.
func (o updateOptions) busyPage() func(rel string) bool {
	if len(o.busy) == 0 {
		return nil
	}
	return func(rel string) bool { return o.busy[rel] }
}

// batchOptions are the options of a full build (Build's).
func batchOptions(opts []UpdateOption) updateOptions {
	var uo updateOptions
	for _, opt := range opts {
		opt(&uo)
	}
	return uo
}

// fullWalk is o for a full walk of the daemon's batch made under these
// options (changes: the engine is the daemon's): the pages the watcher
// named busy are, and so are those changed since the batch was made
// (less settle) or empty (scan's rule for a known page).
func (uo updateOptions) fullWalk(o scan.WalkOptions, changes bool, settle time.Duration) scan.WalkOptions {
	o.Busy = uo.busyPage()
	if changes && !uo.at.IsZero() {
		o.Unseen = uo.at.Add(-settle)
	}
	return o
}
