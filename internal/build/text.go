package build

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/publish"
	"github.com/sitemapd/sitemapd/internal/sitemap"
)

// TextRecordName is the file, at the root of the output, in which sitemapd
// records the text sitemaps it wrote. A text sitemap is nothing but URLs,
// with no room for the marker by which sitemapd knows its XML files, so a
// sitemap.txt is sitemapd's only if this record lists it with the SHA-256
// of its content: a hand-made sitemap.txt, there before text sitemaps were
// turned on or put in place of one of ours, is never overwritten or
// removed. The record is in sha256sum's format (sha256sum -c checks it),
// and a dotfile, so never listed or served.
const TextRecordName = ".sitemapd-text.sha256"

const textRecordHeader = "# Text sitemaps written by sitemapd, with their SHA-256: the files it may replace or remove.\n"

// textRecord is the record in memory. A name may have two hashes while a
// write is under way: the record is written before the files are
// committed (with the old and the new content's hash) and trimmed after,
// so that a crash in between leaves every file recognisable.
type textRecord struct {
	hashes map[string][]string // name -> hashes of contents it may have
	staged map[string]string   // name -> hash of the content being written
	dirty  bool
}

func textHash(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// isTextName reports whether a path is a text sitemap's (some part of the
// text name, possibly gzipped).
func (e *Engine) isTextName(name string) bool {
	return config.IsPartName(path.Base(name), e.cfg.TextName())
}

// loadTextRecord reads the record; a missing one is empty. One that cannot
// be read makes no text sitemap ours, which errs towards leaving files
// alone.
func (e *Engine) loadTextRecord() {
	e.text = textRecord{hashes: map[string][]string{}, staged: map[string]string{}}
	b, err := e.pub.ReadFile(TextRecordName)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil || !bytes.HasPrefix(b, []byte(textRecordHeader)) {
		e.log.Warn("record of text sitemaps unreadable: none is taken for sitemapd's",
			zap.String("path", filepath.Join(e.outDir, TextRecordName)), zap.Error(err))
		return
	}
	sc := bufio.NewScanner(bytes.NewReader(b[len(textRecordHeader):]))
	for sc.Scan() {
		line := sc.Text()
		escaped := strings.HasPrefix(line, "\\")
		hash, name, ok := strings.Cut(strings.TrimPrefix(line, "\\"), "  ")
		if escaped {
			name = nameUnescaper.Replace(name)
		}
		if ok && len(hash) == 64 {
			e.text.hashes[name] = append(e.text.hashes[name], hash)
		}
	}
}

// A name with a backslash or a line break is written as sha256sum writes
// it: the line starts with a backslash and the name is escaped.
var (
	nameEscaper   = strings.NewReplacer("\\", "\\\\", "\n", "\\n", "\r", "\\r")
	nameUnescaper = strings.NewReplacer("\\\\", "\\", "\\n", "\n", "\\r", "\r")
)

// ownsText reports whether a text sitemap on disk is one sitemapd wrote:
// its content is one the record lists, under any name, since a directory
// moved within the site carries its text sitemaps along.
func (e *Engine) ownsText(name string) bool {
	if len(e.text.hashes) == 0 {
		return false
	}
	b, err := e.pub.ReadFile(name)
	if err != nil {
		return false
	}
	h := textHash(b)
	for _, hashes := range e.text.hashes {
		if slices.Contains(hashes, h) {
			return true
		}
	}
	return false
}

// putText stages a text sitemap. A file of that name that is not ours is
// left alone, and the group's XML sitemaps are published all the same:
// the error is returned for the build to report.
func (e *Engine) putText(batch *publish.Batch, name string, data []byte, rep *Report) error {
	stored, changed, err := e.putFile(batch, name, data, rep)
	if err != nil {
		return err
	}
	hash := textHash(stored)
	if changed {
		e.text.staged[name] = hash
	} else if !slices.Equal(e.text.hashes[name], []string{hash}) {
		e.text.hashes[name], e.text.dirty = []string{hash}, true
	}
	return nil
}

// publishText encodes and stages a group's text sitemaps, and notes the
// names they take.
func (e *Engine) publishText(batch *publish.Batch, dir string, urls []sitemap.URL, rep *Report) {
	var names []string
	err := sitemap.Text(urls, func(part []byte) error {
		name := path.Join(dir, e.outName(config.PartName(e.cfg.TextName(), len(names)+1)))
		names = append(names, name)
		if err := e.putText(batch, name, part, rep); err != nil {
			e.textErrs = append(e.textErrs, fmt.Errorf("text sitemap not written: %w", err))
		}
		return nil
	})
	if err != nil {
		e.textErrs = append(e.textErrs, err)
	}
	if len(names) == 0 {
		delete(e.textParts, dir)
	} else {
		e.textParts[dir] = names
	}
}

// prepareText writes the record with the hashes of the text sitemaps about
// to be committed added, before they are. If it cannot, it takes them out
// of the batch (they keep what they hold, and are written again with the
// group's next publish).
func (e *Engine) prepareText(batch *publish.Batch, rep *Report) error {
	if len(e.text.staged) == 0 {
		return nil
	}
	old := maps.Clone(e.text.hashes)
	for name, hash := range e.text.staged {
		if !slices.Contains(e.text.hashes[name], hash) {
			e.text.hashes[name] = append(slices.Clone(e.text.hashes[name]), hash)
		}
	}
	e.text.dirty = true
	err := e.saveText()
	if err == nil {
		return nil
	}
	e.text.hashes = old
	for name := range e.text.staged {
		batch.Drop(name)
		abs := filepath.Join(e.outDir, name)
		rep.Written = slices.DeleteFunc(rep.Written, func(p string) bool { return p == abs })
	}
	clear(e.text.staged)
	return fmt.Errorf("text sitemaps not written: %w", err)
}

// settleText keeps, for each text sitemap just committed, the hash of what
// is now on disk: the new content, or the old one where the commit failed.
func (e *Engine) settleText(failed map[string]error) {
	for name, hash := range e.text.staged {
		if _, bad := failed[name]; bad {
			e.text.hashes[name] = slices.DeleteFunc(e.text.hashes[name], func(h string) bool { return h == hash })
		} else {
			e.text.hashes[name] = []string{hash}
		}
		e.text.dirty = true
	}
	clear(e.text.staged)
}

// textRemoved forgets a text sitemap that was removed, or found gone.
func (e *Engine) textRemoved(name string) {
	if _, ok := e.text.hashes[name]; ok {
		delete(e.text.hashes, name)
		e.text.dirty = true
	}
}

// saveText writes the record if it changed. An empty record is not
// created, but one that existed is kept (emptied): it is ours to replace.
func (e *Engine) saveText() error {
	if !e.text.dirty {
		return nil
	}
	var b bytes.Buffer
	b.WriteString(textRecordHeader)
	for _, name := range slices.Sorted(maps.Keys(e.text.hashes)) {
		for _, h := range e.text.hashes[name] {
			if strings.ContainsAny(name, "\\\n\r") {
				fmt.Fprintf(&b, "\\%s  %s\n", h, nameEscaper.Replace(name))
			} else {
				fmt.Fprintf(&b, "%s  %s\n", h, name)
			}
		}
	}
	if len(e.text.hashes) == 0 {
		if _, err := e.pub.Stat(TextRecordName); errors.Is(err, fs.ErrNotExist) {
			e.text.dirty = false
			return nil
		}
	}
	batch := e.pub.Begin()
	if _, err := batch.Put(TextRecordName, b.Bytes()); err != nil {
		batch.Abort()
		return fmt.Errorf("record of text sitemaps: %w", err)
	}
	failed, err := batch.Commit()
	for _, ferr := range failed {
		err = errors.Join(err, ferr)
	}
	if err != nil {
		return fmt.Errorf("record of text sitemaps: %w", err)
	}
	e.text.dirty = false
	return nil
}

// publishedTextParts lists the text parts of a group that are on disk and
// ours.
func (e *Engine) publishedTextParts(dir string) []string {
	return e.publishedPartsOf(dir, e.cfg.TextName())
}
