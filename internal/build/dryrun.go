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
	"github.com/sitemapd/sitemapd/internal/outname"
	"github.com/sitemapd/sitemapd/internal/pagestore"
	"github.com/sitemapd/sitemapd/internal/publish"
	"github.com/sitemapd/sitemapd/internal/textrecord"
)

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

// dryRun is the sink of a dry run: each write checked as the writer
// would make it (ownership, bytes, a directory to write in), and noted in
// a plan instead.
type dryRun struct {
	pub      *publish.Publisher
	outDir   string // the output root
	separate bool   // the output tree is not the document root: its directories are created
	textName string // text sitemaps' name (outname.Site.Text)
	now      func() time.Time

	// The plan of the last publish; files is nil before the first.
	files     map[string]PlannedFile
	when      map[string]time.Time // files it would write, and when
	groups    map[string]PlannedGroup
	unchanged int
	store     string          // the page store it would write whole
	text      bool            // a text sitemap would be written or removed
	textNames map[string]bool // the names the record listed before
}

func newDryRun(cfg *config.Config, pub *publish.Publisher, now func() time.Time) *dryRun {
	return &dryRun{pub: pub, outDir: cfg.OutputRoot(), separate: cfg.OutputRoot() != cfg.Root, textName: cfg.OutputNames().Text(), now: now}
}

// begin starts the plan of a publish.
func (d *dryRun) begin(text *textrecord.Record) {
	d.files, d.when, d.groups = map[string]PlannedFile{}, map[string]time.Time{}, map[string]PlannedGroup{}
	d.unchanged, d.store, d.text, d.textNames = 0, "", false, map[string]bool{}
	text.Names(func(n string) { d.textNames[n] = true })
}

// plan returns what the last publish would have done (nil before one).
func (d *dryRun) plan() *Plan {
	if d.files == nil {
		return nil
	}
	p := &Plan{Unchanged: d.unchanged, PageStore: d.store}
	for _, dir := range slices.Sorted(maps.Keys(d.groups)) {
		p.Groups = append(p.Groups, d.groups[dir])
	}
	for _, name := range slices.Sorted(maps.Keys(d.files)) {
		p.Files = append(p.Files, d.files[name])
	}
	return p
}

// refused drops the files planned: the shrink guard refused the publish,
// and none of them would land.
func (d *dryRun) refused() {
	clear(d.files)
	d.unchanged, d.store, d.text = 0, "", false
}

func (d *dryRun) note(name string, a Action, err error) {
	d.files[name] = PlannedFile{Name: name, Action: a, Err: err}
}

// planGroup notes a group the publish would write.
func (d *dryRun) planGroup(dir string, urls int, names []string) {
	d.groups[dir] = PlannedGroup{Dir: dir, URLs: urls, Sitemaps: slices.Clone(names)}
}

// stage compares data with the file on disk and checks, as Put does, that
// the file is ours and that it could be written, staging nothing.
func (d *dryRun) stage(_ *publish.Batch, name string, data []byte, _ fs.FileMode) (changed bool, err error) {
	changed, err = d.put(name, data)
	switch {
	case err != nil:
		d.note(name, Refuse, err)
	case !changed:
		d.unchanged++
		return false, nil
	default:
		a := Replace
		if _, serr := d.pub.Stat(name); errors.Is(serr, fs.ErrNotExist) {
			a = Create
		}
		d.note(name, a, nil)
		d.when[name] = d.now()
	}
	if outname.IsPart(path.Base(name), d.textName) {
		d.text = d.text || changed
	}
	return changed, err
}

// put tells what Batch.Put would do with data at name: whether it
// changes the file, or the error it would fail with.
func (d *dryRun) put(name string, data []byte) (bool, error) {
	same, err := d.pub.Check(name, data)
	if err != nil || same {
		return false, err
	}
	return true, d.writable(path.Dir(name))
}

// writable reports the error a temp file in dir would fail with: dir, or
// the directory it would be made in, is missing or not writable.
func (d *dryRun) writable(dir string) error {
	abs := filepath.Join(d.outDir, dir)
	for p := abs; ; p = filepath.Dir(p) {
		_, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) && d.separate && p != d.outDir {
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

// remove tells whether the file is there and ours, and could be removed.
func (d *dryRun) remove(name string) (bool, error) {
	if _, err := d.pub.Stat(name); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if _, err := d.pub.Check(name, nil); err != nil {
		return false, err
	}
	if err := unix.Access(filepath.Dir(filepath.Join(d.outDir, name)), unix.W_OK|unix.X_OK); err != nil {
		return false, fmt.Errorf("remove %s: %w", filepath.Join(d.outDir, name), err)
	}
	d.note(name, Remove, nil)
	if outname.IsPart(path.Base(name), d.textName) {
		d.text = true
	}
	return true, nil
}

// removeTemp notes the temp files the writer would remove.
func (d *dryRun) removeTemp(name string, before time.Time) error {
	if st, err := d.pub.Stat(name); err == nil && publish.IsTemp(path.Base(name)) && st.Mode().IsRegular() && st.ModTime().Before(before) {
		d.note(name, Clean, nil)
	}
	return nil
}

// modTime is the mtime of an output file as the index lists it: a file
// it would write has the time it would be written.
func (d *dryRun) modTime(name string) (time.Time, error) {
	if t, ok := d.when[name]; ok {
		return t, nil
	}
	return d.pub.ModTime(name)
}

// prepareText writes nothing: the record is noted by saveText.
func (d *dryRun) prepareText(*textrecord.Record) ([]string, error) { return nil, nil }

// saveText notes whether the record of text sitemaps would change: when a
// text sitemap would be written or removed, or the record would list
// other names.
func (d *dryRun) saveText(text *textrecord.Record) error {
	names := map[string]bool{}
	text.Names(func(n string) { names[n] = true })
	if !d.text && maps.Equal(names, d.textNames) {
		return nil
	}
	a := Replace
	if _, err := d.pub.Stat(textrecord.Name); errors.Is(err, fs.ErrNotExist) {
		if len(names) == 0 {
			return nil // an empty record is not created
		}
		a = Create
	}
	d.note(textrecord.Name, a, nil)
	return nil
}

// pageStore notes the store a build would write whole.
func (d *dryRun) pageStore(path string, _ pagestore.Keys) (*pagestore.Writer, error) {
	d.store = path
	return nil, nil
}

// quarantine leaves a store that cannot be read where it is.
func (d *dryRun) quarantine(string) (string, error) { return "", nil }

// dryMTimeOnly is mtimeOnly without creating state_dir or writing in it:
// whether it could be created, or written.
func dryMTimeOnly(cfg *config.Config) string {
	if !cfg.Pages.LastModFrom.KeepsTimes() {
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

func (d *dryRun) lands() bool { return false }
