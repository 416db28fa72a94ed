package build

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/feed"
	"github.com/sitemapd/sitemapd/internal/outname"
	"github.com/sitemapd/sitemapd/internal/sitemap"
)

// The feed of changes (feed.name): an Atom feed at the root of the output
// of the feed.entries pages with the latest lastmod, newest first. It is a
// function of what the groups' sitemaps list, as they are: each group
// keeps its own first entries (groupEntries, at most feed.entries of them,
// taken when its publish is encoded and kept once its files land), and the
// feed is the first entries of all groups' (feed.Merge), so a change
// costs its group's read and a merge of short lists, never a walk of the
// site. A group whose entries are not known (its files did not all land,
// or it failed before this process published it) gives those its files on
// disk list. The feed is never gzipped: feed readers do not read .gz files.

// feedOn reports whether the feed is written.
func feedOn(cfg *config.Config) bool { return cfg.Feed.Name != "" }

// groupEntries returns a group's first feed entries from its sorted URLs;
// nil with the feed off. Pages without a lastmod have none.
func (e *Engine) groupEntries(urls []sitemap.URL) []feed.Entry {
	if !feedOn(e.cfg) {
		return nil
	}
	s := feed.NewSelector(e.cfg.Feed.Entries)
	for i := range urls {
		if en, ok := feed.NewEntry(urls[i].Loc, urls[i].LastMod); ok {
			s.Add(en)
		}
	}
	return s.Entries()
}

// publishFeed writes the feed when its bytes change, or removes it when
// no page has a lastmod (an Atom feed must say when it was updated). A
// full build writes it whatever changed, and removes feeds sitemapd wrote
// under another name (a renamed or disabled feed).
func (e *Engine) publishFeed(r *run) error {
	if r.full {
		e.removeOldFeeds(r)
	}
	if !feedOn(e.cfg) || (!r.full && !e.model.feedStale) {
		return nil
	}
	e.model.feedStale = false
	lists := make([][]feed.Entry, 0, len(e.model.groups))
	for _, g := range e.model.groups {
		if !g.feedKnown {
			g.feed, g.feedKnown = e.disk.entries(g.parts), true
		}
		lists = append(lists, g.feed)
	}
	entries := feed.Merge(lists, e.cfg.Feed.Entries)
	name := e.cfg.Feed.Name
	if len(entries) == 0 {
		removed, err := e.out.remove(name)
		if err != nil {
			e.model.feedStale = true
			return fmt.Errorf("feed not removed: %w", err)
		}
		if removed {
			r.rep.Removed = append(r.rep.Removed, filepath.Join(e.opts.outDir, name))
		}
		return nil
	}
	data := feed.Encode(feed.Site{BaseURL: e.cfg.BaseURL, Self: e.loc.File(name)}, entries)
	batch := e.pub.Begin()
	changed, err := e.out.stage(batch, name, data, 0)
	if err != nil {
		batch.Abort()
		e.model.feedStale = true // tried again at the next publish
		return fmt.Errorf("feed not written: %w", err)
	}
	if changed {
		r.rep.Written = append(r.rep.Written, filepath.Join(e.opts.outDir, name))
	} else {
		r.rep.Unchanged++
	}
	failed, err := e.commitFiles(batch, r.rep)
	if err != nil || len(failed) > 0 {
		e.model.feedStale = true
		return errors.Join(err, failed[name])
	}
	return nil
}

// removeOldFeeds removes the feeds at the root of the output that
// sitemapd wrote (they carry its marker) under another name than the
// feed's now (its errors go with the run's). Hand-made feeds are left
// alone.
func (e *Engine) removeOldFeeds(r *run) {
	names, err := e.pub.ReadDirNames(".")
	if err != nil {
		return // no output root: nothing to remove
	}
	slices.Sort(names)
	for _, n := range names {
		if path.Ext(n) != outname.FeedExt || n == e.cfg.Feed.Name {
			continue
		}
		if ok, _ := e.pub.Owned(n); ok {
			e.remove(n, r)
		}
	}
}
