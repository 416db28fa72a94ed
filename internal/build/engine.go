package build

import (
	"bytes"
	"compress/gzip"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/publish"
	"github.com/sitemapd/sitemapd/internal/sitemap"
)

// Engine builds and publishes the sitemaps of one configuration. It keeps
// the list of sitemap files each group published, so that single groups can
// be rebuilt (Rebuild) and the index kept in step without a full walk.
// An Engine is not safe for concurrent use.
type Engine struct {
	cfg    *config.Config
	log    *zap.Logger
	mapper mapper
	filter *filter
	rules  []rule
	outDir string
	pub    *publish.Publisher

	pubOpts  publish.Options
	openDir  func(string) (*os.File, error) // os.Open; a seam for fault tests
	now      func() time.Time
	progress time.Duration

	mem        *memory             // the tree as last published; nil unless WithChanges
	parts      map[string][]string // group dir -> sitemap files (rel to outDir), as last published
	links      map[string][]string // group dir -> dirs its followed symlinks point into
	failed     map[string]bool     // groups whose last publish failed, to retry
	staged     map[string]staging  // groups whose files await Commit
	indexParts int                 // index files last published
	gz         *gzip.Writer
	gzBuf      bytes.Buffer
	enc        sitemap.Encoder
	robots     robotsRules         // read at New and at every Build
	text       textRecord          // text sitemaps written, by hash
	textParts  map[string][]string // group dir -> text sitemap files, as last published
	textErrs   []error             // text sitemaps not written in this publish
	storePath  string              // the head store, "" when heads are not read
	store      *headStore          // heads of the last full build, until memory holds them
}

// builtinStylesheet is written as StylesheetName at the root of the output
// with `stylesheet: builtin`.
//
//go:embed sitemap.xsl
var builtinStylesheet []byte

// StylesheetName is the file name of the built-in stylesheet.
const StylesheetName = "sitemap.xsl"

// staging is what a group's publish will change once its files are
// committed: the changes to report and the update to remember. If the
// files fail to land, neither happens.
type staging struct {
	changes Changes
	upd     *memUpdate // nil without memory
}

// Option adjusts an Engine.
type Option func(*Engine)

// WithClock replaces time.Now (for future-mtime checks in tests).
func WithClock(now func() time.Time) Option { return func(e *Engine) { e.now = now } }

// WithSyncMode chooses how writes are made durable (benchmarks compare).
func WithSyncMode(m publish.SyncMode) Option {
	return func(e *Engine) { e.pubOpts.Sync = m }
}

// WithChanges is the daemon's mode. Every Report carries the page URLs
// added, changed and removed, for notification (the first publish of a
// group compares with its sitemap files, read back once). And the engine
// remembers the tree, so that Update looks only at what changed.
func WithChanges() Option { return func(e *Engine) { e.mem = newMemory() } }

// WithProgress sets how often a long walk logs its progress (0: never).
func WithProgress(d time.Duration) Option { return func(e *Engine) { e.progress = d } }

// New returns an Engine for a validated configuration. A nil logger logs
// nothing.
func New(cfg *config.Config, log *zap.Logger, opts ...Option) (*Engine, error) {
	if log == nil {
		log = zap.NewNop()
	}
	e := &Engine{
		cfg: cfg, log: log.Named("build"),
		mapper: newMapper(cfg), filter: newFilter(cfg), rules: compileRules(cfg.Pages.Rules),
		outDir: cfg.OutputDir, now: time.Now, progress: 5 * time.Second, openDir: os.Open,
		parts: map[string][]string{}, links: map[string][]string{},
		failed: map[string]bool{}, staged: map[string]staging{}, textParts: map[string][]string{},
	}
	if e.outDir == "" {
		e.outDir = cfg.Root
	}
	e.loadRobots()
	e.enc.Stylesheet = cfg.Stylesheet
	if cfg.Stylesheet == "builtin" {
		e.enc.Stylesheet = cfg.BaseURL + StylesheetName
	}
	// Directories are only created in a separate output tree: one of the
	// document root that vanished must stay gone.
	e.pubOpts = publish.Options{
		Mode: cfg.Mode, Owned: e.owned, CreateDirs: e.outDir != cfg.Root,
		NotOwned: "it was not written by sitemapd (no generator marker in it, or, for a text sitemap, not in " + TextRecordName + ")",
	}
	for _, o := range opts {
		o(e)
	}
	pub, err := publish.Open(e.outDir, e.pubOpts)
	if err != nil {
		return nil, err
	}
	e.pub = pub
	e.loadTextRecord()
	if e.readsHeads() && cfg.StateDir != "" {
		e.storePath = filepath.Join(cfg.StateDir, HeadStoreName)
		if e.store, err = openHeadStore(e.storePath, e.headStoreKey()); err != nil {
			e.log.Info("head store not used: every head is read", zap.String("path", e.storePath), zap.Error(err))
		}
	}
	return e, nil
}

// Close releases the output directory.
func (e *Engine) Close() error {
	e.store.close()
	return e.pub.Close()
}

// owned recognises files sitemapd wrote by the marker comment near their
// start, looking inside gzip files.
func (e *Engine) owned(name string, head []byte) bool {
	if name == robotsFile {
		// The site's own file, which robots_txt asks sitemapd to edit
		// (publishRobots keeps every byte that is not its lines).
		return e.cfg.RobotsTxt
	}
	if key, ok := e.filter.keyFiles[name]; ok {
		// An IndexNow key file holds the key and nothing else, so it has
		// no room for a marker: one holding our key is as good as ours.
		return string(head) == key
	}
	if name == TextRecordName {
		return bytes.HasPrefix(head, []byte(textRecordHeader))
	}
	if e.isTextName(name) {
		return e.ownsText(name)
	}
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(head))
		if err != nil {
			return false
		}
		buf := make([]byte, 256)
		n, _ := io.ReadFull(zr, buf)
		head = buf[:n]
	}
	return sitemap.HasMarker(head)
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
	Changes   Changes // page URLs added, changed, removed (WithChanges only)
}

// GroupOf returns the group that holds the pages of a directory (relative
// to the root, slash-separated).
func (e *Engine) GroupOf(relDir string) string {
	if relDir == "" || relDir == "." {
		return ""
	}
	segs := strings.Split(relDir, "/")
	if len(segs) > e.cfg.Depth {
		segs = segs[:e.cfg.Depth]
	}
	return strings.Join(segs, "/")
}

// GroupsFor returns the groups to rebuild when the pages of the given
// directories may have changed: their own groups, and the groups that list
// them through a symlink.
func (e *Engine) GroupsFor(dirs []string) []string {
	set := map[string]bool{}
	for _, d := range dirs {
		set[e.GroupOf(d)] = true
		for g, targets := range e.links {
			for _, t := range targets {
				if d == t || strings.HasPrefix(d, t+"/") {
					set[g] = true
				}
			}
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// SkipDir reports whether a directory (relative to the root) is never
// listed, so never needs watching: dot-directories, ignored names and
// excluded trees.
func (e *Engine) SkipDir(rel string) bool {
	if rel == "" || rel == "." {
		return false // the root
	}
	return e.filter.ignored(path.Base(rel)) || e.filter.excluded("/"+rel)
}

// IgnoreName reports whether a change to a file of this base name can never
// change a sitemap: sitemapd's own outputs and temp files, dotfiles, editor
// and backup files.
func (e *Engine) IgnoreName(name string) bool { return e.filter.ignored(name) }

// Build walks the whole tree, publishes every group's sitemaps and the
// index, and removes sitemap files that are no longer needed. Groups that
// cannot be read or written keep their published files; their errors are
// returned joined, after every other group has been written.
func (e *Engine) Build(ctx context.Context) (*Report, error) {
	start := e.now()
	rep := &Report{}
	var errs []error
	e.textErrs = nil
	e.loadRobots() // a full read is where new robots.txt rules take effect

	var own, temps []string
	if e.outDir != e.cfg.Root {
		var err error
		if own, temps, err = e.scanOutputs(); err != nil {
			return nil, err
		}
	}

	groups := make(chan *Group, 1)
	w, err := e.newWalker(ctx, func(g *Group) { groups <- g })
	if err != nil {
		return nil, err
	}
	sw := e.newHeadStore()
	defer func() {
		if sw != nil {
			sw.abort()
		}
	}()
	w.record, w.quiet = e.mem != nil || sw != nil, true
	stopProgress := e.reportProgress(w)
	go func() {
		w.walk("", &Group{Dir: ""})
		close(groups)
	}()

	batch := e.pub.Begin()
	seen := map[string]bool{}
	kept := map[string]bool{} // dirs of groups that failed: leave their files alone
	for g := range groups {
		seen[g.Dir] = true
		own = append(own, g.own...)
		temps = append(temps, g.temps...)
		if sw != nil && g.Err == nil {
			for d, l := range g.listings {
				sw.add(d, l)
			}
		}
		if err := e.publishGroup(batch, g, wholeUpdate(g), w.now, rep); err != nil {
			if err = e.groupFailed(g.Dir, err); err != nil {
				errs = append(errs, err)
			}
			kept[g.Dir] = true
		}
	}
	stopProgress()
	e.headSummary(w)
	if err := ctx.Err(); err != nil {
		batch.Abort()
		clear(e.staged)
		clear(e.text.staged)
		return nil, err
	}
	if err := e.commit(batch, rep); err != nil {
		errs = append(errs, err)
	}
	if sw != nil {
		if err := sw.commit(); err != nil {
			e.log.Warn("head store not written: the next build reads every head", zap.String("path", e.storePath), zap.Error(err))
		}
		sw = nil
	}
	if e.mem != nil {
		// Memory holds the heads from now on.
		e.store.close()
		e.store = nil
	}
	for dir := range e.parts {
		if !seen[dir] {
			delete(e.parts, dir)
		}
	}
	for dir := range e.textParts {
		if !seen[dir] {
			delete(e.textParts, dir)
		}
	}
	for dir := range e.failed {
		if !seen[dir] {
			delete(e.failed, dir)
		}
	}
	for dir := range e.links {
		if !seen[dir] {
			delete(e.links, dir)
		}
	}
	if e.mem != nil {
		// Groups whose directory is gone: their pages are removed.
		for dir := range e.mem.groups {
			if !seen[dir] {
				rep.Changes.merge(e.listingChanges(e.mem.listings(dir), nil, w.now))
				e.mem.forgetGroup(dir)
			}
		}
	}

	if err := e.publishIndex(rep); err != nil {
		errs = append(errs, err)
	}
	if err := e.publishExtras(rep); err != nil {
		errs = append(errs, err)
	}
	if err := e.publishRobots(rep); err != nil {
		errs = append(errs, fmt.Errorf("robots.txt: %w", err))
	}

	// Remove our files that no group or index claims any more.
	want := map[string]bool{}
	for _, ps := range e.parts {
		for _, p := range ps {
			want[p] = true
		}
	}
	for _, ps := range e.textParts {
		for _, p := range ps {
			want[p] = true
		}
	}
	for _, p := range e.indexNames() {
		want[p] = true
	}
	for _, p := range own {
		if want[p] || kept[e.GroupOf(path.Dir(p))] {
			continue
		}
		e.remove(p, rep, &errs)
	}
	for _, p := range temps {
		if err := e.pub.RemoveTemp(p, start); err != nil {
			errs = append(errs, err)
		}
	}
	// After a full publish every text sitemap of ours is a part of some
	// group, or one that could not be removed: the record keeps those
	// only (names moved away or deleted while sitemapd was not looking go).
	for name := range e.text.hashes {
		if _, err := e.pub.Stat(name); !want[name] && errors.Is(err, fs.ErrNotExist) {
			e.textRemoved(name)
		}
	}
	errs = append(errs, e.saveText())
	errs = append(errs, e.textErrs...)
	rep.Duration = e.now().Sub(start)
	return rep, errors.Join(errs...)
}

// Rebuild re-reads the given groups (as returned by GroupOf), publishes
// them and the index, and removes the parts they no longer need. It costs
// work in proportion to those groups, not to the site.
func (e *Engine) Rebuild(ctx context.Context, dirs []string) (*Report, error) {
	return e.rebuild(ctx, dirs, nil, nil)
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
		g := e.GroupOf(d)
		byGroup[g] = append(byGroup[g], d)
	}
	return e.rebuild(ctx, e.GroupsFor(dirty), byGroup, names)
}

func (e *Engine) rebuild(ctx context.Context, dirs []string, dirty map[string][]string, names map[string][]string) (*Report, error) {
	start := e.now()
	now := start
	rep := &Report{}
	var errs []error
	e.textErrs = nil
	batch := e.pub.Begin()
	oldParts := map[string][]string{}
	oldText := map[string][]string{}
	var own, temps []string // found by the reads: stale ones go too
	dirs = slices.Clone(dirs)
	slices.Sort(dirs)
	for _, dir := range slices.Compact(dirs) {
		var g *Group
		var u *memUpdate
		var ok bool
		var err error
		// A group whose last publish failed is read whole: memory is what
		// was published, and the failed read's changes are not in it.
		if len(dirty[dir]) > 0 && !e.failed[dir] {
			g, u, ok, err = e.refreshGroup(ctx, dir, dirty[dir], names, now)
		}
		if err == nil && !ok {
			if g, err = e.ScanGroup(ctx, dir); err == nil {
				u = wholeUpdate(g)
			}
		}
		if err != nil {
			batch.Abort()
			clear(e.staged)
			clear(e.text.staged)
			return nil, err
		}
		old, known := e.parts[dir]
		if !known {
			// New to this engine (a directory moved in, say): it may bring
			// sitemap files of its own.
			old = e.publishedParts(dir)
		}
		oldTxt, known := e.textParts[dir]
		if !known {
			oldTxt = e.publishedTextParts(dir)
		}
		if err := e.publishGroup(batch, g, u, now, rep); err != nil {
			if err = e.groupFailed(dir, err); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		oldParts[dir], oldText[dir] = old, oldTxt
		own, temps = append(own, g.own...), append(temps, g.temps...)
	}
	if err := e.commit(batch, rep); err != nil {
		errs = append(errs, err)
	}
	// Parts a group no longer needs go once its new files are in place (a
	// group whose files failed lists what is still on disk).
	var stale []string
	for dir, old := range oldParts {
		for _, p := range old {
			if !slices.Contains(e.parts[dir], p) {
				stale = append(stale, p)
			}
		}
	}
	for dir, old := range oldText {
		for _, p := range old {
			if !slices.Contains(e.textParts[dir], p) {
				stale = append(stale, p)
			}
		}
	}
	oldIndex := e.indexNames()
	if err := e.publishIndex(rep); err != nil {
		errs = append(errs, err)
	}
	for _, p := range oldIndex {
		if !slices.Contains(e.indexNames(), p) {
			stale = append(stale, p)
		}
	}
	if !slices.Equal(oldIndex, e.indexNames()) {
		if err := e.publishRobots(rep); err != nil {
			errs = append(errs, fmt.Errorf("robots.txt: %w", err))
		}
	}
	// Our files that the reads met and nothing claims: brought in with a
	// directory, or left in a folded one.
	for _, p := range own {
		grp := e.GroupOf(parentOf(p))
		if !slices.Contains(e.parts[grp], p) && !slices.Contains(e.textParts[grp], p) && !slices.Contains(e.indexNames(), p) {
			stale = append(stale, p)
		}
	}
	for _, p := range temps {
		if err := e.pub.RemoveTemp(p, start); err != nil {
			errs = append(errs, err)
		}
	}
	for _, p := range stale {
		e.remove(p, rep, &errs)
	}
	errs = append(errs, e.saveText())
	errs = append(errs, e.textErrs...)
	rep.Duration = e.now().Sub(start)
	return rep, errors.Join(errs...)
}

// ScanGroup reads the pages of one group. A group whose directory does not
// exist is empty.
func (e *Engine) ScanGroup(ctx context.Context, dir string) (*Group, error) {
	w, err := e.newWalker(ctx, func(*Group) {})
	if err != nil {
		return nil, err
	}
	w.single, w.record = true, e.mem != nil
	g := &Group{Dir: dir}
	w.walk(dir, g)
	return g, ctx.Err()
}

func (e *Engine) remove(p string, rep *Report, errs *[]error) {
	removed, err := e.pub.Remove(p)
	var fe *publish.ForeignError
	switch {
	case errors.As(err, &fe):
		// Named like ours but not ours, and not in our way: leave it.
	case err != nil:
		*errs = append(*errs, err)
	default:
		if removed {
			rep.Removed = append(rep.Removed, filepath.Join(e.outDir, p))
		}
		e.textRemoved(p)
	}
}

// publishGroup sorts a group's URLs, encodes its parts and stages every
// part whose bytes changed, with what the publish changed and u, the
// update to remember (daemon mode). On error the group's previously
// published parts stay as they are and stay listed.
func (e *Engine) publishGroup(batch *publish.Batch, g *Group, u *memUpdate, now time.Time, rep *Report) error {
	if g.Err != nil {
		if _, known := e.parts[g.Dir]; !known {
			e.parts[g.Dir] = e.publishedParts(g.Dir)
		}
		if _, known := e.textParts[g.Dir]; !known {
			e.textParts[g.Dir] = e.publishedTextParts(g.Dir)
		}
		return fmt.Errorf("group %s not updated: %w", e.groupPath(g.Dir), g.Err)
	}
	urls := g.URLs
	slices.SortFunc(urls, func(a, b sitemap.URL) int { return strings.Compare(a.Loc, b.Loc) })
	urls = slices.CompactFunc(urls, func(a, b sitemap.URL) bool { return a.Loc == b.Loc })

	var names []string
	changed := false
	err := e.enc.URLSet(urls, func(part []byte) error {
		name := path.Join(g.Dir, e.outName(config.PartName(e.cfg.SitemapName, len(names)+1)))
		names = append(names, name)
		written := len(rep.Written)
		err := e.put(batch, name, part, rep)
		changed = changed || len(rep.Written) > written
		return err
	})
	if err != nil {
		return fmt.Errorf("group %s not updated: %w", e.groupPath(g.Dir), err)
	}
	if e.cfg.TextSitemaps() {
		e.publishText(batch, g.Dir, urls, rep)
	} else {
		delete(e.textParts, g.Dir)
	}
	if e.mem != nil {
		old, known := e.parts[g.Dir]
		if !known {
			old = e.publishedParts(g.Dir)
		}
		st := staging{upd: u}
		// Equal bytes in as many files: not one URL or lastmod changed.
		// A group that failed last time may have lost its files with its
		// directory, so it is compared whatever its files say.
		if changed || len(names) != len(old) || e.failed[g.Dir] {
			if prev := e.mem.listings(g.Dir); prev != nil && u.view != nil {
				st.changes = e.listingChanges(prev, u.view, now)
			} else {
				// Not remembered (a restart, or a group that follows
				// symlinks): what it published is in its files, not yet
				// replaced (Commit comes later).
				st.changes = diff(pagesFromMap(e.published(old)), pagesOf(urls))
			}
		}
		e.staged[g.Dir] = st
	}
	if len(names) == 0 {
		delete(e.parts, g.Dir)
	} else {
		e.parts[g.Dir] = names
	}
	if len(g.links) == 0 {
		delete(e.links, g.Dir)
	} else {
		e.links[g.Dir] = slices.Compact(slices.Sorted(slices.Values(g.links)))
	}
	delete(e.failed, g.Dir)
	rep.Groups++
	rep.URLs += len(urls)
	rep.Sitemaps += len(names)
	return nil
}

// groupFailed notes a group that could not be published, to be retried,
// and returns the error to report, or nil when there is nothing to report:
// the group's directory vanished while it was being published, which the
// event of its move or removal handles.
func (e *Engine) groupFailed(dir string, err error) error {
	e.failed[dir] = true
	if e.outDir == e.cfg.Root && errors.Is(err, fs.ErrNotExist) {
		e.log.Info("group not written: its directory vanished meanwhile", zap.String("dir", e.groupPath(dir)))
		return nil
	}
	return err
}

// commit commits a batch of group files and settles the engine's state
// with the outcome. Committed groups report their changes and are
// remembered as read. A group any of whose files did not land is
// remembered as it was, lists the parts that are on disk, and is marked
// for retry, so that the engine's view of what is published stays true.
func (e *Engine) commit(batch *publish.Batch, rep *Report) error {
	// The record of text sitemaps goes first: a text file on disk must be
	// one it knows, whenever the process stops. If the record cannot be
	// written, the text files stay as they are.
	errs := []error{e.prepareText(batch, rep)}
	failed, err := e.commitFiles(batch, rep)
	e.settleText(failed)
	errs = append(errs, err)
	bad := map[string]bool{}
	for name, ferr := range failed {
		dir := path.Dir(name)
		if dir == "." {
			dir = ""
		}
		bad[dir] = true
		if ferr = e.groupFailed(dir, ferr); ferr != nil {
			errs = append(errs, fmt.Errorf("group %s not updated: %w", e.groupPath(dir), ferr))
		}
	}
	for _, dir := range slices.Sorted(maps.Keys(e.staged)) {
		if st := e.staged[dir]; !bad[dir] {
			rep.Changes.merge(st.changes)
			if st.upd != nil {
				e.mem.apply(e, dir, st.upd)
			}
		}
	}
	clear(e.staged)
	for dir := range bad {
		if parts := e.publishedParts(dir); len(parts) > 0 {
			e.parts[dir] = parts
		} else {
			delete(e.parts, dir)
		}
		if parts := e.publishedTextParts(dir); len(parts) > 0 {
			e.textParts[dir] = parts
		} else {
			delete(e.textParts, dir)
		}
	}
	return errors.Join(errs...)
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

// Failed lists the groups (as GroupOf names them) whose last publish
// failed; Rebuild them to retry.
func (e *Engine) Failed() []string { return slices.Sorted(maps.Keys(e.failed)) }

func (e *Engine) groupPath(dir string) string {
	if dir == "" {
		return e.cfg.Root
	}
	return filepath.Join(e.cfg.Root, dir)
}

// publishedParts lists the parts of a group that are on disk and ours.
func (e *Engine) publishedParts(dir string) []string {
	return e.publishedPartsOf(dir, e.cfg.SitemapName)
}

// publishedPartsOf lists the parts of the output called base in a group's
// directory that are on disk and ours (sitemaps, or text sitemaps).
func (e *Engine) publishedPartsOf(dir, base string) []string {
	var names []string
	for n := 1; ; n++ {
		name := path.Join(dir, e.outName(config.PartName(base, n)))
		if ok, _ := e.pub.Owned(name); !ok {
			return names
		}
		names = append(names, name)
	}
}

// outName adds ".gz" when gzip is on.
func (e *Engine) outName(name string) string {
	if e.cfg.Gzip {
		return name + ".gz"
	}
	return name
}

func (e *Engine) put(batch *publish.Batch, name string, data []byte, rep *Report) error {
	_, _, err := e.putFile(batch, name, data, rep)
	return err
}

// putFile stages one output file, gzipped if configured, and returns the
// bytes staged (valid until the next gzip) and whether they change the file.
func (e *Engine) putFile(batch *publish.Batch, name string, data []byte, rep *Report) (stored []byte, changed bool, err error) {
	if e.cfg.Gzip {
		if data, err = e.gzip(data); err != nil {
			return nil, false, err
		}
	}
	if changed, err = batch.Put(name, data); err != nil {
		return nil, false, err
	}
	if changed {
		rep.Written = append(rep.Written, filepath.Join(e.outDir, name))
	} else {
		rep.Unchanged++
	}
	return data, changed, nil
}

// gzip compresses deterministically: the header carries no name and no
// time, so equal input gives equal bytes.
func (e *Engine) gzip(data []byte) ([]byte, error) {
	e.gzBuf.Reset()
	if e.gz == nil {
		e.gz, _ = gzip.NewWriterLevel(&e.gzBuf, gzip.BestSpeed)
	} else {
		e.gz.Reset(&e.gzBuf)
	}
	if _, err := e.gz.Write(data); err != nil {
		return nil, err
	}
	if err := e.gz.Close(); err != nil {
		return nil, err
	}
	return e.gzBuf.Bytes(), nil
}

// publishIndex writes the root index (split past 50,000 sitemaps) listing
// every group's parts with their files' mtimes, the time their content last
// changed. With no sitemaps at all no index is written: an empty one is
// invalid.
func (e *Engine) publishIndex(rep *Report) error {
	var refs []sitemap.Ref
	var errs []error
	for _, names := range e.parts {
		for _, n := range names {
			mt, err := e.pub.ModTime(n)
			if err != nil {
				if !errors.Is(err, fs.ErrNotExist) {
					errs = append(errs, fmt.Errorf("index: stat %s: %w", filepath.Join(e.outDir, n), err))
				}
				continue
			}
			refs = append(refs, sitemap.Ref{Loc: e.mapper.loc("/" + n), LastMod: mt.Truncate(time.Second)})
		}
	}
	sort.Slice(refs, func(i, j int) bool { return refs[i].Loc < refs[j].Loc })
	batch := e.pub.Begin()
	n := 0
	err := e.enc.Index(refs, func(part []byte) error {
		n++
		return e.put(batch, e.outName(config.PartName(e.cfg.IndexName, n)), part, rep)
	})
	if err != nil {
		batch.Abort()
		return errors.Join(append(errs, fmt.Errorf("index not updated: %w", err))...)
	}
	e.indexParts = n
	rep.Indexes = n
	failed, err := e.commitFiles(batch, rep)
	errs = append(errs, err)
	for _, ferr := range failed {
		// The old index file stays; retrying the root group rewrites it.
		e.failed[""] = true
		errs = append(errs, fmt.Errorf("index not updated: %w", ferr))
	}
	return errors.Join(errs...)
}

// publishExtras writes the files that go at the root of the output next to
// the index: the IndexNow key files, where the engines fetch them
// (keyLocation: <key>.txt holding the key), and the built-in stylesheet.
// They are never gzipped.
func (e *Engine) publishExtras(rep *Report) error {
	files := map[string][]byte{}
	for name, key := range e.filter.keyFiles {
		files[name] = []byte(key)
	}
	if e.cfg.Stylesheet == "builtin" {
		files[StylesheetName] = builtinStylesheet
	}
	if len(files) == 0 {
		return nil
	}
	batch := e.pub.Begin()
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(files)) {
		changed, err := batch.Put(name, files[name])
		switch {
		case err != nil:
			errs = append(errs, err)
		case changed:
			rep.Written = append(rep.Written, filepath.Join(e.outDir, name))
		}
	}
	failed, err := e.commitFiles(batch, rep)
	errs = append(errs, err)
	for _, ferr := range failed {
		errs = append(errs, ferr)
	}
	return errors.Join(errs...)
}

// indexNames lists the index files of the last publish.
func (e *Engine) indexNames() []string {
	names := make([]string, e.indexParts)
	for i := range names {
		names[i] = e.outName(config.PartName(e.cfg.IndexName, i+1))
	}
	return names
}

// IndexURLs returns the URLs of the published index files.
func (e *Engine) IndexURLs() []string {
	var urls []string
	for _, n := range e.indexNames() {
		urls = append(urls, e.mapper.loc("/"+n))
	}
	return urls
}

// scanOutputs lists sitemapd's files in a separate output directory.
func (e *Engine) scanOutputs() (own, temps []string, err error) {
	err = filepath.WalkDir(e.outDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("scan output directory: %w", err)
		}
		rel, _ := filepath.Rel(e.outDir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir():
			return nil
		case publish.IsTemp(d.Name()):
			temps = append(temps, rel)
		case e.filter.isOutput(d.Name()):
			own = append(own, rel)
		}
		return nil
	})
	return own, temps, err
}

// reportProgress logs the walk's progress every e.progress until stopped.
func (e *Engine) reportProgress(w *walker) (stop func()) {
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
				n := w.files.Load()
				el := time.Since(start).Seconds()
				e.log.Info("scanning", zap.Int64("entries", n), zap.Float64("entries_per_second", float64(n)/el))
			}
		}
	}()
	return func() { close(done) }
}
