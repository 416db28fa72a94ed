package build

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/publish"
	"github.com/sitemapd/sitemapd/internal/textrecord"
)

// WithDryRun makes the engine plan instead of publish (`sitemapd build
// -dry-run`): a publish runs every step it would (the walk, the
// encoding, each file compared with what is on disk, the ownership
// checks, the shrink guard), and its Report says what it would write and
// remove, but nothing is created, written, renamed or removed: no sitemap,
// no temp file, no directory, not the page store, the record of text
// sitemaps or robots.txt, and state_dir is not created. Plan details
// what the last publish would have done. A dry run is not notified
// (WithWriteAhead's function is not called).
func WithDryRun() Option { return func(e *Engine) { e.dry = &dryRun{} } }

// Action is what a publish would do to one file.
type Action int

const (
	Create  Action = iota // write a file that is not there
	Replace               // write new bytes over one of ours
	Remove                // remove one of ours that nothing needs any more
	Refuse                // not write it: a file sitemapd did not write is in the way, or it cannot be written
	Clean                 // remove a temp file a crash left
)

func (a Action) String() string {
	return [...]string{"create", "replace", "remove", "refuse", "clean"}[a]
}

// PlannedFile is one file a publish would touch.
type PlannedFile struct {
	Name   string // relative to the output root
	Action Action
	Err    error // why it is refused
}

// PlannedGroup is one group a publish would write.
type PlannedGroup struct {
	Dir      string   // relative to the root; "" is the root
	URLs     int      // URLs it would list
	Sitemaps []string // its sitemap files, relative to the output root
}

// Plan is what a dry run found that the publish would do.
type Plan struct {
	Groups    []PlannedGroup // sorted by Dir
	Files     []PlannedFile  // sorted by Name, unchanged files left out
	Unchanged int            // files whose bytes are already right
	// PageStore is the page store the publish would write whole, or "".
	PageStore string
}

// dryRun is what a dry run collects as the publish runs.
type dryRun struct {
	files     map[string]PlannedFile
	when      map[string]time.Time // files it would write, and when
	groups    map[string]PlannedGroup
	unchanged int
	pageStore string
	text      bool            // a text sitemap would be written or removed
	textNames map[string]bool // the names the record listed before
}

// reset starts the plan of a publish.
func (d *dryRun) reset(e *Engine) {
	*d = dryRun{files: map[string]PlannedFile{}, when: map[string]time.Time{}, groups: map[string]PlannedGroup{}, textNames: map[string]bool{}}
	e.text.Names(func(n string) { d.textNames[n] = true })
}

// Plan returns what the last publish of a dry run would have done (nil
// without WithDryRun, or before a publish).
func (e *Engine) Plan() *Plan {
	d := e.dry
	if d == nil || d.files == nil {
		return nil
	}
	p := &Plan{Unchanged: d.unchanged, PageStore: d.pageStore}
	for _, dir := range slices.Sorted(maps.Keys(d.groups)) {
		p.Groups = append(p.Groups, d.groups[dir])
	}
	for _, name := range slices.Sorted(maps.Keys(d.files)) {
		p.Files = append(p.Files, d.files[name])
	}
	return p
}

// refuse drops the files planned: the shrink guard refused the publish,
// and none of them would land.
func (d *dryRun) refuse() {
	clear(d.files)
	d.unchanged, d.pageStore, d.text = 0, "", false
}

func (d *dryRun) note(name string, a Action, err error) {
	d.files[name] = PlannedFile{Name: name, Action: a, Err: err}
}

// group notes a group the publish would write.
func (d *dryRun) group(dir string, urls int, names []string) {
	d.groups[dir] = PlannedGroup{Dir: dir, URLs: urls, Sitemaps: slices.Clone(names)}
}

// stage is Batch.PutMode (Batch.Put for mode 0) for the engine: in a dry
// run, it compares data with the file on disk and checks, as Put does,
// that the file is ours and that it could be written, staging nothing.
func (e *Engine) stage(batch *publish.Batch, name string, data []byte, mode fs.FileMode) (changed bool, err error) {
	d := e.dry
	switch {
	case d == nil && mode == 0:
		return batch.Put(name, data)
	case d == nil:
		return batch.PutMode(name, data, mode)
	}
	changed, err = e.dryPut(name, data)
	switch {
	case err != nil:
		d.note(name, Refuse, err)
	case !changed:
		d.unchanged++
		return false, nil
	default:
		a := Replace
		if _, serr := e.pub.Stat(name); errors.Is(serr, fs.ErrNotExist) {
			a = Create
		}
		d.note(name, a, nil)
		d.when[name] = e.now()
	}
	if config.IsPartName(path.Base(name), e.cfg.TextName()) {
		d.text = d.text || changed
	}
	return changed, err
}

// dryPut tells what Batch.Put would do with data at name: whether it
// changes the file, or the error it would fail with.
func (e *Engine) dryPut(name string, data []byte) (bool, error) {
	same, err := e.pub.Check(name, data)
	if err != nil || same {
		return false, err
	}
	return true, e.writable(path.Dir(name))
}

// writable reports the error a temp file in dir would fail with: dir, or
// the directory it would be made in, is missing or not writable.
func (e *Engine) writable(dir string) error {
	abs := filepath.Join(e.outDir, dir)
	for p := abs; ; p = filepath.Dir(p) {
		_, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) && e.outDir != e.cfg.Root && p != e.outDir {
			continue // a separate output tree's directories are created
		}
		if err == nil {
			err = unix.Access(p, unix.W_OK|unix.X_OK)
		}
		if err != nil {
			return fmt.Errorf("create temp file in %s: %w", abs, err)
		}
		return nil
	}
}

// unlink is Publisher.Remove for the engine: in a dry run it only tells
// whether the file is there and ours.
func (e *Engine) unlink(name string) (bool, error) {
	d := e.dry
	if d == nil {
		return e.pub.Remove(name)
	}
	if _, err := e.pub.Stat(name); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if _, err := e.pub.Check(name, nil); err != nil {
		return false, err
	}
	if err := unix.Access(filepath.Dir(filepath.Join(e.outDir, name)), unix.W_OK|unix.X_OK); err != nil {
		return false, fmt.Errorf("remove %s: %w", filepath.Join(e.outDir, name), err)
	}
	d.note(name, Remove, nil)
	if config.IsPartName(path.Base(name), e.cfg.TextName()) {
		d.text = true
	}
	return true, nil
}

// removeTemp is Publisher.RemoveTemp for the engine; a dry run notes the
// temp files it would remove.
func (e *Engine) removeTemp(name string, before time.Time) error {
	if e.dry == nil {
		return e.pub.RemoveTemp(name, before)
	}
	if st, err := e.pub.Stat(name); err == nil && publish.IsTemp(path.Base(name)) && st.Mode().IsRegular() && st.ModTime().Before(before) {
		e.dry.note(name, Clean, nil)
	}
	return nil
}

// modTime is the mtime of an output file as the index lists it: in a dry
// run, a file it would write has the time it would be written.
func (e *Engine) modTime(name string) (time.Time, error) {
	if e.dry != nil {
		if t, ok := e.dry.when[name]; ok {
			return t, nil
		}
	}
	return e.pub.ModTime(name)
}

// saveText saves the record of text sitemaps; a dry run notes whether it
// would change: when a text sitemap would be written or removed, or the
// record would list other names.
func (e *Engine) saveText() error {
	d := e.dry
	if d == nil {
		return e.text.Save()
	}
	names := map[string]bool{}
	e.text.Names(func(n string) { names[n] = true })
	if !d.text && maps.Equal(names, d.textNames) {
		return nil
	}
	a := Replace
	if _, err := e.pub.Stat(textrecord.Name); errors.Is(err, fs.ErrNotExist) {
		if len(names) == 0 {
			return nil // an empty record is not created
		}
		a = Create
	}
	d.note(textrecord.Name, a, nil)
	return nil
}

// dryMTimeOnly is mtimeOnly without creating state_dir or writing in it:
// whether it could be created, or written.
func dryMTimeOnly(cfg *config.Config) string {
	if cfg.Pages.LastModFrom != config.LastModContent {
		return ""
	}
	if cfg.StateDir == "" {
		return "state_dir is not set"
	}
	p := cfg.StateDir
	for {
		st, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) && filepath.Dir(p) != p {
			p = filepath.Dir(p)
			continue
		}
		if err == nil && !st.IsDir() {
			err = fmt.Errorf("%s is not a directory", p)
		}
		if err == nil {
			err = unix.Access(p, unix.W_OK|unix.X_OK)
		}
		switch {
		case err == nil:
			return ""
		case p == cfg.StateDir:
			return "state_dir is not writable: " + err.Error()
		default:
			return "state_dir cannot be created: " + err.Error()
		}
	}
}
