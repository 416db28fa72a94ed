package build

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/pagestore"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// pageState is what the engine keeps of pages beyond the sitemaps: the
// page store in state_dir (their stamps, times, content hashes and heads,
// for the next process), and, in daemon mode, the listings of the groups
// memory does not hold (those that follow symlinks).
type pageState struct {
	path string           // the store; "" when none is kept
	keys pagestore.Keys   // what it is written under
	old  *pagestore.Store // the store found at start, until a full build replaces it
	// appendable: the store on disk was written by this engine's last full
	// build, so a publish may append to it.
	appendable bool
	base, size int64 // the store's size as written whole, and now

	// held are, in daemon mode, the directories of groups memory does not
	// hold: those that follow symlinks, and those whose last read failed.
	held map[string]*tree.Listing
}

// compactAt is how much appends may add to a store, over its size as
// written whole, before it is written whole again.
const compactAt = 1 << 20

// mtimeOnly reports, for a configuration asking for content lastmods,
// why content hashes cannot be kept ("" when they can): they need a
// state_dir to live in across runs, or an unchanged page rewritten would
// look changed to every new process.
func mtimeOnly(cfg *config.Config) string {
	if cfg.Pages.LastModFrom != config.LastModContent {
		return ""
	}
	if cfg.StateDir == "" {
		return "state_dir is not set"
	}
	if err := os.MkdirAll(cfg.StateDir, 0o700); err != nil {
		return "state_dir cannot be created: " + err.Error()
	}
	f, err := os.CreateTemp(cfg.StateDir, ".probe-*")
	if err != nil {
		return "state_dir is not writable: " + err.Error()
	}
	f.Close()
	os.Remove(f.Name())
	return ""
}

// openPageState opens the page store, if pages' bytes are read at all
// and state_dir is there. A store that cannot be read is moved aside, with
// a warning saying what is lost; one of another lastmod configuration is
// not used.
func (e *Engine) openPageState() {
	ps := &e.pages
	if e.scan.Keeps() == 0 || e.cfg.StateDir == "" {
		return
	}
	ps.path = filepath.Join(e.cfg.StateDir, pagestore.Name)
	ps.keys = pagestore.KeysFor(e.cfg)
	s, err := pagestore.Open(ps.path, ps.keys)
	switch {
	case errors.Is(err, pagestore.ErrOtherTimes):
		e.log.Info("page store not used: it was kept under another pages.lastmod or pages.head_dates; lastmods start from the files' mtimes",
			zap.String("path", ps.path))
	case err != nil:
		lost := "every page's head is read again"
		if e.scan.HashesContent() {
			lost = "pages rewritten with the same bytes since they were last read take their new mtime as lastmod, and are sent to search engines again; every page is read again"
		}
		if e.dry != nil {
			e.log.Warn("page store cannot be read; a build would move it aside: "+lost, zap.String("path", ps.path), zap.Error(err))
			break
		}
		aside, qerr := pagestore.Quarantine(ps.path)
		if qerr != nil {
			e.log.Warn("page store cannot be read, nor moved aside: "+lost, zap.String("path", ps.path), zap.Error(err), zap.NamedError("move_error", qerr))
		} else {
			e.log.Warn("page store cannot be read; moved it aside: "+lost, zap.String("path", ps.path), zap.String("moved_to", aside), zap.Error(err))
		}
	case s != nil && s.Torn > 0:
		e.log.Warn("page store ends in a write cut short (a crash?): the pages of the directories it held are read again, and taken as changed if their bytes are not the ones known before",
			zap.String("path", ps.path), zap.Int("bytes", s.Torn))
	case s != nil && s.HeadsLost():
		e.log.Info("page store was kept under other head rules: every page's head is read again", zap.String("path", ps.path))
	}
	ps.old = s
}

// known returns what is known of a directory's pages: what memory holds,
// or else what this engine keeps of groups memory does not hold, or else
// what the store found at start says.
func (e *Engine) known(dir string) *tree.Listing {
	if l := e.mem.Dir(dir); l != nil {
		return l
	}
	if l := e.pages.held[dir]; l != nil {
		return l
	}
	return e.pages.old.Listing(dir)
}

// newPageStore starts a new store for a full build, or returns nil: none
// is kept, or state_dir does not exist (it is not created here: `sitemapd
// build` may run as a user who cannot create it).
func (e *Engine) newPageStore() *pagestore.Writer {
	ps := &e.pages
	if ps.path == "" {
		return nil
	}
	if st, err := os.Stat(e.cfg.StateDir); err != nil || !st.IsDir() {
		e.log.Debug("page store not kept: state_dir does not exist", zap.String("state_dir", e.cfg.StateDir))
		return nil
	}
	if e.dry != nil {
		e.dry.pageStore = ps.path
		return nil
	}
	w, err := pagestore.Create(ps.path, ps.keys)
	if err != nil {
		e.log.Warn("page store not kept: "+e.pageStateLoss(), zap.Error(err))
		return nil
	}
	return w
}

// pageStateLoss says what a store not written costs.
func (e *Engine) pageStateLoss() string {
	if e.scan.HashesContent() {
		return "pages rewritten with the same bytes before the next build may take their new mtime as lastmod"
	}
	return "the next build reads every head"
}

// keepKnown keeps what was known of the directories of a group whose
// full-build read failed: in the build's new store w (if any) and, in
// daemon mode, in held, where memory does not hold them. Their pages'
// state must not be lost with one unreadable directory.
func (e *Engine) keepKnown(w *pagestore.Writer, group string, read map[string]*tree.Listing) {
	for d, l := range e.knownOf(group) {
		if _, ok := read[d]; ok {
			continue
		}
		if w != nil {
			w.Add(d, l)
		}
		if e.mem != nil && !e.mem.Remembers(group) {
			if e.pages.held == nil {
				e.pages.held = map[string]*tree.Listing{}
			}
			e.pages.held[d] = l
		}
	}
}

// knownOf returns what is known of a group's directories, from the first
// of memory, held and the store found at start that knows the group.
func (e *Engine) knownOf(group string) map[string]*tree.Listing {
	if e.mem.Remembers(group) {
		return e.mem.Listings(group)
	}
	out := map[string]*tree.Listing{}
	for d, l := range e.pages.held {
		if e.depth.GroupOf(d) == group {
			out[d] = l
		}
	}
	if len(out) == 0 {
		e.pages.old.Each(func(d string, l *tree.Listing) {
			if e.depth.GroupOf(d) == group {
				out[d] = l
			}
		})
	}
	return out
}

// commitPageStore puts a full build's new store in place, before the
// sitemaps it describes are committed.
func (e *Engine) commitPageStore(w *pagestore.Writer) {
	ps := &e.pages
	ps.appendable = false
	if err := w.Commit(); err != nil {
		e.log.Warn("page store not written: "+e.pageStateLoss(), zap.String("path", ps.path), zap.Error(err))
		return
	}
	if st, err := os.Stat(ps.path); err == nil {
		ps.appendable, ps.base, ps.size = true, st.Size(), st.Size()
	}
	e.reopenPageStore()
}

// appendPageState appends what a rebuild read to the store, synced, before
// the sitemaps that show it are committed: a process that starts after a
// crash then knows every page's time as this one did. It writes the store
// whole again once appends have grown it enough.
func (e *Engine) appendPageState(r *run) {
	ps := &e.pages
	if !ps.appendable {
		return
	}
	var entries []pagestore.Entry
	for _, dir := range slices.Sorted(maps.Keys(r.staged)) {
		read := r.staged[dir].read
		for _, d := range slices.Sorted(maps.Keys(read)) {
			entries = append(entries, pagestore.Entry{Dir: d, Listing: read[d]})
		}
	}
	if len(entries) == 0 {
		return
	}
	size, err := pagestore.Append(ps.path, ps.keys, entries)
	if err != nil {
		ps.appendable = false
		e.log.Warn("page store not updated, until the next full build: "+e.pageStateLoss(), zap.String("path", ps.path), zap.Error(err))
		return
	}
	ps.size = size
	if size-ps.base > max(ps.base, compactAt) {
		e.compactPageStore()
	} else {
		e.reopenPageStore()
	}
}

// compactPageStore writes the store whole again, from itself.
func (e *Engine) compactPageStore() {
	ps := &e.pages
	start := time.Now()
	s, err := pagestore.Open(ps.path, ps.keys)
	if err == nil && s == nil {
		err = os.ErrNotExist
	}
	if err != nil {
		ps.appendable = false
		e.log.Warn("page store cannot be compacted: "+e.pageStateLoss(), zap.String("path", ps.path), zap.Error(err))
		return
	}
	defer s.Close()
	w, err := pagestore.Create(ps.path, ps.keys)
	if err != nil {
		e.log.Warn("page store cannot be compacted; appending still", zap.String("path", ps.path), zap.Error(err))
		return
	}
	s.Each(w.Add)
	e.commitPageStore(w)
	e.log.Debug("page store compacted", zap.Int64("bytes", ps.size), zap.Duration("took", time.Since(start)))
}

// hold keeps the listings of a group that memory does not hold (one that
// follows symlinks), in daemon mode, as what is known of its pages; nil
// drops them (memory holds the group).
func (e *Engine) hold(group string, read map[string]*tree.Listing) {
	if e.mem == nil {
		return
	}
	for d := range e.pages.held {
		if e.depth.GroupOf(d) == group {
			delete(e.pages.held, d)
		}
	}
	if read == nil {
		return
	}
	if e.pages.held == nil {
		e.pages.held = map[string]*tree.Listing{}
	}
	for d, l := range read {
		if e.depth.GroupOf(d) == group {
			e.pages.held[d] = l
		}
	}
}

// reopenPageStore reads the store again after this engine wrote to it,
// when memory does not hold what it read (not the daemon): the next
// rebuild compares with it.
func (e *Engine) reopenPageStore() {
	ps := &e.pages
	if e.mem != nil || !ps.appendable {
		return
	}
	ps.old.Close()
	s, err := pagestore.Open(ps.path, ps.keys)
	if err != nil {
		e.log.Warn("page store written cannot be read back", zap.String("path", ps.path), zap.Error(err))
	}
	ps.old = s
}
