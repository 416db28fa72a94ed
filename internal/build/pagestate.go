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
	"github.com/sitemapd/sitemapd/internal/scan"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// pageCache is what the engine keeps of pages beyond the sitemaps: the
// page store in state_dir (their stamps, times, content hashes and heads,
// for the next process); in daemon mode, the listings of the groups
// memory does not hold (those that follow symlinks); and, during a full
// build that uses it, the groups record (unchanged.go), which says which
// groups' files are still what their pages would encode.
type pageCache struct {
	cfg   *config.Config
	log   *zap.Logger
	scan  *scan.Scanner
	disk  onDisk
	out   sink
	depth tree.Depth
	mem   *tree.Memory // the daemon's memory (published.mem), which holds most groups; nil without

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

	// recorded is the groups record during a full build that uses it,
	// else nil.
	recorded *groupsRecord
	// tmpl is the template model the store's prints are made under
	// (template.go).
	tmpl *template
	// stored is what the store holds of each directory, for appends
	// (storebase.go).
	stored storeBases
}

// compactAt is how much appends may add to a store, over its size as
// written whole, before it is written whole again.
const compactAt = 1 << 20

// mtimeOnly reports, for a configuration asking for content lastmods,
// why content hashes cannot be kept ("" when they can): they need a
// state_dir to live in across runs, or an unchanged page rewritten would
// look changed to every new process.
func mtimeOnly(cfg *config.Config) string {
	if !cfg.Pages.LastModFrom.KeepsTimes() {
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

// open opens the page store, if pages' bytes are read at all
// and state_dir is there. A store that cannot be read is moved aside, with
// a warning saying what is lost; one of another lastmod configuration is
// not used.
func (ps *pageCache) open() {
	if ps.scan.Keeps() == 0 || ps.cfg.StateDir == "" {
		return
	}
	ps.path = filepath.Join(ps.cfg.StateDir, pagestore.Name)
	ps.keys = pagestore.KeysFor(ps.cfg)
	s, err := pagestore.Open(ps.path, ps.keys)
	switch {
	case errors.Is(err, pagestore.ErrOtherTimes):
		ps.log.Info("page store not used: it was kept under another pages.lastmod or pages.head_dates; lastmods start from the files' mtimes",
			zap.String("path", ps.path))
	case err != nil:
		lost := "every page's head is read again"
		if ps.scan.HashesContent() {
			lost = "pages rewritten with the same bytes since they were last read take their new mtime as lastmod, and are sent to search engines again; every page is read again"
		}
		aside, qerr := ps.out.quarantine(ps.path)
		if aside == "" && qerr == nil {
			ps.log.Warn("page store cannot be read; a build would move it aside: "+lost, zap.String("path", ps.path), zap.Error(err))
			break
		}
		if qerr != nil {
			ps.log.Warn("page store cannot be read, nor moved aside: "+lost, zap.String("path", ps.path), zap.Error(err), zap.NamedError("move_error", qerr))
		} else {
			ps.log.Warn("page store cannot be read; moved it aside: "+lost, zap.String("path", ps.path), zap.String("moved_to", aside), zap.Error(err))
		}
	case s != nil && s.Torn > 0:
		ps.log.Warn("page store ends in a write cut short (a crash?): the pages of the directories it held are read again, and taken as changed if their bytes are not the ones known before",
			zap.String("path", ps.path), zap.Int("bytes", s.Torn))
	case s != nil && s.HeadsLost():
		ps.log.Info("page store was kept under other head rules: every page's head is read again", zap.String("path", ps.path))
	}
	ps.old = s
	ps.tmpl.fromStore(s)
}

// known returns what is known of a directory's pages: what memory holds,
// or else what this engine keeps of groups memory does not hold, or else
// what the store found at start says.
func (ps *pageCache) known(dir string) *tree.Listing {
	if l := ps.mem.Dir(dir); l != nil {
		return l
	}
	if l := ps.held[dir]; l != nil {
		return l
	}
	return ps.old.Listing(dir)
}

// newStore starts a new store for a full build, or returns nil: none
// is kept, or state_dir does not exist (it is not created here: `sitemapd
// build` may run as a user who cannot create it).
func (ps *pageCache) newStore() *pagestore.Writer {
	if ps.path == "" {
		return nil
	}
	if st, err := os.Stat(ps.cfg.StateDir); err != nil || !st.IsDir() {
		ps.log.Debug("page store not kept: state_dir does not exist", zap.String("state_dir", ps.cfg.StateDir))
		return nil
	}
	w, err := ps.out.pageStore(ps.path, ps.keys)
	if err != nil {
		ps.log.Warn("page store not kept: "+ps.loss(), zap.Error(err))
		return nil
	}
	ps.tmpl.keepIn(w)
	ps.startStore()
	return w
}

// loss says what a store not written costs.
func (ps *pageCache) loss() string {
	if ps.scan.HashesContent() {
		return "pages rewritten with the same bytes before the next build may take their new mtime as lastmod"
	}
	return "the next build reads every head"
}

// keepKnown keeps what was known of the directories of a group whose
// full-build read failed: in the build's new store w (if any) and, in
// daemon mode, in held, where memory does not hold them. Their pages'
// state must not be lost with one unreadable directory.
func (ps *pageCache) keepKnown(w *pagestore.Writer, group string, read map[string]*tree.Listing) {
	for d, l := range ps.knownOf(group) {
		if _, ok := read[d]; ok {
			continue
		}
		if w != nil {
			ps.addToStore(w, d, l)
		}
		if ps.mem != nil && !ps.mem.Remembers(group) {
			if ps.held == nil {
				ps.held = map[string]*tree.Listing{}
			}
			ps.held[d] = l
		}
	}
}

// knownOf returns what is known of a group's directories, from the first
// of memory, held and the store found at start that knows the group.
func (ps *pageCache) knownOf(group string) map[string]*tree.Listing {
	if ps.mem.Remembers(group) {
		return ps.mem.Listings(group)
	}
	out := map[string]*tree.Listing{}
	for d, l := range ps.held {
		if ps.depth.GroupOf(d) == group {
			out[d] = l
		}
	}
	if len(out) == 0 {
		ps.old.Each(func(d string, l *tree.Listing) {
			if ps.depth.GroupOf(d) == group {
				out[d] = l
			}
		})
	}
	return out
}

// commitStore puts a full build's new store in place, before the
// sitemaps it describes are committed.
func (ps *pageCache) commitStore(w *pagestore.Writer) {
	ps.appendable = false
	if err := w.Commit(); err != nil {
		ps.storeCommitted(false)
		ps.log.Warn("page store not written: "+ps.loss(), zap.String("path", ps.path), zap.Error(err))
		return
	}
	ps.storeCommitted(true)
	if st, err := os.Stat(ps.path); err == nil {
		ps.appendable, ps.base, ps.size = true, st.Size(), st.Size()
	}
	ps.reopen()
}

// appendRead appends what a rebuild read (staged: the groups it staged) to the store, synced, before
// the sitemaps that show it are committed: a process that starts after a
// crash then knows every page's time as this one did. It writes the store
// whole again once appends have grown it enough.
func (ps *pageCache) appendRead(staged map[string]staging) {
	if !ps.appendable {
		return
	}
	var entries []pagestore.Entry
	var forgotten []string
	for _, dir := range slices.Sorted(maps.Keys(staged)) {
		read := staged[dir].read
		entries = append(entries, ps.entries(slices.Sorted(maps.Keys(read)), func(d string) *tree.Listing { return read[d] })...)
		if u := staged[dir].upd; u != nil {
			forgotten = append(forgotten, u.Forget...)
		}
	}
	if len(entries) == 0 {
		return
	}
	size, err := pagestore.Append(ps.path, ps.keys, entries)
	ps.appended(entries, forgotten, err == nil)
	if err != nil {
		ps.appendable = false
		ps.log.Warn("page store not updated, until the next full build: "+ps.loss(), zap.String("path", ps.path), zap.Error(err))
		return
	}
	ps.size = size
	if size-ps.base > max(ps.base, compactAt) {
		ps.compact()
	} else {
		ps.reopen()
	}
}

// compact writes the store whole again, from itself.
func (ps *pageCache) compact() {
	start := time.Now()
	s, err := pagestore.Open(ps.path, ps.keys)
	if err == nil && s == nil {
		err = os.ErrNotExist
	}
	if err != nil {
		ps.appendable = false
		ps.log.Warn("page store cannot be compacted: "+ps.loss(), zap.String("path", ps.path), zap.Error(err))
		return
	}
	defer s.Close()
	w, err := pagestore.Create(ps.path, ps.keys)
	if err != nil {
		ps.log.Warn("page store cannot be compacted; appending still", zap.String("path", ps.path), zap.Error(err))
		return
	}
	if m := s.Model(); m != nil {
		w.SetModel(m)
	}
	s.Each(w.Add)
	bases := ps.stored.bases // the store written again holds what it held
	ps.commitStore(w)
	if ps.appendable {
		ps.stored.bases = bases
	}
	ps.log.Debug("page store compacted", zap.Int64("bytes", ps.size), zap.Duration("took", time.Since(start)))
}

// hold keeps the listings of a group that memory does not hold (one that
// follows symlinks), in daemon mode, as what is known of its pages; nil
// drops them (memory holds the group).
func (ps *pageCache) hold(group string, read map[string]*tree.Listing) {
	if ps.mem == nil {
		return
	}
	for d := range ps.held {
		if ps.depth.GroupOf(d) == group {
			delete(ps.held, d)
		}
	}
	if read == nil {
		return
	}
	if ps.held == nil {
		ps.held = map[string]*tree.Listing{}
	}
	for d, l := range read {
		if ps.depth.GroupOf(d) == group {
			ps.held[d] = l
		}
	}
}

// reopen reads the store again after this engine wrote to it,
// when memory does not hold what it read (not the daemon): the next
// rebuild compares with it.
func (ps *pageCache) reopen() {
	if ps.mem != nil || !ps.appendable {
		return
	}
	ps.old.Close()
	s, err := pagestore.Open(ps.path, ps.keys)
	if err != nil {
		ps.log.Warn("page store written cannot be read back", zap.String("path", ps.path), zap.Error(err))
	}
	ps.old = s
}

// forgetUnseen ends a full walk for the pages: what the daemon holds of
// the groups it did not meet goes, and, with memory, the store found at
// start, since memory and held know every page from now on.
func (ps *pageCache) forgetUnseen(seen map[string]bool) {
	if ps.mem != nil {
		ps.old.Close()
		ps.old = nil
	}
	for d := range ps.held {
		if !seen[ps.depth.GroupOf(d)] {
			delete(ps.held, d)
		}
	}
}

// close releases the store found at start.
func (ps *pageCache) close() { ps.old.Close() }
