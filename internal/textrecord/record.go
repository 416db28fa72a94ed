package textrecord

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/publish"
	"github.com/sitemapd/sitemapd/internal/sitemap"
)

// Name is the record's file name, at the root of the output.
const Name = ".sitemapd-text.sha256"

const header = "# Text sitemaps written by sitemapd, with their SHA-256: the files it may replace or remove.\n"

// IsRecord reports whether a file starting with head is a record.
func IsRecord(head []byte) bool { return bytes.HasPrefix(head, []byte(header)) }

// Record is the record in memory. A name may have two hashes while a
// write is under way. A Record is not safe for concurrent use.
type Record struct {
	pub    *publish.Publisher
	hashes map[string][]string // name -> hashes of contents it may have
	staged map[string]string   // name -> hash of the content being written
	// gone are the hashes of names forgotten since the last full publish
	// (Settled), kept in memory only: a text sitemap found gone may have
	// moved with its directory to where a group meets it later, in
	// another publish, and is ours there too. The record on disk lists
	// what a full build would.
	gone  map[string]bool
	dirty bool
}

func hashOf(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// A name with a backslash or a line break is written as sha256sum writes
// it: the line starts with a backslash and the name is escaped.
var (
	nameEscaper   = strings.NewReplacer("\\", "\\\\", "\n", "\\n", "\r", "\\r")
	nameUnescaper = strings.NewReplacer("\\\\", "\\", "\\n", "\n", "\\r", "\r")
)

// maxRecordSize bounds what Load reads: a line of some 100 bytes per text
// sitemap.
const maxRecordSize = 64 << 20

// Load reads the record of the output pub writes; a missing one is empty,
// and one that cannot be read is empty too, with a warning.
func Load(pub *publish.Publisher, log *zap.Logger) *Record {
	r := &Record{pub: pub, hashes: map[string][]string{}, staged: map[string]string{}}
	b, err := pub.ReadFile(Name, maxRecordSize)
	if errors.Is(err, fs.ErrNotExist) {
		return r
	}
	if err != nil || !IsRecord(b) {
		log.Warn("record of text sitemaps unreadable: none is taken for sitemapd's",
			zap.String("path", filepath.Join(pub.Dir(), Name)), zap.Error(err))
		return r
	}
	sc := bufio.NewScanner(bytes.NewReader(b[len(header):]))
	for sc.Scan() {
		line := sc.Text()
		escaped := strings.HasPrefix(line, "\\")
		hash, name, ok := strings.Cut(strings.TrimPrefix(line, "\\"), "  ")
		if escaped {
			name = nameUnescaper.Replace(name)
		}
		if ok && len(hash) == 64 {
			r.hashes[name] = append(r.hashes[name], hash)
		}
	}
	return r
}

// Owns reports whether a text sitemap on disk is one sitemapd wrote: its
// content is one the record lists, under any name, since a directory moved
// within the site carries its text sitemaps along.
func (r *Record) Owns(name string) bool {
	if len(r.hashes) == 0 && len(r.gone) == 0 {
		return false
	}
	b, err := r.pub.ReadFile(name, sitemap.MaxBytes)
	if err != nil {
		return false
	}
	h := hashOf(b)
	for _, hashes := range r.hashes {
		if slices.Contains(hashes, h) {
			return true
		}
	}
	return r.gone[h]
}

// Stage notes a text sitemap staged with content stored (as it will be on
// disk): changed says it replaces what is there, to be recorded by Prepare
// before the commit; otherwise the file holds it already.
func (r *Record) Stage(name string, stored []byte, changed bool) {
	hash := hashOf(stored)
	if changed {
		r.staged[name] = hash
	} else if !slices.Equal(r.hashes[name], []string{hash}) {
		r.hold(name, hash)
	}
}

// hold records that name holds hash now. What it held before may live on
// elsewhere, in a copy carried by a directory moved away before the name
// was written again (a section renamed, then made anew): it is kept as
// gone (Forget), so that the copy is known for sitemapd's when its group
// is published, which may be after this.
func (r *Record) hold(name, hash string) {
	for _, h := range r.hashes[name] {
		if h != hash {
			r.markGone(h)
		}
	}
	r.hashes[name], r.dirty = []string{hash}, true
}

func (r *Record) markGone(hash string) {
	if r.gone == nil {
		r.gone = map[string]bool{}
	}
	r.gone[hash] = true
}

// Prepare writes the record with the hashes of the staged text sitemaps
// added, before they are committed. If it cannot, it returns the staged
// names, which must not be committed (they keep what they hold, and are
// written again with their group's next publish), with the error.
func (r *Record) Prepare() (drop []string, err error) {
	if len(r.staged) == 0 {
		return nil, nil
	}
	old := maps.Clone(r.hashes)
	for name, hash := range r.staged {
		if !slices.Contains(r.hashes[name], hash) {
			r.hashes[name] = append(slices.Clone(r.hashes[name]), hash)
		}
	}
	r.dirty = true
	if err = r.Save(); err == nil {
		return nil, nil
	}
	r.hashes = old
	drop = slices.Sorted(maps.Keys(r.staged))
	clear(r.staged)
	return drop, fmt.Errorf("text sitemaps not written: %w", err)
}

// Settle keeps, for each text sitemap just committed, the hash of what is
// now on disk: the new content, or the old one where the commit failed.
func (r *Record) Settle(failed map[string]error) {
	for name, hash := range r.staged {
		if _, bad := failed[name]; bad {
			r.hashes[name] = slices.DeleteFunc(r.hashes[name], func(h string) bool { return h == hash })
			r.dirty = true
		} else {
			r.hold(name, hash)
		}
	}
	clear(r.staged)
}

// Discard forgets what was staged: the batch was abandoned.
func (r *Record) Discard() { clear(r.staged) }

// Forget drops a text sitemap that was removed, or found gone.
func (r *Record) Forget(name string) {
	if hashes, ok := r.hashes[name]; ok {
		for _, h := range hashes {
			r.markGone(h)
		}
		delete(r.hashes, name)
		r.dirty = true
	}
}

// Settled ends what a full publish settled: every text sitemap of ours
// there is, it met, so the hashes of names gone are no longer needed.
func (r *Record) Settled() { clear(r.gone) }

// Names calls f for every name the record lists; f may Forget it.
func (r *Record) Names(f func(name string)) {
	for name := range r.hashes {
		f(name)
	}
}

// Save writes the record if it changed. An empty record is not created,
// but one that existed is kept (emptied): it is ours to replace.
func (r *Record) Save() error {
	if !r.dirty {
		return nil
	}
	var b bytes.Buffer
	b.WriteString(header)
	for _, name := range slices.Sorted(maps.Keys(r.hashes)) {
		for _, h := range r.hashes[name] {
			if strings.ContainsAny(name, "\\\n\r") {
				fmt.Fprintf(&b, "\\%s  %s\n", h, nameEscaper.Replace(name))
			} else {
				fmt.Fprintf(&b, "%s  %s\n", h, name)
			}
		}
	}
	if len(r.hashes) == 0 {
		if _, err := r.pub.Stat(Name); errors.Is(err, fs.ErrNotExist) {
			r.dirty = false
			return nil
		}
	}
	if _, err := r.pub.WriteFile(Name, b.Bytes()); err != nil {
		return fmt.Errorf("record of text sitemaps: %w", err)
	}
	r.dirty = false
	return nil
}
