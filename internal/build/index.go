package build

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"go.uber.org/zap"
	"golang.org/x/sys/unix"

	"github.com/sitemapd/sitemapd/internal/outname"
	"github.com/sitemapd/sitemapd/internal/robots"
	"github.com/sitemapd/sitemapd/internal/safefile"
	"github.com/sitemapd/sitemapd/internal/sitemap"
)

// The files at the root of the output that follow the groups' sitemaps:
// the index, the files beside it (IndexNow key files, the stylesheet) and
// robots.txt's Sitemap lines.

// builtinStylesheet is written as outname.StylesheetName at the root of the
// output with `stylesheet: builtin`.
//
//go:embed sitemap.xsl
var builtinStylesheet []byte

// publishIndex writes the root index (split past 50,000 sitemaps) listing
// every group's parts, the extras' and the news sitemap's, with their
// files' mtimes, the time their content last changed. With no sitemaps at all no index is written: an empty one is
// invalid.
func (e *Engine) publishIndex(rep *Report) error {
	var refs []sitemap.Ref
	var errs []error
	for _, g := range e.model.groups {
		refs = e.appendRefs(refs, g.parts, g.published, &errs)
	}
	refs = e.extraRefs(refs, &errs)
	refs = e.appendRefs(refs, e.news.names, nil, &errs)
	sort.Slice(refs, func(i, j int) bool { return refs[i].Loc < refs[j].Loc })
	batch := e.pub.Begin()
	n := 0
	err := e.enc.Index(refs, func(part []byte) error {
		n++
		_, _, err := e.put(batch, rep, e.opts.names.Out(outname.Part(e.opts.names.Index(), n)), part)
		return err
	})
	if err != nil {
		batch.Abort()
		return errors.Join(append(errs, fmt.Errorf("index not updated: %w", err))...)
	}
	e.model.indexParts = n
	rep.Indexes = n
	failed, err := e.commitFiles(batch, rep)
	errs = append(errs, err)
	for _, ferr := range failed {
		// The old index file stays; retrying the root group rewrites it.
		e.model.state("").failed = true
		errs = append(errs, fmt.Errorf("index not updated: %w", ferr))
	}
	return errors.Join(errs...)
}

// appendRefs appends the index entries of sitemap files (relative to the
// output root), each with its file's mtime, the time its content last
// changed; files that are not there are left out. landed, if the files
// are a group's parts as they landed (group.published), gives the mtimes
// it knows: a change of one part does not stat every part of the site
// (through os.Root, a stat is a syscall a path component).
func (e *Engine) appendRefs(refs []sitemap.Ref, names []string, landed []part, errs *[]error) []sitemap.Ref {
	for i, n := range names {
		if i < len(landed) && landed[i].name == n && landed[i].file != (fileStamp{}) {
			mt := time.Unix(0, e.opts.fileTime(landed[i], landed[i].file.mtime))
			refs = append(refs, sitemap.Ref{Loc: e.loc.File(n), LastMod: mt.Truncate(time.Second)})
			continue
		}
		mt, err := e.out.modTime(n)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				*errs = append(*errs, fmt.Errorf("index: stat %s: %w", filepath.Join(e.opts.outDir, n), err))
			}
			continue
		}
		refs = append(refs, sitemap.Ref{Loc: e.loc.File(n), LastMod: mt.Truncate(time.Second)})
	}
	return refs
}

// indexedParts lists the sitemap files the index on disk lists (as paths
// relative to the output root): what sitemapd published last, wherever it
// is. Entries that are not sitemaps of this configuration's name, or not
// under base_url, are left out.
func (e *Engine) indexedParts() []string {
	var names []string
	for loc := range e.disk.urls(e.disk.partsOf("", e.opts.names.Index())) {
		p, ok := e.loc.SitePath(loc)
		if !ok {
			continue
		}
		name, err := url.PathUnescape(strings.TrimPrefix(p, "/"))
		if err == nil && outname.IsPart(path.Base(name), e.opts.names.Sitemap()) && name == path.Clean(name) {
			names = append(names, name)
		}
	}
	return names
}

// IndexURLs returns the URLs of the published index files.
func (e *Engine) IndexURLs() []string {
	var urls []string
	for _, n := range e.model.indexNames(e.opts.names) {
		urls = append(urls, e.loc.File(n))
	}
	return urls
}

// publishExtras writes the files that go at the root of the output next to
// the index: the IndexNow key files, where the engines fetch them
// (keyLocation: <key>.txt holding the key), and the built-in stylesheet.
// They are never gzipped.
func (e *Engine) publishExtras(rep *Report) error {
	files := map[string][]byte{}
	for name, key := range e.opts.keyFiles {
		files[name] = []byte(key)
	}
	if e.cfg.Stylesheet == "builtin" {
		files[outname.StylesheetName] = builtinStylesheet
	}
	if len(files) == 0 {
		return nil
	}
	batch := e.pub.Begin()
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(files)) {
		changed, err := e.out.stage(batch, name, files[name], 0)
		switch {
		case err != nil:
			errs = append(errs, err)
		case changed:
			rep.Written = append(rep.Written, filepath.Join(e.opts.outDir, name))
		}
	}
	failed, err := e.commitFiles(batch, rep)
	errs = append(errs, err)
	for _, ferr := range failed {
		errs = append(errs, ferr)
	}
	return errors.Join(errs...)
}

// maxRobotsEdit is the largest robots.txt publishRobots edits: 32 times
// what Google reads of one.
const maxRobotsEdit = 16 << 20

// publishRobots keeps one "Sitemap:" line per index file in robots.txt
// (robots_txt: true), changing nothing else in it; the file is created if
// absent. A robots.txt sitemapd may not write is left alone with a warning:
// replacing it by rename would take it from its owner.
func (e *Engine) publishRobots(rep *Report) error {
	if !e.cfg.RobotsTxt {
		return nil
	}
	const name = outname.RobotsName
	abs := filepath.Join(e.opts.outDir, name)
	old, mode, ok, err := e.readRobots(abs)
	if !ok {
		return err
	}
	data := robots.WithSitemaps(old, e.IndexURLs(), e.isIndexURL)
	if bytes.Equal(data, old) || (old == nil && len(data) == 0) {
		return nil
	}
	batch := e.pub.Begin()
	changed, err := e.out.stage(batch, name, data, mode)
	if err != nil {
		return err
	}
	if changed {
		rep.Written = append(rep.Written, abs)
	}
	failed, err := e.commitFiles(batch, rep)
	return errors.Join(err, failed[name])
}

// readRobots reads robots.txt for publishRobots, with the mode it keeps:
// nil when there is none; not ok (with the error, if any, to report) when
// it is not to be edited, which it logs.
func (e *Engine) readRobots(abs string) (old []byte, mode fs.FileMode, ok bool, err error) {
	const name = outname.RobotsName
	st, err := e.pub.Stat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, 0o644, true, nil
	case err != nil:
		return nil, 0, false, err
	case !st.Mode().IsRegular():
		e.log.Warn("robots.txt is not a regular file; not adding Sitemap lines", zap.String("path", abs))
		return nil, 0, false, nil
	}
	if err := unix.Access(abs, unix.W_OK); err != nil {
		e.log.Warn("robots.txt is not writable by sitemapd; not adding Sitemap lines", zap.String("path", abs), zap.Error(err))
		return nil, 0, false, nil
	}
	old, err = e.pub.ReadFile(name, maxRobotsEdit)
	var tooLarge *safefile.TooLargeError
	if errors.As(err, &tooLarge) {
		// Rewritten, it would lose what was not read.
		e.log.Warn("robots.txt is too large to edit; not adding Sitemap lines", zap.String("path", abs), zap.Int64("limit", maxRobotsEdit))
		return nil, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	return old, st.Mode().Perm(), true, nil
}

// isIndexURL reports whether a URL names one of this site's index files,
// of any part number: a line for an index file that is no more is ours to
// remove.
func (e *Engine) isIndexURL(u string) bool {
	p, ok := e.loc.SitePath(u)
	if !ok {
		return false
	}
	name, err := url.PathUnescape(p[1:])
	return err == nil && !strings.Contains(name, "/") && outname.IsPart(name, e.opts.names.Index())
}
