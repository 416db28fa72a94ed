package build

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"

	"go.uber.org/zap"
	"gopkg.in/yaml.v3"

	"github.com/sitemapd/sitemapd/internal/publish"
	"github.com/sitemapd/sitemapd/internal/safefile"
	"github.com/sitemapd/sitemapd/internal/scan"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// A full build without memory (`sitemapd build`) would encode every
// group's sitemap and compare it with its files: on a large site that
// is most of a build that changes nothing. The groups record
// (state_dir/groups.json) says, of each group the last build published,
// the digest of what its URLs were computed from (tree.Listing.Digest) and
// its parts as they landed. A build whose walk finds a group with the same
// digest, under the same configuration and the same sitemapd, no page of
// it still to come, and every part's file as it landed (fileStamp: an
// edit, even one that restores size and mtime, changes its ctime), knows
// the group's files hold what it would write, and keeps them without
// encoding a byte. Anything in doubt is encoded as without the record: a
// record lost, damaged or stale costs time, never truth.

// groupsName is the record's file name in state_dir.
const groupsName = "groups.json"

// maxGroupsSize bounds what is read of the record: some 100 bytes a group
// and a part, so a gigabyte is far past any real site's.
const maxGroupsSize = 1 << 30

// groupsVersion is the record's layout; another is not used.
const groupsVersion = 1

type groupsRecord struct {
	Version int `json:"version"`
	// Key is what the record was written under: the configuration and
	// the program (groupsKey).
	Key    string                 `json:"key"`
	Groups map[string]groupRecord `json:"groups"`
}

type groupRecord struct {
	Digest uint64       `json:"digest"`
	URLs   int          `json:"urls"`
	Parts  []partRecord `json:"parts"`
}

type partRecord struct {
	Name  string `json:"name"`
	First string `json:"first"`
	Last  string `json:"last"`
	N     int    `json:"n"`
	Ends  bool   `json:"ends,omitempty"`
	// Sum is the sum of the file's bytes (partSum; landings.go), so that
	// a part written anew with them keeps its mtime. A record written
	// before it has none, and is read all the same.
	Sum string `json:"sum,omitempty"`
	// The file as it landed (fileStamp).
	Ino   int64 `json:"ino"`
	Size  int64 `json:"size"`
	MTime int64 `json:"mtime"`
	CTime int64 `json:"ctime"`
}

// groupsKey is what a group's files depend on beyond its pages: the
// whole configuration (more than the files depend on: a change of notify
// only costs one build its shortcut) and the program that encodes them,
// as built (its version and revision) and as installed (the executable's
// size and mtime: a rebuilt binary of the same revision is another). ""
// when the program cannot be told.
func groupsKey(cfg any) string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	st, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	c, err := yaml.Marshal(cfg)
	if err != nil {
		return ""
	}
	h := sha256.New()
	h.Write(c)
	if bi, ok := debug.ReadBuildInfo(); ok {
		fmt.Fprintf(h, "\n%s %s %s", bi.GoVersion, bi.Main.Version, bi.Main.Sum)
		for _, s := range bi.Settings {
			fmt.Fprintf(h, " %s=%s", s.Key, s.Value)
		}
	}
	fmt.Fprintf(h, "\n%s %d %d", exe, st.Size(), st.ModTime().UnixNano())
	return hex.EncodeToString(h.Sum(nil))
}

// loadRecord reads the groups record for a full build without memory
// that keeps a page store (store: the digests need the walk's listings);
// other publishes neither use nor write it. A dry run keeps no store.
//
// Read as every state file is (safefile): not through a link, never a FIFO
// (which would hold the build before it begins), and at most maxGroupsSize.
func (ps *pageCache) loadRecord(store bool) {
	ps.recorded = nil
	if ps.mem != nil || !store {
		return
	}
	key := groupsKey(ps.cfg)
	if key == "" {
		return
	}
	ps.recorded = &groupsRecord{Version: groupsVersion, Key: key, Groups: map[string]groupRecord{}}
	path := filepath.Join(ps.cfg.StateDir, groupsName)
	b, err := safefile.ReadFile(path, maxGroupsSize, safefile.NoFollow)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	var old groupsRecord
	if err == nil {
		err = json.Unmarshal(b, &old)
	}
	switch {
	case err != nil:
		ps.log.Info("groups record not used: every group is encoded", zap.String("path", path), zap.Error(err))
	case old.Version != groupsVersion || old.Key != key:
		ps.log.Debug("groups record not used: written under another configuration or sitemapd", zap.String("path", path))
	default:
		ps.recorded.Groups = old.Groups
	}
}

// groupDigest is the digest of what a group's URLs are computed from: its
// directories' listings, in any order.
func groupDigest(listings map[string]*tree.Listing) uint64 {
	var d uint64
	for dir, l := range listings {
		d += l.Digest(dir)
	}
	return d
}

// unchanged reports whether a group the walk handed over may keep its
// files as they are (see above), and what the record says of it.
func (ps *pageCache) unchanged(g *scan.Group, digest uint64) (groupRecord, bool) {
	if ps.recorded == nil {
		return groupRecord{}, false
	}
	rec, ok := ps.recorded.Groups[g.Dir]
	if !ok || rec.Digest != digest || !ps.keepable(g, rec) {
		return groupRecord{}, false
	}
	return rec, true
}

// keepable reports whether a group the walk handed over, whose pages give
// the URL entries rec's parts were encoded from, may keep those files as
// they are: they landed as rec says, and nothing but its listings goes
// into them.
func (ps *pageCache) keepable(g *scan.Group, rec groupRecord) bool {
	switch {
	case rec.Digest == 0, len(rec.Parts) == 0,
		g.Err != nil, g.Due != 0, len(g.URLs) > 0, g.FollowsLinks(), len(g.Relinked) > 0, len(g.Linked) > 0,
		ps.cfg.TextSitemaps(), feedOn(ps.cfg):
		// Text sitemaps and the feed are made from the URLs; pages
		// through symlinks and other names have no listing of their own
		// (g.URLs), or lead elsewhere.
		return false
	}
	for _, p := range rec.Parts {
		if ps.disk.stamp(p.Name) != p.stamp() {
			return false
		}
	}
	return true
}

// keepGroup publishes a group unchanged: its parts stay as they are.
func (e *Engine) keepGroup(r *run, g *scan.Group, rec groupRecord) {
	r.left.Merge(&g.Left)
	parts := make([]part, len(rec.Parts))
	for i, p := range rec.Parts {
		parts[i] = part{name: p.Name, first: p.First, last: p.Last, n: p.N, ends: p.Ends, sum: p.Sum, file: p.stamp()}
	}
	r.account(e.cfg.BaseURL, g, rec.URLs, rec.URLs, nil)
	r.rep.Unchanged += len(parts)
	st := staging{urls: rec.URLs, parts: parts, news: e.news.articles(g, nil, r.now), left: e.model.left.next(g, nil, rec.URLs)}
	if e.model.mem != nil {
		// A daemon's (asRemembered): memory takes the listings read,
		// with what they know of each page that no URL says (its print).
		st.upd = tree.WholeUpdate(g.Listings, g.FollowsLinks())
	}
	e.noteStaged(r, g, st, partNames(parts))
}

func (p partRecord) stamp() fileStamp {
	return fileStamp{ino: p.Ino, size: p.Size, mtime: p.MTime, ctime: p.CTime}
}

// saveRecord writes the groups record after a full build: each group
// the build published (or kept) whole, with its parts as they landed
// (groups, as published now; digests, the build's; kept, the groups that
// failed).
func (ps *pageCache) saveRecord(groups map[string]*group, digests map[string]uint64, kept map[string]bool) {
	if ps.recorded == nil {
		return
	}
	rec := &groupsRecord{Version: groupsVersion, Key: ps.recorded.Key, Groups: map[string]groupRecord{}}
	for dir, digest := range digests {
		g := groups[dir]
		if g == nil || g.failed || kept[dir] || len(g.published) == 0 || len(g.textParts) > 0 || g.urls < 0 || g.due != 0 {
			// Not kept whole, or not known; or with a page still to come,
			// whose lastmod is to come with it.
			continue
		}
		if gr, ok := recordOf(g, digest); ok {
			rec.Groups[dir] = gr
		}
	}
	ps.recorded = nil
	path := filepath.Join(ps.cfg.StateDir, groupsName)
	if err := writeGroups(path, rec, publish.SyncPerFile); err != nil {
		ps.log.Warn("groups record not written: the next build encodes every group", zap.String("path", path), zap.Error(err))
	}
}

// writeGroups writes the record at path (a state file: a reader finds the
// old record or the new one).
func writeGroups(path string, rec *groupsRecord, sync publish.SyncMode) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return publish.WriteState(path, b, sync)
}
