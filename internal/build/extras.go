package build

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/changeset"
	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/outname"
	"github.com/sitemapd/sitemapd/internal/publish"
	"github.com/sitemapd/sitemapd/internal/safefile"
	"github.com/sitemapd/sitemapd/internal/sitemap"
	"github.com/sitemapd/sitemapd/internal/siteurl"
	"github.com/sitemapd/sitemapd/internal/urlfile"
)

// This file publishes what is not a file of the document root: the
// sitemaps of extra_urls files, each at the root of the output under its
// own name (outname.Site.Extra), cut into parts like a group's; and the
// applications' sitemaps of extra_sitemaps, which sitemapd lists in the
// index but never writes nor removes.
//
// A URL file is to its sitemap what a group's directories are to theirs:
// its sitemap is a pure function of its bytes (and of the time, for a date
// still to come); one that cannot be read (missing, unreadable) fails
// alone and keeps the sitemap it published, as a group that cannot be read
// does, so that a file lost by mistake does not empty a site: emptying the
// file, or taking it out of extra_urls, is how its URLs go.

// urlFile is what the engine knows of one extra_urls file between
// publishes.
type urlFile struct {
	file   string        // absolute path
	name   string        // its sitemap's name, without .gz (outname.Site.Extra)
	parts  []string      // its sitemap's files as last published; nil: not known, found on disk
	listed []sitemap.URL // what those files list; nil unless known
	known  bool          // listed is known (a publish of this engine landed)
	failed bool          // its last read or publish failed
	urls   int           // URLs listed; -1 when not known
	due    int64         // when its first date still to come is due (Unix ns), 0 for none
}

// urlStaging is what a URL file's publish changes once its files land.
type urlStaging struct {
	changes changeset.Changes
	listed  []sitemap.URL
	due     int64
}

// urlRun is a publish's share of URL files: what it staged, and the
// states the files take when it commits (next); a publish that does not
// commit leaves them as they were.
type urlRun struct {
	staged map[*urlFile]urlStaging
	next   map[*urlFile]*urlFile
	gone   changeset.Changes // the URLs of sitemaps of files no longer configured
}

// state returns the state a URL file is to take at the commit, a copy
// of its state now until then.
func (u *urlRun) state(x *urlFile) *urlFile {
	if u.next == nil {
		u.staged, u.next = map[*urlFile]urlStaging{}, map[*urlFile]*urlFile{}
	}
	n := u.next[x]
	if n == nil {
		c := *x
		n = &c
		u.next[x] = n
	}
	return n
}

// extras are what the engine lists that is not a file of the document
// root: the extra_urls files, whose sitemaps it writes, and the apps'
// sitemaps of extra_sitemaps, which it lists in the index but never
// writes nor removes.
type extras struct {
	cfg   *config.Config
	names *outname.Site
	files []*urlFile      // extra_urls, in the configuration's order
	apps  map[string]bool // extra_sitemaps on the output tree, by path from its root
	locs  []string        // extra_sitemaps as <loc>s, sorted
}

// newExtras sets up the URL files and the paths of the apps' sitemaps,
// from the configuration.
func newExtras(cfg *config.Config, names *outname.Site, loc *siteurl.Locator) *extras {
	x := &extras{cfg: cfg, names: names, apps: map[string]bool{}}
	for _, f := range cfg.ExtraURLs {
		x.files = append(x.files, &urlFile{file: f, name: names.Extra(f), urls: -1})
	}
	for _, raw := range cfg.ExtraSitemaps {
		l, err := cfg.SiteURL(raw) // checked by config.Load
		if err != nil {
			continue
		}
		x.locs = append(x.locs, l)
		if p, ok := loc.SitePath(l); ok {
			if rel, err := url.PathUnescape(strings.TrimPrefix(p, "/")); err == nil {
				x.apps[rel] = true
			}
		}
	}
	slices.Sort(x.locs)
	return x
}

// partName is the file name of a group's part of key: outname.Chunk's,
// except that the last part of a group whose sitemap's path is an app's
// sitemap (extra_sitemaps) is named by outname.OwnKey, leaving the app's
// file alone.
func (x *extras) partName(dir, key string) string {
	name := path.Join(dir, x.names.Out(outname.Chunk(x.names.Sitemap(), key)))
	if key == "" && x.apps[name] {
		name = path.Join(dir, x.names.Out(outname.Chunk(x.names.Sitemap(), outname.OwnKey)))
	}
	return name
}

// appHint adds to the refusal of a foreign file in the way of a group's
// sitemap how to have it listed instead, when it may be an app's.
func (x *extras) appHint(err error) error {
	var fe *publish.ForeignError
	if errors.As(err, &fe) && outname.IsPart(filepath.Base(fe.Path), x.names.Sitemap()) {
		return fmt.Errorf("%w (if an application writes it, list its URL in extra_sitemaps: sitemapd then lists it in the index and writes the group's own as %s)",
			err, x.names.Out(outname.Chunk(x.names.Sitemap(), outname.OwnKey)))
	}
	return err
}

// UpdateURLFiles republishes the sitemaps of the given extra_urls files
// (absolute paths as configured; others are ignored) after they changed,
// and the index.
func (e *Engine) UpdateURLFiles(ctx context.Context, files []string) (*Report, error) {
	if err := e.checkOutput(); err != nil {
		return nil, err
	}
	r := e.begin(false)
	for _, x := range e.extras.files {
		if slices.Contains(files, x.file) {
			e.publishURLFile(r, x)
		}
	}
	if err := ctx.Err(); err != nil {
		e.abort(r)
		return nil, err
	}
	return e.finish(r)
}

// publishURLFiles publishes the URL files a publish reads: every one in a
// full build, those with a date come due otherwise.
func (e *Engine) publishURLFiles(r *run) {
	for _, x := range e.extras.files {
		if r.full || (x.due != 0 && x.due <= r.now.UnixNano()) {
			e.publishURLFile(r, x)
		}
	}
	if r.full && (e.model.mem != nil || e.opts.owe != nil) {
		r.urls.gone = e.droppedURLs(r.stale)
	}
}

// droppedURLs returns, as removed, the URLs that sitemaps of URL files no
// longer configured list: a full build met them among the outputs (by
// name, outname.Extra), and removes them, as a page's URL goes with
// its file.
func (e *Engine) droppedURLs(outputs []string) changeset.Changes {
	var dropped []string
	for _, p := range outputs {
		if !strings.Contains(p, "/") && e.opts.names.Kind(p) == outname.Extra && e.extras.of(p) == nil && !slices.Contains(dropped, p) {
			if ok, _ := e.pub.Owned(p); ok {
				dropped = append(dropped, p)
			}
		}
	}
	if len(dropped) == 0 {
		return changeset.Changes{}
	}
	return changeset.Diff(e.disk.urls(dropped), nil)
}

// publishURLFile reads one URL file and stages its sitemap's parts, as
// publishGroup does a group's. A file that cannot be read keeps what it
// published.
func (e *Engine) publishURLFile(r *run, x *urlFile) {
	next := r.urls.state(x)
	entries, err := e.readURLFile(x.file)
	if err != nil {
		if x.parts == nil {
			next.parts = e.disk.partsOf("", x.name)
		}
		next.failed = true
		r.errs = append(r.errs, fmt.Errorf("extra_urls: %w; its sitemap keeps the URLs it listed", err))
		return
	}
	urls, due := e.judgeURLs(r, x, entries)
	old := x.parts
	if old == nil {
		old = e.disk.partsOf("", x.name)
	}
	parts, changed, err := e.stageChunks(r, sitemap.Chunks(urls, e.cfg.PartSize), func(key string) string {
		return e.opts.names.Out(outname.Chunk(x.name, key))
	})
	names := partNames(parts)
	if err != nil {
		next.parts, next.failed = old, true
		r.errs = append(r.errs, fmt.Errorf("extra_urls %s: sitemap not updated: %w", x.file, err))
		return
	}
	s := urlStaging{listed: urls, due: due}
	if (e.model.mem != nil || e.opts.owe != nil) && (changed || len(names) != len(old) || x.failed || !x.known) {
		var published map[string]string
		if x.known {
			published = listedLastmods(x.listed)
		} else {
			published = e.disk.urls(old)
		}
		s.changes = changeset.Diff(published, urls)
	}
	r.urls.staged[x] = s
	r.stale = append(r.stale, old...)
	next.parts, next.failed = names, false
	r.rep.URLs += len(urls)
	r.rep.Sitemaps += len(names)
}

// judgeURLs turns a URL file's entries into the URLs its sitemap lists
// (those robots.txt allows), and says when the first of its dates still
// to come is due (Unix ns, 0 for none).
func (e *Engine) judgeURLs(r *run, x *urlFile, entries []urlfile.Entry) (urls []sitemap.URL, due int64) {
	for _, en := range entries {
		u, ok := e.scan.Judge(en.Loc)
		if !ok {
			e.log.Warn("extra_urls: not listed: robots.txt disallows it", zap.String("path", fmt.Sprintf("%s:%d", x.file, en.Line)), zap.String("url", en.Loc))
			continue
		}
		if en.Time.After(r.now) {
			// As a page's future mtime: no lastmod until it comes.
			if due == 0 || en.Time.UnixNano() < due {
				due = en.Time.UnixNano()
			}
		} else {
			u.LastMod = en.Time
		}
		urls = append(urls, u)
	}
	return urls, due
}

// readURLFile reads a URL file, logging the lines it refuses. Applications
// write these files: a link is followed, as to a page, but only to a
// regular file, and nothing can hold the read (safefile).
func (e *Engine) readURLFile(file string) ([]urlfile.Entry, error) {
	f, err := safefile.Open(file, safefile.Follow)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, warns, err := urlfile.Read(f, file, e.cfg)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	for _, w := range warns {
		e.log.Warn("extra_urls: line refused", zap.String("path", fmt.Sprintf("%s:%d", w.File, w.Line)), zap.String("reason", w.Msg))
	}
	return entries, nil
}

// listedLastmods is what sitemap.ReadURLs would read back of urls.
func listedLastmods(urls []sitemap.URL) map[string]string {
	m := make(map[string]string, len(urls))
	for _, u := range urls {
		var lm string
		if !u.LastMod.IsZero() {
			lm = string(sitemap.AppendTime(nil, u.LastMod))
		}
		m[u.Loc] = lm
	}
	return m
}

// owedByURLFiles is what the URL files' staged publishes change.
func (r *run) owedByURLFiles() changeset.Changes {
	c := r.urls.gone
	for _, x := range slices.SortedFunc(maps.Keys(r.urls.staged), byFile) {
		c.Merge(r.urls.staged[x].changes)
	}
	return c
}

func byFile(a, b *urlFile) int { return strings.Compare(a.file, b.file) }

// of returns the URL file an output file (relative to the output root)
// is a part of, or nil.
func (x *extras) of(name string) *urlFile {
	if strings.Contains(name, "/") {
		return nil
	}
	for _, f := range x.files {
		if x.names.PartOf(name, f.name) {
			return f
		}
	}
	return nil
}

// settleURLFiles ends a commit for the URL files: they take the states
// the publish staged; those whose files all landed report their changes
// and are known as published; the others (failed holds the files that did
// not land) list what is on disk and are read again at the next change or
// full build.
func (e *Engine) settleURLFiles(r *run, failed map[string]error) []error {
	for x, next := range r.urls.next {
		*x = *next
	}
	var errs []error
	if e.model.mem != nil {
		r.rep.Changes.Merge(r.urls.gone)
	}
	bad := map[*urlFile]bool{}
	for name, ferr := range failed {
		if x := e.extras.of(name); x != nil {
			bad[x] = true
			errs = append(errs, fmt.Errorf("extra_urls %s: sitemap not updated: %w", x.file, ferr))
		}
	}
	for _, x := range slices.SortedFunc(maps.Keys(r.urls.staged), byFile) {
		if bad[x] {
			x.parts, x.listed, x.known, x.failed, x.urls = e.disk.partsOf("", x.name), nil, false, true, -1
			continue
		}
		st := r.urls.staged[x]
		if e.model.mem != nil {
			r.rep.Changes.Merge(st.changes)
		}
		x.listed, x.known, x.urls, x.due = st.listed, true, len(st.listed), st.due
	}
	return errs
}

// claims reports whether an output file is a URL file's sitemap part as
// published now, or an app's sitemap, which is never sitemapd's to remove.
func (x *extras) claims(p string) bool {
	if x.apps[p] {
		return true
	}
	f := x.of(p)
	return f != nil && slices.Contains(f.parts, p)
}

// extraRefs appends the index entries of the URL files' sitemaps (with
// their files' mtimes, as a group's) and of the apps' sitemaps (without a
// lastmod: sitemapd does not know when an app's sitemap changes).
func (e *Engine) extraRefs(refs []sitemap.Ref, errs *[]error) []sitemap.Ref {
	for _, x := range e.extras.files {
		refs = e.appendRefs(refs, x.parts, nil, errs)
	}
	for _, loc := range e.extras.locs {
		refs = append(refs, sitemap.Ref{Loc: loc})
	}
	return refs
}

// listed counts the URLs the URL files' published sitemaps list, as far
// as known.
func (x *extras) listed() int {
	n := 0
	for _, f := range x.files {
		n += max(f.urls, 0)
	}
	return n
}

// due is when the first date still to come of a URL file is due (Unix
// ns), 0 for none.
func (x *extras) due() int64 {
	var first int64
	for _, f := range x.files {
		if f.due != 0 && (first == 0 || f.due < first) {
			first = f.due
		}
	}
	return first
}

// URLFiles lists the extra_urls files, for the daemon to watch.
func (e *Engine) URLFiles() []string {
	out := make([]string, len(e.extras.files))
	for i, x := range e.extras.files {
		out[i] = x.file
	}
	return out
}
