package build

import (
	"os"
	"path/filepath"
	"time"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/changeset"
	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/hreflang"
	"github.com/sitemapd/sitemapd/internal/publish"
	"github.com/sitemapd/sitemapd/internal/robots"
	"github.com/sitemapd/sitemapd/internal/scan"
	"github.com/sitemapd/sitemapd/internal/siteurl"
	"github.com/sitemapd/sitemapd/internal/textrecord"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// Engine builds and publishes the sitemaps of one configuration. It keeps,
// per group, the sitemap files the group last published, so that single
// groups can be rebuilt (Rebuild, Update) and the index kept in step
// without a full walk. An Engine is not safe for concurrent use.
//
// The Engine coordinates; the state is its owners': what is published
// (published), where files go (sink: the writer, or the dry run's
// plan), what is on the output tree (onDisk), the page store and groups
// record (pageCache), the extra URLs and apps' sitemaps (extras), the
// walk's progress (progress), what it was told at New (options). A feature brings its own type, not fields here
// (shape_test.go holds the line).
type Engine struct {
	cfg    *config.Config
	log    *zap.Logger
	loc    *siteurl.Locator
	scan   *scan.Scanner
	robots robots.Rules // read at New and at every Build
	opts   options

	pub      *publish.Publisher // the output tree
	disk     onDisk             // what is on it
	out      sink               // where a publish's files go: writer, or dryRun
	enc      *encoder
	model    *published
	pages    *pageCache
	extras   *extras
	progress *progress
	news     *newsSitemap
}

// New returns an Engine for a validated configuration. A nil logger logs
// nothing.
func New(cfg *config.Config, log *zap.Logger, opts ...Option) (*Engine, error) {
	if log == nil {
		log = zap.NewNop()
	}
	e := &Engine{cfg: cfg, log: log.Named("build"), loc: siteurl.New(cfg), opts: newOptions(cfg)}
	for _, o := range opts {
		o(e)
	}
	// New picks the dry run's implementations, here and for the sink: a
	// dry run writes nothing, not even state_dir.
	why := mtimeOnly
	if e.opts.dry {
		why = dryMTimeOnly
	}
	mtime := why(cfg)
	if mtime != "" {
		e.log.Warn("lastmod taken from mtimes, not content: "+mtime+"; pages rewritten with the same bytes (a redeploy) will show a new lastmod and be sent to search engines again",
			zap.String("state_dir", cfg.StateDir))
	}
	e.scan = scan.New(cfg, log.Named("scan"), e.loc, scan.Options{
		OpenDir:   func(p string) (*os.File, error) { return e.opts.openDir(p) },
		MTimeOnly: mtime != "",
		Agree:     e.opts.agreer(),
	})
	// Read quietly: every Build reads it again, and says then what is
	// wrong with it, once a build.
	e.loadRobots(zap.NewNop())
	e.extras = newExtras(cfg, e.opts.names, e.loc)
	e.news = newNewsSitemap(cfg, e.loc)
	e.enc = newEncoder(cfg, e.loc)
	e.progress = &progress{every: e.opts.every, log: e.log}
	var mem *tree.Memory
	if e.opts.changes {
		mem = tree.NewMemory(e.opts.depth)
	}
	e.model = newPublished(e.opts.depth, mem)
	e.model.alts = newAltGraph(cfg)
	// Directories are only created in a separate output tree: one of the
	// document root that vanished must stay gone.
	pub, err := publish.Open(e.opts.outDir, publish.Options{
		Mode: cfg.Mode, Owned: e.owned, CreateDirs: e.opts.outDir != cfg.Root, NotOwned: notOwned,
	})
	if err != nil {
		return nil, err
	}
	e.pub, e.disk = pub, onDisk{pub, cfg, e.opts.names}
	e.out = writer{pub}
	if e.opts.dry {
		e.out = newDryRun(cfg, pub, e.opts.now)
	}
	e.model.text = textrecord.Load(pub, e.log)
	e.pages = &pageCache{cfg: cfg, log: e.log, scan: e.scan, disk: e.disk, out: e.out, depth: e.opts.depth, mem: mem,
		tmpl: &template{log: e.log, scan: e.scan}}
	if mtime == "" {
		e.pages.open()
	}
	return e, nil
}

// Close releases the output directory.
func (e *Engine) Close() error {
	e.pages.close()
	return e.pub.Close()
}

// Report summarises one build or rebuild.
type Report struct {
	Groups    int      // groups built
	URLs      int      // URLs listed in the groups built
	Sitemaps  int      // sitemap files the groups built publish
	Indexes   int      // index files published
	Written   []string // files created or changed (absolute paths)
	Removed   []string // files removed (absolute paths)
	Unchanged int      // files whose bytes were already right
	Duration  time.Duration
	// Changes are the page URLs added, changed and removed, for search
	// engines; a publish whose changes nobody is told of (a build without
	// WithWriteAhead, or as WithChangeURLs says) only counts them.
	Changes changeset.Changes
	// PrintsOwed says this full build deferred what pages say
	// (WithDeferredPrints): a full build is owed, which learns the site's
	// template and reads every HTML page for its print; until then a
	// page's changed bytes move its lastmod.
	PrintsOwed bool
	// LeftOut counts the pages read that are not listed, by reason: all of
	// the site's after a full build, those of the directories read after
	// a rebuild.
	LeftOut tree.Tally
	// Lastmods says what became of the lastmods of the pages read again
	// whose bytes changed (template.go).
	Lastmods Lastmods
	// Hreflang counts what became of the site's hreflang alternates, as
	// of this publish: listed, or left out and why (hreflang.go).
	Hreflang hreflang.Tally
}

// LeftOutField is LeftOut as a log field: the non-zero counts by reason.
func (r *Report) LeftOutField() zap.Field {
	var fields []zap.Field
	for _, why := range tree.Reasons() {
		if n := r.LeftOut[why]; n > 0 {
			fields = append(fields, zap.Int(why.String(), n))
		}
	}
	return zap.Dict("left_out", fields...)
}

// Failed lists the groups (directories relative to the root) whose last
// publish failed; Rebuild them to retry.
func (e *Engine) Failed() []string { return e.model.failed() }

// Listed counts the groups the engine publishes and the URLs their
// published sitemaps list, as far as it knows them (a group whose files did
// not land is not counted until it is published again).
func (e *Engine) Listed() (groups, urls int) {
	groups, urls = e.model.listed()
	return groups, urls + e.extras.listed()
}

// Progress counts the work of the engine's publishes since New: directory
// entries its walks have read, and its publisher's steps (files written,
// renamed, removed, synced). Both only grow. Unlike the rest of Engine it
// may be called from any goroutine while a publish runs: the daemon's
// watchdog sends keep-alives only while they grow.
func (e *Engine) Progress() (entries, steps int64) {
	return e.progress.entries(), e.pub.Steps()
}

// Due returns when the first page still to come (its time is in the
// future) is due, for a Rebuild of DueGroups then: the page has no
// lastmod until that time; or when the news sitemap next changes (an
// article's time comes, or one leaves), for a Rebuild then, of DueGroups
// or of none. The zero time when none is.
func (e *Engine) Due() time.Time {
	first := e.extras.due()
	if g := e.model.due(); g != 0 && (first == 0 || g < first) {
		first = g
	}
	if nx := e.news.next; !nx.IsZero() && (first == 0 || nx.UnixNano() < first) {
		first = nx.UnixNano()
	}
	if first == 0 {
		return time.Time{}
	}
	return time.Unix(0, first)
}

// DueGroups lists the groups holding a page whose time has come by now.
func (e *Engine) DueGroups(now time.Time) []string { return e.model.dueGroups(now) }

// SkipDir reports whether a directory (relative to the root) is never
// listed, so never needs watching: dot-directories, ignored names and
// excluded trees.
func (e *Engine) SkipDir(rel string) bool { return e.scan.SkipDir(rel) }

// IgnoreName reports whether a change to a file of this base name can never
// change a sitemap: sitemapd's own outputs and temp files, dotfiles, editor
// and backup files.
func (e *Engine) IgnoreName(name string) bool { return e.scan.Filter().Ignored(name) }

// loadRobots reads the docroot's robots.txt rules for the walks to come.
func (e *Engine) loadRobots(log *zap.Logger) {
	e.robots = robots.Load(e.cfg, log)
	e.scan.SetRobots(e.robots)
}

// RobotsChanged reports whether the docroot's robots.txt now has other
// rules than the engine reads pages with: then every group must be read
// again (Build), since any page may be in or out.
func (e *Engine) RobotsChanged() bool { return e.robots.Changed(e.cfg) }

// groupPath is a group's directory, for messages.
func (e *Engine) groupPath(dir string) string {
	if dir == "" {
		return e.cfg.Root
	}
	return filepath.Join(e.cfg.Root, dir)
}

// Plan returns what the last publish of a dry run would have done (nil
// without WithDryRun, or before a publish).
func (e *Engine) Plan() *Plan {
	if d, ok := e.out.(*dryRun); ok {
		return d.plan()
	}
	return nil
}
