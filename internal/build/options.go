package build

import (
	"os"
	"time"

	"github.com/sitemapd/sitemapd/internal/changeset"
	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/outname"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// options are what an Engine is told once, at New: the policy its Options
// set, what it derives from the configuration, and the seams tests
// replace. Nothing of a publish writes them, so every owner may read
// them: keeping them apart from the state that changes is what lets the
// Engine stay a coordinator.
type options struct {
	owe     func(changeset.Changes, bool) error // WithWriteAhead; nil: nobody is owed
	urls    func() bool                         // WithChangeURLs
	force   bool                                // WithForce: no shrink guard
	changes bool                                // WithChanges: the engine remembers the tree
	dry     bool                                // WithDryRun: the outputs are a plan (dryRun)
	every   time.Duration                       // WithProgress: how often a long walk logs
	defers  bool                                // WithDeferredPrints
	fleet   Fleet                               // WithFleet (fleet.go); nil: no fleet

	now     func() time.Time               // time.Now; a seam for tests of time (withClock)
	openDir func(string) (*os.File, error) // os.Open; a seam for fault tests

	outDir   string            // the output root
	names    *outname.Site     // the outputs' names (package outname)
	keyFiles map[string]string // IndexNow key file name -> key (names.KeyFiles)
	depth    tree.Depth
}

// newOptions returns the options of an Engine for cfg before its Options.
func newOptions(cfg *config.Config) options {
	names := cfg.OutputNames()
	return options{
		every: 5 * time.Second, now: time.Now, openDir: os.Open,
		outDir: cfg.OutputRoot(), names: names, keyFiles: names.KeyFiles(), depth: tree.Depth(cfg.Depth),
	}
}

// Option adjusts an Engine.
type Option func(*Engine)

// WithChanges is the daemon's mode. Every Report carries the page URLs
// added, changed and removed, for notification (the first publish of a
// group compares with its sitemap files, read back once). And the engine
// remembers the tree, so that Update looks only at what changed.
func WithChanges() Option { return func(e *Engine) { e.opts.changes = true } }

// WithWriteAhead has every publish call owe, before the first of its files
// lands, with the page URLs it changes (added, changed, removed) and
// whether it writes any file: so that what search engines are owed is
// recorded before the sitemaps that show it, and a crash between the two
// loses nothing (the daemon records into the notifier's state). What owe
// is given may be more than lands (a group whose files then fail), never
// less. An error owe returns is reported with the publish, whose files
// land all the same: a state directory that cannot be written must not
// stop the sitemaps.
func WithWriteAhead(owe func(changes changeset.Changes, files bool) error) Option {
	return func(e *Engine) { e.opts.owe = owe }
}

// WithChangeURLs has a publish keep the URLs of its changes only if want,
// asked as it begins, says someone is to be told of them; otherwise its
// Report's Changes are only counted (changeset.Changes.Counted), and so are
// what WithWriteAhead's function is given. Without it every publish keeps
// them.
func WithChangeURLs(want func() bool) Option { return func(e *Engine) { e.opts.urls = want } }

// WithDeferredPrints is the daemon's: a first full build of a site with
// no template model (pages.lastmod: significant) publishes without
// learning one and without printing pages, which a first publish does
// not need (there is nothing to compare a print with); Report.PrintsOwed then
// says a full build is to follow, which makes them. Without it, a build
// learns and prints as it goes: `sitemapd build`, whose next run needs
// the prints in the page store.
func WithDeferredPrints() Option { return func(e *Engine) { e.opts.defers = true } }

// WithForce makes publishes that the shrink guard (shrink_guard) would
// refuse: `sitemapd build -force`, for a shrink that is meant.
func WithForce() Option { return func(e *Engine) { e.opts.force = true } }

// WithProgress sets how often a long walk logs its progress (0: never).
func WithProgress(d time.Duration) Option { return func(e *Engine) { e.opts.every = d } }

// WithDryRun makes the engine plan instead of publish (`sitemapd build
// -dry-run`): a publish runs every step it would (the walk, the
// encoding, each file compared with what is on disk, the ownership
// checks, the shrink guard), and its Report says what it would write and
// remove, but nothing is created, written, renamed or removed: no sitemap,
// no temp file, no directory, not the page store, the record of text
// sitemaps or robots.txt, and state_dir is not created. Plan details
// what the last publish would have done. A dry run is not notified
// (WithWriteAhead's function is not called).
func WithDryRun() Option { return func(e *Engine) { e.opts.dry = true } }
