package build

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/outname"
	"github.com/sitemapd/sitemapd/internal/pagestore"
	"github.com/sitemapd/sitemapd/internal/publish"
	"github.com/sitemapd/sitemapd/internal/sitemap"
	"github.com/sitemapd/sitemapd/internal/siteurl"
	"github.com/sitemapd/sitemapd/internal/textrecord"
)

// sink is where a publish's files go: the output tree (writer), or a
// plan of what would be written (dryRun, WithDryRun). Every write of the
// engine (a file staged or removed, a temp file cleaned, the record of
// text sitemaps, the page store in state_dir) goes through it, so that a
// dry run runs every step of a publish but its writes, as a second
// implementation of them, not as a branch in each.
type sink interface {
	// begin starts a publish; text is the record of text sitemaps as it
	// begins.
	begin(text *textrecord.Record)
	// stage is Batch.PutMode (Batch.Put for mode 0): it stages data as
	// the file name and reports whether that changes the file.
	stage(batch *publish.Batch, name string, data []byte, mode fs.FileMode) (changed bool, err error)
	// remove is Publisher.Remove: it removes one of our files, and
	// reports whether one was there.
	remove(name string) (bool, error)
	// removeTemp is Publisher.RemoveTemp.
	removeTemp(name string, before time.Time) error
	// modTime is the mtime of an output file as the index lists it.
	modTime(name string) (time.Time, error)
	// prepareText and saveText write the record of text sitemaps
	// (textrecord.Record's Prepare, before the commit, and Save).
	prepareText(text *textrecord.Record) (drop []string, err error)
	saveText(text *textrecord.Record) error
	// planGroup notes a group staged: the URLs it lists, its files.
	planGroup(dir string, urls int, names []string)
	// refused notes a publish the shrink guard refused: none of its
	// files land.
	refused()
	// pageStore starts the page store a full build writes whole at path
	// (nil, nil: none is written).
	pageStore(path string, keys pagestore.Keys) (*pagestore.Writer, error)
	// quarantine moves aside a page store that cannot be read; "" and a
	// nil error when it is left where it is.
	quarantine(path string) (aside string, err error)
	// lands reports whether files land: a publish whose files do not is
	// owed to nobody, marks no group for a retry and trusts no part as
	// it landed.
	lands() bool
}

// writer is the sink of a publish: the output tree, through its
// publisher, and state_dir.
type writer struct{ pub *publish.Publisher }

func (w writer) begin(*textrecord.Record) {}

func (w writer) stage(batch *publish.Batch, name string, data []byte, mode fs.FileMode) (bool, error) {
	if mode == 0 {
		return batch.Put(name, data)
	}
	return batch.PutMode(name, data, mode)
}

func (w writer) remove(name string) (bool, error) { return w.pub.Remove(name) }

func (w writer) removeTemp(name string, before time.Time) error {
	return w.pub.RemoveTemp(name, before)
}

func (w writer) modTime(name string) (time.Time, error) { return w.pub.ModTime(name) }

func (w writer) prepareText(text *textrecord.Record) ([]string, error) { return text.Prepare() }

func (w writer) saveText(text *textrecord.Record) error { return text.Save() }

func (w writer) planGroup(string, int, []string) {}

func (w writer) refused() {}

func (w writer) pageStore(path string, keys pagestore.Keys) (*pagestore.Writer, error) {
	return pagestore.Create(path, keys)
}

func (w writer) quarantine(path string) (string, error) { return publish.Quarantine(path) }

func (w writer) lands() bool { return true }

// encoder encodes sitemaps and compresses outputs, reusing its gzip
// writer and buffer across files. It counts the parts it encodes: a
// change encodes the parts it touched only, and the tests check it.
type encoder struct {
	sitemap.Encoder
	gzip  bool
	gz    *gzip.Writer
	buf   bytes.Buffer
	parts int // sitemap parts encoded since New
}

// newEncoder returns the encoder of cfg's outputs.
func newEncoder(cfg *config.Config, loc *siteurl.Locator) *encoder {
	c := &encoder{gzip: cfg.Gzip}
	c.Stylesheet = cfg.Stylesheet
	if cfg.Stylesheet == "builtin" {
		c.Stylesheet = loc.File(outname.StylesheetName)
	}
	return c
}

// compress gzips deterministically when gzip is on: the header carries no
// name and no time, so equal input gives equal bytes. The bytes returned
// are valid until the next call.
func (c *encoder) compress(data []byte) ([]byte, error) {
	if !c.gzip {
		return data, nil
	}
	c.buf.Reset()
	if c.gz == nil {
		c.gz, _ = gzip.NewWriterLevel(&c.buf, gzip.BestSpeed)
	} else {
		c.gz.Reset(&c.buf)
	}
	if _, err := c.gz.Write(data); err != nil {
		return nil, err
	}
	if err := c.gz.Close(); err != nil {
		return nil, err
	}
	return c.buf.Bytes(), nil
}

// put stages one output file, gzipped if configured, and returns the bytes
// staged (valid until the next gzip) and whether they change the file.
func (e *Engine) put(batch *publish.Batch, rep *Report, name string, data []byte) (stored []byte, changed bool, err error) {
	if data, err = e.enc.compress(data); err != nil {
		return nil, false, err
	}
	if changed, err = e.out.stage(batch, name, data, 0); err != nil {
		return nil, false, err
	}
	if changed {
		rep.Written = append(rep.Written, filepath.Join(e.opts.outDir, name))
	} else {
		rep.Unchanged++
	}
	return data, changed, nil
}

// owned recognises the files sitemapd may replace or remove: by the marker
// comment near their start (looking inside gzip files), or, for the files
// that have no room for one, by what they must hold.
func (e *Engine) owned(name string, head []byte) bool {
	if name == outname.RobotsName {
		// The site's own file, which robots_txt asks sitemapd to edit
		// (publishRobots keeps every byte that is not its lines).
		return e.cfg.RobotsTxt
	}
	if key, ok := e.opts.keyFiles[name]; ok {
		// An IndexNow key file holds the key and nothing else, so it has
		// no room for a marker: one holding our key is as good as ours.
		return string(head) == key
	}
	if name == textrecord.Name {
		return textrecord.IsRecord(head)
	}
	if outname.IsPart(path.Base(name), e.opts.names.Text()) {
		return e.model.text.Owns(name)
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

// notOwned says why a file in the way is not sitemapd's.
const notOwned = "it was not written by sitemapd (no generator marker in it, or, for a text sitemap, not in " + textrecord.Name + ")"

// scanOutputs lists sitemapd's files in a separate output directory.
func (e *Engine) scanOutputs() (own, temps []string, err error) {
	err = filepath.WalkDir(e.opts.outDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("scan output directory: %w", err)
		}
		rel, _ := filepath.Rel(e.opts.outDir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir():
			return nil
		case publish.IsTemp(d.Name()):
			temps = append(temps, rel)
		case e.opts.names.Kind(d.Name()).Parted():
			own = append(own, rel)
		}
		return nil
	})
	return own, temps, err
}

// The writer and the dry run are the two sinks.
var (
	_ sink = writer{}
	_ sink = (*dryRun)(nil)
)
