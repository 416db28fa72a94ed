package scan

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/publish"
	"github.com/sitemapd/sitemapd/internal/sitemap"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// Group is the content of one sitemap group: the pages of one directory
// (and, at the fold depth, of its whole subtree), as URLs in no order.
type Group struct {
	// Dir is the group's directory relative to the root, slash-separated;
	// "" is the root. The group's sitemap lives in this directory.
	Dir string
	// URLs are the group's, in no order; a group Tree hands over has
	// only those of directories not recorded until AddURLs.
	URLs []sitemap.URL
	// FromView is set when URLs and Due are not computed (Refresh): they
	// are those of the pages of the Update's View (Scanner.AppendURLs), which a
	// change may compute in part only (URLsIn).
	FromView bool
	// Err is set when part of the group could not be read; its URLs are
	// then incomplete and must not replace a published sitemap.
	Err error
	// Own are sitemapd's outputs met in the group's directories, Temps its
	// temp files (paths relative to the root); only when outputs are
	// written into the document root.
	Own, Temps []string
	// Links are the directories (relative to the real root) that followed
	// symlinks list pages of: changes there change this group too.
	Links []string
	// Listings are the directories read, for the daemon's memory of the
	// tree (WalkOptions.Record only).
	Listings map[string]*tree.Listing
	// DatedURLs are the URLs, among those of directories not recorded,
	// of the pages whose lastmod is the date their head states
	// (tree.Page.Dated); those of the others are in Listings
	// (tree.Listing.Dated).
	DatedURLs []string
	// Articles are the news articles (news.publication) of the pages
	// listed of directories not recorded, whose listings are not kept;
	// those of the others are in Listings (tree.Listing.Articles).
	Articles []Article
	// Left are the pages the read left out, though their files exist.
	Left LeftOut
	// Due is the earliest time still to come of a page it lists (Unix
	// nanoseconds; 0 for none): the page has no lastmod until then.
	Due int64
	// Relinked are pages with other names (hard links) whose file changed:
	// their other names changed too.
	Relinked []Relinked
	// Linked are page files with other names (hard links) met under a
	// name nothing knows (new, or left out): if the engine knows the file
	// under its other names with another stamp, they changed too.
	Linked []Linked

	gone    []string     // directories found missing (record mode)
	pending atomic.Int64 // directory visits not yet finished
	mu      sync.Mutex
}

// Article is a page of a group that is a news article: its directory
// (relative to the root), name and what it keeps of the article
// (tree.Head.News).
type Article struct{ Dir, Name, News string }

// Relinked is a page with more than one name whose file changed.
type Relinked struct {
	Dir, Name string    // the name it was read by
	Was       tree.Page // what was known of it
}

// Linked is a page file with other names met under a name nothing knows.
type Linked struct {
	Dir, Name string // the name it was met by
	Stamp     uint64 // tree.Stamp of its mtime and size now
	MTime     int64  // its mtime now (Unix ns), for what is known without stamps
	Dev, Ino  uint64 // the file
}

// due notes a page time still to come; g.mu must be held.
func (g *Group) due(t int64) {
	if g.Due == 0 || t < g.Due {
		g.Due = t
	}
}

// FollowsLinks reports whether the group lists pages through symlinks.
func (g *Group) FollowsLinks() bool { return len(g.Links) > 0 }

func (g *Group) fail(err error) {
	g.mu.Lock()
	g.Err = errors.Join(g.Err, err)
	g.mu.Unlock()
}

// visit is one directory to read.
type visit struct {
	rel     string // relative to the root, slash-separated
	depth   int
	group   *Group
	viaLink bool   // reached through a symlinked directory
	parent  *visit // ancestors, for loop detection
	id      tree.DirID
}

// WalkOptions adjust a Walk.
type WalkOptions struct {
	// Now is the time lastmods are compared with (tree.LastMod); a time
	// after it is compared with Clock (nil: time.Now) before it counts as
	// one to come.
	Now   time.Time
	Clock func() time.Time
	// Record keeps each directory's Listing in its Group.
	Record bool
	// StalePrints says the prints of what Known returns were made under
	// another template model than the scanner's (a model learnt anew, a
	// store that had none): they are not compared, as if none were known;
	// a page of the same bytes keeps its time and gets a new print.
	StalePrints bool
	// DeferPrints has the walk make no print (the daemon's first build
	// of a site with no template model yet: no print is known to compare
	// with, so none is needed to publish). A page of the same bytes as
	// known keeps its time and its print, if it has one; the pages left
	// without are read again for one by the next walk that does not
	// defer. It spares the first publish a second parse of every page
	// and the model's learning.
	DeferPrints bool
	// Sample, if set, is the pages the scanner's model was just learnt
	// from (Learn): those found with the same bytes are printed from it,
	// not read again. The walk drops it when the tree is read.
	Sample *Sample
	// Judged, if set, is told of each page read again whose bytes
	// changed: whether its lastmod moved, and why (sitemapd plan).
	// Calls come from the walk's goroutines, at once.
	Judged func(Judgement)
	// Quiet counts heads longer than head.Limit for Summary instead of
	// warning of each (a full build).
	Quiet bool
	// Known, if set, returns what is known of a directory's pages (nil
	// for nothing): a page whose file has the stamp known is not read
	// again, and a page rewritten with the same bytes keeps its time.
	Known func(dir string) *tree.Listing
	// Busy, if set, reports whether a page (its root-relative path) is
	// still being written (watch.Batch.Busy): it is not read, and keeps
	// what is known of it (busy.go).
	Busy func(rel string) bool
	// Unseen, in the daemon's publish of a watcher's batch, is the time
	// after which a change may not be in the batch (when it was made,
	// less watch.settle): a page whose file changed after it is busy
	// (busy.go), and so is an empty file.
	Unseen time.Time
}

// Walk is one read of the tree, or of part of it. Its methods must not be
// called at once.
type Walk struct {
	s        *Scanner
	o        WalkOptions
	ctx      context.Context
	realRoot string // root with symlinks resolved
	sem      chan struct{}
	wg       sync.WaitGroup
	done     func(*Group)
	single   bool // read one group only: do not enter directories that start another
	// Groups read at once (admit): at most maxGroups, the others queued.
	groupsMu  sync.Mutex
	reading   int
	maxGroups int
	queued    []*visit
	// known, if set, names directories already remembered: the walk lists
	// them as subdirectories but does not enter them (an incremental
	// refresh of one directory).
	known func(rel string) bool
	files atomic.Int64 // entries seen, for progress reports
	// truncated counts heads cut at head.Limit; future, pages whose time
	// is still to come.
	truncated atomic.Int64
	future    futures
	// log is the scanner's logger with its warnings held back and logged
	// once a kind at the end (Summary).
	log       *zap.Logger
	collapsed collapser
}

// NewWalk starts a walk; ctx cancels it (the groups then have Err set).
func (s *Scanner) NewWalk(ctx context.Context, o WalkOptions) (*Walk, error) {
	real, err := filepath.EvalSymlinks(s.cfg.Root)
	if err != nil {
		return nil, fmt.Errorf("resolve document root: %w", err)
	}
	w := &Walk{
		s: s, o: o, ctx: ctx, realRoot: real,
		sem: make(chan struct{}, 2*runtime.GOMAXPROCS(0)),
		// As many groups as cores: enough to keep them busy between
		// groups, few enough that a build's memory is a few groups'.
		maxGroups: max(2, runtime.GOMAXPROCS(0)),
		done:      func(*Group) {},
	}
	w.log = w.collapsed.logger(s.log)
	return w, nil
}

// Tree reads the whole tree and hands each group to done as soon as it is
// read, from any goroutine, one at a time or at once. It returns when all
// are read. A recorded group's URLs are added when it is taken (AddURLs).
func (w *Walk) Tree(done func(*Group)) {
	w.done = done
	w.walk("", &Group{Dir: ""})
	// All read: what the sample holds still (pages the walk did not
	// meet) is of no more use, and whoever keeps the walk keeps no page.
	w.o.Sample = nil
}

// Group reads the pages of one group (as tree.Depth names it), with its
// URLs. A group whose directory does not exist is empty.
func (w *Walk) Group(dir string) *Group {
	w.single = true
	g := &Group{Dir: dir}
	w.walk(dir, g)
	w.AddURLs(g)
	return g
}

// Entries is the number of directory entries seen so far, for progress
// reports; it may be read while the walk runs.
func (w *Walk) Entries() int64 { return w.files.Load() }

// walk reads the subtree at rel, which is group g's directory (or, for a
// folded directory, a directory inside g), and waits until it is read.
func (w *Walk) walk(rel string, g *Group) {
	depth := 0
	if rel != "" {
		depth = strings.Count(rel, "/") + 1
	}
	w.admit(&visit{rel: rel, depth: depth, group: g})
	w.wg.Wait()
}

func (w *Walk) start(v *visit) {
	v.group.pending.Add(1)
	w.wg.Add(1)
	select {
	case w.sem <- struct{}{}:
		go func() {
			w.visit(v)
			<-w.sem
		}()
	default:
		w.visit(v)
	}
}

func (w *Walk) finish(v *visit) {
	if g := v.group; g.pending.Add(-1) == 0 {
		w.done(g)
		w.groupRead()
	}
	w.wg.Done()
}

func (w *Walk) abs(rel string) string { return w.s.abs(rel) }

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// noteOwn records sitemapd's own files met in the walk, so that stale ones
// can be removed.
func (w *Walk) noteOwn(v *visit, name string) {
	if !w.s.ownInRoot || v.viaLink {
		// Outputs live elsewhere (the caller scans that tree itself), or
		// this is a symlinked view of a directory whose outputs belong to
		// whichever group walks it for real.
		return
	}
	var list *[]string
	switch {
	case publish.IsTemp(name):
		list = &v.group.Temps
	case w.s.filter.names.Kind(name).Parted():
		list = &v.group.Own
	default:
		return
	}
	v.group.mu.Lock()
	*list = append(*list, joinRel(v.rel, name))
	v.group.mu.Unlock()
}

// descend starts the visit of a subdirectory, in a group of its own if it
// is a real directory no deeper than the fold depth. Directories reached
// through a symlink stay in the group that holds the link: a sitemap written
// into them would land in the link's target, which may have a group of its
// own.
func (w *Walk) descend(v *visit, rel string, viaLink bool) {
	child := &visit{rel: rel, depth: v.depth + 1, group: v.group, viaLink: viaLink, parent: v}
	if !viaLink && child.depth <= int(w.s.depth) {
		if w.single {
			return
		}
		child.group = &Group{Dir: rel}
		w.admit(child)
		return
	}
	if w.known != nil && !viaLink && w.known(rel) {
		return
	}
	w.start(child)
}

// linkFault is why a symlink is not followed.
type linkFault int

const (
	linkFollowed linkFault = iota
	linkBroken             // its target does not resolve
	linkOut                // it resolves outside the document root
)

// followLink stats a symlink's target, accepting it only if it resolves
// inside the document root. target is the target's path relative to the
// (resolved) root. A link that leaves the root returns its fault with the
// stat of its target, if any (a directory's tells what was not followed),
// and real, the resolved path; a broken one, its fault and the error.
func (w *Walk) followLink(rel string) (st fs.FileInfo, target, real string, fault linkFault, err error) {
	p := w.abs(rel)
	real, err = filepath.EvalSymlinks(p)
	if err != nil {
		return nil, "", "", linkBroken, err
	}
	if real != w.realRoot && !strings.HasPrefix(real, w.realRoot+"/") {
		st, _ = os.Stat(real) // its type only: nothing there is read
		return st, "", real, linkOut, nil
	}
	if st, err = os.Stat(real); err != nil {
		return nil, "", "", linkBroken, err
	}
	return st, strings.TrimPrefix(strings.TrimPrefix(real, w.realRoot), "/"), real, linkFollowed, nil
}
