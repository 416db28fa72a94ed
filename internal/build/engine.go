package build

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/feed"
	"github.com/sitemapd/sitemapd/internal/publish"
	"github.com/sitemapd/sitemapd/internal/robots"
	"github.com/sitemapd/sitemapd/internal/scan"
	"github.com/sitemapd/sitemapd/internal/sitemap"
	"github.com/sitemapd/sitemapd/internal/siteurl"
	"github.com/sitemapd/sitemapd/internal/textrecord"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// Engine builds and publishes the sitemaps of one configuration. It keeps,
// per group, the sitemap files the group last published, so that single
// groups can be rebuilt (Rebuild, Update) and the index kept in step
// without a full walk. An Engine is not safe for concurrent use.
type Engine struct {
	cfg      *config.Config
	log      *zap.Logger
	loc      *siteurl.Locator
	scan     *scan.Scanner
	depth    tree.Depth
	pub      *publish.Publisher
	outDir   string            // the output root
	keyFiles map[string]string // IndexNow key file name -> key
	robots   robots.Rules      // read at New and at every Build
	enc      sitemap.Encoder
	gz       *gzip.Writer
	gzBuf    bytes.Buffer

	openDir  func(string) (*os.File, error) // os.Open; a seam for fault tests
	now      func() time.Time
	progress time.Duration

	groups     map[string]*group  // by group directory
	mem        *tree.Memory       // the tree as last published; nil unless WithChanges
	indexParts int                // index files last published
	feedStale  bool               // some group's feed entries changed since the feed was made
	text       *textrecord.Record // text sitemaps written, by hash
	pages      pageState          // what is kept of pages beyond the sitemaps

	urlFiles    []*urlFile      // extra_urls, in the configuration's order (extras.go)
	appSitemaps map[string]bool // extra_sitemaps on the output tree, by path from its root
	appLocs     []string        // extra_sitemaps as <loc>s, sorted

	owe     func(tree.Changes, bool) error // WithWriteAhead
	urls    func() bool                    // WithChangeURLs
	force   bool                           // no shrink guard (WithForce)
	dry     *dryRun                        // WithDryRun: what a publish would do
	refused *ShrinkError                   // the last full build's refusal, until one succeeds
	started bool                           // a full build has run (the canonical warning is given once)
	// recorded is the groups record (unchanged.go) during a full build
	// that uses it, else nil.
	recorded *groupsRecord
	// partsEncoded counts the sitemap parts encoded since New: a change
	// encodes the parts it touched only (tests check it).
	partsEncoded int

	// For Progress, which other goroutines call while a publish runs.
	progressMu sync.Mutex
	walking    *scan.Walk // the walk in progress
	walked     int64      // entries of the walks done
}

// group is what the engine knows of one group between publishes.
type group struct {
	// parts are the group's sitemap files (relative to the output root)
	// as last published, textParts its text sitemaps; nil when not known,
	// to be found on disk (publishedParts).
	parts, textParts []string
	links            []string // directories its followed symlinks point into
	failed           bool     // its last publish failed: retry it
	urls             int      // URLs its published parts list; -1 when not known
	// feed is the group's first entries of the feed of changes, when
	// feedKnown (feed.go).
	feed      []feed.Entry
	feedKnown bool
	due       int64 // when its first page still to come is due (Unix ns), 0 for none
	// published are its parts as they landed (daemon mode; parts.go), nil
	// when not known: then a change encodes and compares every part.
	published []part
}

// builtinStylesheet is written as config.StylesheetFile at the root of the
// output with `stylesheet: builtin`.
//
//go:embed sitemap.xsl
var builtinStylesheet []byte

// Option adjusts an Engine.
type Option func(*Engine)

// WithChanges is the daemon's mode. Every Report carries the page URLs
// added, changed and removed, for notification (the first publish of a
// group compares with its sitemap files, read back once). And the engine
// remembers the tree, so that Update looks only at what changed.
func WithChanges() Option {
	return func(e *Engine) { e.mem = tree.NewMemory(tree.Depth(e.cfg.Depth)) }
}

// WithWriteAhead has every publish call owe, before the first of its files
// lands, with the page URLs it changes (added, changed, removed) and
// whether it writes any file: so that what search engines are owed is
// recorded before the sitemaps that show it, and a crash between the two
// loses nothing (the daemon records into the notifier's state). What owe
// is given may be more than lands (a group whose files then fail), never
// less. An error owe returns is reported with the publish, whose files
// land all the same: a state directory that cannot be written must not
// stop the sitemaps.
func WithWriteAhead(owe func(changes tree.Changes, files bool) error) Option {
	return func(e *Engine) { e.owe = owe }
}

// WithChangeURLs has a publish keep the URLs of its changes only if want,
// asked as it begins, says someone is to be told of them; otherwise its
// Report's Changes are only counted (tree.Changes.Counted), and so are
// what WithWriteAhead's function is given. Without it every publish keeps
// them.
func WithChangeURLs(want func() bool) Option { return func(e *Engine) { e.urls = want } }

// WithForce makes publishes that the shrink guard (shrink_guard) would
// refuse: `sitemapd build -force`, for a shrink that is meant.
func WithForce() Option { return func(e *Engine) { e.force = true } }

// WithProgress sets how often a long walk logs its progress (0: never).
func WithProgress(d time.Duration) Option { return func(e *Engine) { e.progress = d } }

// New returns an Engine for a validated configuration. A nil logger logs
// nothing.
func New(cfg *config.Config, log *zap.Logger, opts ...Option) (*Engine, error) {
	if log == nil {
		log = zap.NewNop()
	}
	e := &Engine{
		cfg: cfg, log: log.Named("build"), loc: siteurl.New(cfg), depth: tree.Depth(cfg.Depth),
		outDir: cfg.OutputRoot(), keyFiles: cfg.KeyFiles(),
		openDir: os.Open, now: time.Now, progress: 5 * time.Second,
		groups: map[string]*group{}, feedStale: true,
	}
	for _, o := range opts {
		o(e)
	}
	var why string
	if e.dry != nil {
		why = dryMTimeOnly(cfg)
	} else {
		why = mtimeOnly(cfg)
	}
	if why != "" {
		e.log.Warn("lastmod taken from mtimes, not content: "+why+"; pages rewritten with the same bytes (a redeploy) will show a new lastmod and be sent to search engines again",
			zap.String("state_dir", cfg.StateDir))
	}
	e.scan = scan.New(cfg, log.Named("scan"), e.loc, scan.Options{
		OpenDir:   func(p string) (*os.File, error) { return e.openDir(p) },
		MTimeOnly: why != "",
	})
	// Read quietly: every Build reads it again, and says then what is
	// wrong with it, once a build.
	e.loadRobots(zap.NewNop())
	e.initExtras()
	e.enc.Stylesheet = cfg.Stylesheet
	if cfg.Stylesheet == "builtin" {
		e.enc.Stylesheet = e.loc.File(config.StylesheetFile)
	}
	// Directories are only created in a separate output tree: one of the
	// document root that vanished must stay gone.
	pub, err := publish.Open(e.outDir, publish.Options{
		Mode: cfg.Mode, Owned: e.owned, CreateDirs: e.outDir != cfg.Root, NotOwned: notOwned,
	})
	if err != nil {
		return nil, err
	}
	e.pub = pub
	e.text = textrecord.Load(pub, e.log)
	if why == "" {
		e.openPageState()
	}
	return e, nil
}

// notOwned says why a file in the way is not sitemapd's.
const notOwned = "it was not written by sitemapd (no generator marker in it, or, for a text sitemap, not in " + textrecord.Name + ")"

// Close releases the output directory.
func (e *Engine) Close() error {
	e.pages.old.Close()
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
	Changes tree.Changes
	// LeftOut counts the pages read that are not listed, by reason: all of
	// the site's after a full build, those of the directories read after
	// a rebuild.
	LeftOut tree.Tally
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

// state returns the state of a group, creating it.
func (e *Engine) state(dir string) *group {
	g := e.groups[dir]
	if g == nil {
		g = &group{urls: -1}
		e.groups[dir] = g
	}
	return g
}

// groupsFor returns the groups to rebuild when the pages of the given
// directories may have changed: their own groups, and the groups that list
// them through a symlink.
func (e *Engine) groupsFor(dirs []string) []string {
	set := map[string]bool{}
	for _, d := range dirs {
		set[e.depth.GroupOf(d)] = true
		for dir, g := range e.groups {
			for _, t := range g.links {
				if d == t || strings.HasPrefix(d, t+"/") {
					set[dir] = true
				}
			}
		}
	}
	out := make([]string, 0, len(set))
	for d := range set {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

// Failed lists the groups (directories relative to the root) whose last
// publish failed; Rebuild them to retry.
func (e *Engine) Failed() []string {
	var out []string
	for dir, g := range e.groups {
		if g.failed {
			out = append(out, dir)
		}
	}
	slices.Sort(out)
	return out
}

// Listed counts the groups the engine publishes and the URLs their
// published sitemaps list, as far as it knows them (a group whose files did
// not land is not counted until it is published again).
func (e *Engine) Listed() (groups, urls int) {
	for _, g := range e.groups {
		if g.urls >= 0 {
			groups++
			urls += g.urls
		}
	}
	return groups, urls + e.urlFilesListed()
}

// Progress counts the work of the engine's publishes since New: directory
// entries its walks have read, and its publisher's steps (files written,
// renamed, removed, synced). Both only grow. Unlike the rest of Engine it
// may be called from any goroutine while a publish runs: the daemon's
// watchdog sends keep-alives only while they grow.
func (e *Engine) Progress() (entries, steps int64) {
	e.progressMu.Lock()
	entries = e.walked
	if e.walking != nil {
		entries += e.walking.Entries()
	}
	e.progressMu.Unlock()
	return entries, e.pub.Steps()
}

// track makes w the walk Progress counts, until the returned func.
func (e *Engine) track(w *scan.Walk) func() {
	e.progressMu.Lock()
	e.walking = w
	e.progressMu.Unlock()
	return func() {
		e.progressMu.Lock()
		e.walked += w.Entries()
		e.walking = nil
		e.progressMu.Unlock()
	}
}

// Due returns when the first page still to come (its time is in the
// future) is due, for a Rebuild of DueGroups then: the page has no
// lastmod until that time. The zero time when none is.
func (e *Engine) Due() time.Time {
	first := e.urlFilesDue()
	for _, g := range e.groups {
		if g.due != 0 && (first == 0 || g.due < first) {
			first = g.due
		}
	}
	if first == 0 {
		return time.Time{}
	}
	return time.Unix(0, first)
}

// DueGroups lists the groups holding a page whose time has come by now.
func (e *Engine) DueGroups(now time.Time) []string {
	var out []string
	for dir, g := range e.groups {
		if g.due != 0 && g.due <= now.UnixNano() {
			out = append(out, dir)
		}
	}
	slices.Sort(out)
	return out
}

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

// reportProgress logs the walk's progress every e.progress until stopped.
func (e *Engine) reportProgress(w *scan.Walk) (stop func()) {
	if e.progress <= 0 {
		return func() {}
	}
	done := make(chan struct{})
	start := time.Now()
	go func() {
		t := time.NewTicker(e.progress)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				n := w.Entries()
				el := time.Since(start).Seconds()
				e.log.Info("scanning", zap.Int64("entries", n), zap.Float64("entries_per_second", float64(n)/el))
			}
		}
	}()
	return func() { close(done) }
}
