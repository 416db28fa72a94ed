package build

import (
	"slices"
	"sort"

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
	sum         string    // its bytes' sum (partSum), for the mtime of a rewrite of the same bytes; "" when not known
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
	if r.full || !e.out.lands() || e.model.mem == nil || e.cfg.TextSitemaps() || feedOn(e.cfg) || u == nil || u.Whole || u.View == nil ||
		st.published == nil || st.failed || (st.due != 0 && st.due <= r.now.UnixNano()) || r.alts.whole[dir] {
		return nil
	}
	before := e.model.remembered(dir)
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
// and returns all its parts, cut as encoding all its URLs would cut them
// (no chunks: text sitemaps, which need them, rule it out). Parts are cut
// where the URLs say (sitemap.Chunks): a part's end depends on its own
// URLs, and on the URL after it only when it is not cut (Chunk.Sized, or
// the last part). So the parts that hold a touched URL (or whose file is
// no longer as it landed) are cut again from the URLs of their span only,
// starting where the part before them ends, until a cut falls where an
// untouched part begins; the parts after it are as they were, and are not
// read.
func (e *Engine) encodeLocal(r *run, dir string, l *localParts) (encoded, error) {
	var enc encoded
	add := func(p part) {
		enc.names, enc.parts, enc.n = append(enc.names, p.name), append(enc.parts, p), enc.n+p.n
	}
	old := l.old
	k := len(old)
	hit := e.hits(l)
	for i := 0; i <= k; {
		if !hit[i] {
			if i == k {
				break // nothing after the last part
			}
			add(old[i])
			r.rep.Unchanged++
			i++
			continue
		}
		j, chunks := e.recut(r, l, hit, i)
		for _, c := range chunks {
			p, ch, err := e.encodePart(r, e.extras.partName(dir, c.Key), c)
			if err != nil {
				return encoded{}, err
			}
			add(p)
			enc.changed = enc.changed || ch
		}
		i = j + 1
	}
	return enc, nil
}

// hits says which of a group's parts a change must cut again: hit[i] for
// part i, hit[len(l.old)] when URLs come after the last. A part is hit by
// a URL touched in its span, by its file no longer as it landed, or by a
// hit on the part after it when its own end depends on what follows.
func (e *Engine) hits(l *localParts) []bool {
	old := l.old
	k := len(old)
	hit := make([]bool, k+1)
	for _, t := range l.touched {
		// A URL after one part's last and up to the next's is in the
		// next part's span.
		hit[sort.Search(k, func(i int) bool { return old[i].last >= t })] = true
	}
	for i := range old {
		if !hit[i] && (old[i].file == (fileStamp{}) || e.disk.stamp(old[i].name) != old[i].file) {
			hit[i] = true // edited, replaced or removed meanwhile: repaired
		}
	}
	for i := k - 1; i >= 0; i-- {
		if hit[i+1] && !old[i].ends {
			hit[i] = true
		}
	}
	return hit
}

// recut cuts again the URLs of the span of hit parts that begins with
// part i, extending it (and marking hit) while its last cut does not fall
// where an untouched part begins. It returns the span's last part and its
// chunks.
func (e *Engine) recut(r *run, l *localParts, hit []bool, i int) (int, []sitemap.Chunk) {
	old := l.old
	k := len(old)
	j := i
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
		r.alts.filter(urls)
		chunks := sitemap.Chunks(urls, e.cfg.PartSize)
		// The part after the span begins where it did only if the
		// span ends with a cut (or holds nothing, so ends where the
		// part before it does).
		if j >= k-1 || len(chunks) == 0 || chunks[len(chunks)-1].Key != "" {
			return j, chunks
		}
		j++
		hit[j] = true
	}
}

// landed records the parts of a group whose files landed: those not known
// to be unchanged are stated now.
func landed(disk onDisk, g *group, parts []part) {
	for i := range parts {
		if parts[i].file == (fileStamp{}) {
			parts[i].file = disk.stamp(parts[i].name)
		}
	}
	g.published = parts
}
