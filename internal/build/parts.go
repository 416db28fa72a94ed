package build

import (
	"slices"
	"sort"
	"syscall"

	"github.com/sitemapd/sitemapd/internal/scan"
	"github.com/sitemapd/sitemapd/internal/sitemap"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// part is what the daemon's engine remembers of one sitemap part its group
// published: its name, the URLs it begins and ends with, and its file as it
// landed. With it, a change re-encodes only the parts whose URL ranges it
// touched, and leaves the others unread.
type part struct {
	name        string
	first, last string    // the Locs of its first and last URL
	n           int       // URLs it lists
	ends        bool      // cut by its own URLs (sitemap.Chunks): it ends where it does whatever follows
	file        fileStamp // the file as it landed; zero when not known
}

// fileStamp tells a file from any other: a part whose file still has the
// stamp it had when it landed holds the bytes sitemapd wrote. The change
// time cannot be set back, so an edit that restores size and mtime still
// shows.
type fileStamp struct {
	ino, size    int64
	mtime, ctime int64
}

// stampOf stats a part's file; the zero stamp, which matches none, when it
// cannot.
func (e *Engine) stampOf(name string) fileStamp {
	fi, err := e.pub.Stat(name)
	if err != nil || !fi.Mode().IsRegular() {
		return fileStamp{}
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileStamp{}
	}
	return fileStamp{
		ino: int64(st.Ino), size: st.Size,
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(),
	}
}

// localParts is what a change needs to encode the parts it touched only:
// the group's parts as remembered, the sorted Locs of the pages it touched
// (added, removed, or with another time or head), and the group's
// directories as they will be.
type localParts struct {
	old     []part
	touched []string
	view    map[string]*tree.Listing
}

// local returns what a change of a remembered group needs to encode only
// the parts it touched, or nil when every part must be encoded and
// compared with its file: a full build (which is what repairs a part
// edited or removed behind sitemapd's back), a dry run, text sitemaps on
// (each part has a text twin), the feed on (its entries are the group's
// latest, from all its URLs), a group read whole, not remembered, whose
// parts are not known, or holding a page whose time has come since (its
// URL changes without a change to its directory).
func (e *Engine) local(r *run, dir string, st *group, u *tree.Update) *localParts {
	if r.full || e.dry != nil || e.mem == nil || e.cfg.TextSitemaps() || e.feedOn() || u == nil || u.Whole || u.View == nil ||
		st.published == nil || st.failed || (st.due != 0 && st.due <= r.now.UnixNano()) {
		return nil
	}
	before := e.remembered(dir)
	if before == nil {
		return nil
	}
	return &localParts{old: st.published, touched: e.touched(before, u.View), view: u.View}
}

// touched lists, sorted, the Locs of the pages whose URL entries may differ
// between two pictures of a group: a page's entry is a function of its
// directory, name, time and head (and of the configuration and, for a page
// still to come, the time now, which local rules out), so pages equal in
// all of these have equal entries. Listings the two share are skipped.
func (e *Engine) touched(old, cur map[string]*tree.Listing) []string {
	var locs []string
	tree.Pair(old, cur, func(dir, name string, _, _ tree.Entry) {
		locs = append(locs, e.scan.PageLoc(dir, name))
	})
	slices.Sort(locs)
	return locs
}

// encodeLocal encodes and stages the parts of a group a change touched,
// and returns all its parts, cut as encoding all its URLs would cut them,
// and how many URLs they list. Parts are cut where the
// URLs say (sitemap.Chunks): a part's end depends on its own URLs, and on
// the URL after it only when it is not cut (Chunk.Sized, or the last
// part). So the parts that hold a touched URL (or whose file is no longer
// as it landed) are cut again from the URLs of their span only, starting
// where the part before them ends, until a cut falls where an untouched
// part begins; the parts after it are as they were, and are not read.
func (e *Engine) encodeLocal(r *run, dir string, l *localParts) (names []string, parts []part, changed bool, n int, err error) {
	old := l.old
	k := len(old)
	// hit[i]: part i must be cut again; hit[k]: URLs come after the last.
	hit := make([]bool, k+1)
	for _, t := range l.touched {
		// A URL after one part's last and up to the next's is in the
		// next part's span.
		hit[sort.Search(k, func(i int) bool { return old[i].last >= t })] = true
	}
	for i := range old {
		if !hit[i] && (old[i].file == (fileStamp{}) || e.stampOf(old[i].name) != old[i].file) {
			hit[i] = true // edited, replaced or removed meanwhile: repaired
		}
	}
	for i := k - 1; i >= 0; i-- {
		if hit[i+1] && !old[i].ends {
			hit[i] = true
		}
	}
	for i := 0; i <= k; {
		if !hit[i] {
			if i == k {
				break // nothing after the last part
			}
			p := old[i]
			names, parts, n = append(names, p.name), append(parts, p), n+p.n
			r.rep.Unchanged++
			i++
			continue
		}
		j := i
		var chunks []sitemap.Chunk
		for {
			for j < k && hit[j+1] {
				j++
			}
			sp := scan.Span{FromStart: i == 0, ToEnd: j == k}
			if i > 0 {
				sp.After = old[i-1].last
			}
			if !sp.ToEnd {
				sp.Through = old[j].last
			}
			urls := sortURLs(e.scan.URLsIn(l.view, sp, r.now))
			chunks = sitemap.Chunks(urls, e.cfg.PartSize)
			// The part after the span begins where it did only if the
			// span ends with a cut (or holds nothing, so ends where the
			// part before it does).
			if j >= k-1 || len(chunks) == 0 || chunks[len(chunks)-1].Key != "" {
				break
			}
			j++
			hit[j] = true
		}
		for _, c := range chunks {
			p, ch, err := e.encodePart(r, e.partName(dir, c.Key), c)
			if err != nil {
				return nil, nil, false, 0, err
			}
			names, parts, changed, n = append(names, p.name), append(parts, p), changed || ch, n+p.n
		}
		i = j + 1
	}
	return names, parts, changed, n, nil
}

// landed records the parts of a group whose files landed: those not known
// to be unchanged are stated now.
func (e *Engine) landed(g *group, parts []part) {
	for i := range parts {
		if parts[i].file == (fileStamp{}) {
			parts[i].file = e.stampOf(parts[i].name)
		}
	}
	g.published = parts
}
