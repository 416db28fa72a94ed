package build

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/publish"
	"github.com/sitemapd/sitemapd/internal/safefile"
)

// An index lists each sitemap with its file's mtime as its lastmod: the
// time its content last changed, since a file is rewritten only when its
// bytes change. A file written again with the bytes it held (a release
// swapped in holds no sitemap of ours; a deploy's rsync --delete removed
// it) would take a new mtime, and the index would tell crawlers that a
// sitemap changed that did not. partTimes remembers, by name, the sum of
// each part's bytes and the mtime it landed with, here and in the groups
// record (state_dir/groups.json, unchanged.go), so that a part written
// anew with the same bytes lands with the mtime it had.
type partTimes struct {
	loaded bool
	byName map[string]landing
	old    map[string]groupRecord // the record's groups as loaded
	key    string                 // groupsKey, for the record the daemon writes
}

// landing is one part's bytes (their sum) and the mtime its file took.
type landing struct {
	sum   string
	mtime int64 // Unix ns
}

// partSum is the sum of a part's bytes as stored (gzipped, if they are).
func partSum(stored []byte) string {
	h := sha256.Sum256(stored)
	return hex.EncodeToString(h[:16])
}

// load reads, once, the parts the groups record knows, whatever
// configuration or sitemapd wrote it: the same bytes are the same bytes.
// A record of the older layout, without sums, gives none; a record that
// cannot be read gives none (a new mtime is what a part had without it).
func (t *partTimes) load(cfg *config.Config) {
	if t.loaded {
		return
	}
	t.loaded = true
	t.byName = map[string]landing{}
	if cfg.StateDir == "" {
		return
	}
	b, err := safefile.ReadFile(filepath.Join(cfg.StateDir, groupsName), maxGroupsSize, safefile.NoFollow)
	if err != nil {
		return
	}
	var rec groupsRecord
	if json.Unmarshal(b, &rec) != nil || rec.Version > groupsVersion {
		return
	}
	t.old = rec.Groups
	for _, g := range rec.Groups {
		for _, p := range g.Parts {
			if p.Sum != "" && p.MTime != 0 {
				t.byName[p.Name] = landing{sum: p.Sum, mtime: p.MTime}
			}
		}
	}
}

// keep has a part staged anew (its file changes) land with the mtime it
// had when it last held the same bytes (sum), if it did. A time that
// cannot be set is logged: the part lands all the same, with a new one.
func (t *partTimes) keep(cfg *config.Config, log *zap.Logger, batch *publish.Batch, name, sum string) {
	t.load(cfg)
	l, ok := t.byName[name]
	if !ok || l.sum != sum {
		return
	}
	if _, err := batch.SetModTime(name, time.Unix(0, l.mtime)); err != nil {
		log.Warn("sitemap rewritten with the same bytes takes a new mtime, so a new lastmod in the index", zap.String("name", name), zap.Error(err))
	}
}

// land notes a group's parts as they landed (their files stated).
func (t *partTimes) land(cfg *config.Config, parts []part) {
	t.load(cfg)
	for _, p := range parts {
		if p.sum != "" && p.file.mtime != 0 {
			t.byName[p.name] = landing{sum: p.sum, mtime: p.file.mtime}
		}
	}
}

// save writes the groups record after a daemon's publish that changed
// outputs, with each group's parts as published (groups): what a process
// started after a release swap needs to keep their mtimes. The digests
// are not known (0: the record's shortcut of `sitemapd build` takes none
// of these groups, unchanged.go), since the daemon does not hash every
// listing of its groups. It costs a write of some 150 bytes a part of the
// site, not synced: it is rewritten at every such publish, and a record
// lost costs mtimes, never truth. A group whose
// parts as they landed are not known (its files failed) keeps what the
// record said of it.
func (t *partTimes) save(cfg *config.Config, log *zap.Logger, groups map[string]*group) {
	if cfg.StateDir == "" {
		return
	}
	t.load(cfg)
	if st, err := os.Stat(cfg.StateDir); err != nil || !st.IsDir() {
		return
	}
	if t.key == "" {
		t.key = groupsKey(cfg)
	}
	rec := &groupsRecord{Version: groupsVersion, Key: t.key, Groups: map[string]groupRecord{}}
	for dir, g := range groups {
		if gr, ok := recordOf(g, 0); ok {
			rec.Groups[dir] = gr
		} else if old, ok := t.old[dir]; ok {
			old.Digest = 0
			rec.Groups[dir] = old
		}
	}
	path := filepath.Join(cfg.StateDir, groupsName)
	if err := writeGroups(path, rec, publish.SyncNone); err != nil {
		log.Warn("groups record not written: sitemaps written again with the same bytes after a restart take new mtimes", zap.String("path", path), zap.Error(err))
	}
}

// recordOf is a group's entry in the groups record (digest, that of its
// listings, 0 when not known); ok is false when its parts as they landed
// are not all known.
func recordOf(g *group, digest uint64) (groupRecord, bool) {
	if g == nil || len(g.published) == 0 {
		return groupRecord{}, false
	}
	gr := groupRecord{Digest: digest, URLs: g.urls}
	for _, p := range g.published {
		if p.file == (fileStamp{}) {
			return groupRecord{}, false
		}
		gr.Parts = append(gr.Parts, partRecord{
			Name: p.name, First: p.first, Last: p.last, N: p.n, Ends: p.ends, Sum: p.sum,
			Ino: p.file.ino, Size: p.file.size, MTime: p.file.mtime, CTime: p.file.ctime,
		})
	}
	return gr, true
}
