package build

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"slices"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/outname"
)

// A deploy that mirrors a tree over the document root (rsync -a --delete
// new/ root/) removes sitemapd's files, which the new tree lacks: the
// watcher reports the directories where one went (watch.Batch.Restore),
// and the daemon asks Lost which groups lack a file they publish, and
// Restore to write them again. A file written again with the bytes it had
// keeps its mtime (landings.go), so the index does not change for it.

// OwnsName reports whether a base name is one of sitemapd's own outputs:
// a part of a sitemap, an index or a text sitemap (those of extra_urls
// files too), an IndexNow key file, the built-in stylesheet or the feed.
// Temp files are not: they come and go with every publish
// (watch.Options.Own).
func (e *Engine) OwnsName(name string) bool { return e.opts.names.Kind(name).Owned() }

// Lost lists, sorted, the groups whose published files are missing from
// the given directories (relative to the output root): a group whose
// directory is one of them and lacks one of its parts, and the root group
// "" when the root lacks an index file or a file beside it. A removal of
// sitemapd's own (a part no longer needed) loses nothing. It only states
// files.
func (e *Engine) Lost(dirs []string) []string {
	lost := map[string]bool{}
	for _, d := range dirs {
		if g := e.model.groups[d]; g != nil && (e.disk.missing(g.parts) || e.disk.missing(g.textParts)) {
			lost[d] = true
		}
		if d == "" && e.disk.missing(append(rootFiles(e.cfg, e.model.indexNames(e.opts.names), e.opts.keyFiles), e.news.names...)) {
			lost[""] = true
		}
	}
	return slices.Sorted(maps.Keys(lost))
}

// Restore publishes again the groups Lost named, writing the files they
// lack, and the index; with the root group, the files beside the index
// too (the IndexNow key files, the stylesheet), which otherwise only a
// full build writes.
func (e *Engine) Restore(ctx context.Context, groups []string) (*Report, error) {
	if slices.Contains(groups, "") {
		e.news.stale = true // its files may be what was lost
	}
	rep, err := e.Rebuild(ctx, groups)
	if rep != nil && slices.Contains(groups, "") {
		err = errors.Join(err, e.publishExtras(rep))
	}
	return rep, err
}

// missing reports whether any of the output files names is not there.
func (d onDisk) missing(names []string) bool {
	for _, n := range names {
		if _, err := d.pub.Stat(n); errors.Is(err, fs.ErrNotExist) {
			return true
		}
	}
	return false
}

// rootFiles are the files at the root of the output that follow the
// groups' sitemaps: the index files (index), the key files, the
// stylesheet.
func rootFiles(cfg *config.Config, index []string, keyFiles map[string]string) []string {
	names := slices.Clone(index)
	for name := range keyFiles {
		names = append(names, name)
	}
	if cfg.Stylesheet == "builtin" {
		names = append(names, outname.StylesheetName)
	}
	return names
}
