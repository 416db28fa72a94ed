package build

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/news"
	"github.com/sitemapd/sitemapd/internal/outname"
	"github.com/sitemapd/sitemapd/internal/scan"
	"github.com/sitemapd/sitemapd/internal/siteurl"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// The Google News sitemap (news.publication): the articles published in
// the last 48 hours, at the root of the output as outname.Site.News and its
// parts of 1,000 URLs, listed in the index. Each group keeps the articles
// of its pages that are fresh or still to come (group.news, taken when its
// publish is encoded and kept once its files land); the sitemap is made of
// all groups' (news.Select) when one of them changed, at every full
// build, and when the time comes at which the selection changes
// (newsSitemap.next: an article's publication time comes, or one leaves
// 48 hours after it), which Engine.Due tells the daemon: an article leaves
// on time with no file event. Its bytes are a function of the pages and
// the time.

// newsSitemap is the owner of the news sitemap: its rules, its files as
// last published, and when it next changes.
type newsSitemap struct {
	cfg   *config.Config
	loc   *siteurl.Locator
	rules *news.Rules // nil: off
	names []string    // its files as last published, relative to the output root
	next  time.Time   // when its selection next changes; zero: never
	stale bool        // some group's articles changed since it was made
}

func newNewsSitemap(cfg *config.Config, loc *siteurl.Locator) *newsSitemap {
	return &newsSitemap{cfg: cfg, loc: loc, rules: news.NewRules(&cfg.News), stale: true}
}

// articles returns the articles of a group's pages that may be listed now
// or later, with their publications, from its listings (the view of a
// change, or the walk's) and the pages of directories not recorded; nil
// with the news sitemap off.
func (n *newsSitemap) articles(g *scan.Group, u *tree.Update, now time.Time) []news.Article {
	if n.rules == nil {
		return nil
	}
	listings := g.Listings
	if g.FromView && u != nil {
		listings = u.View
	}
	var out []news.Article
	add := func(dir, name, packed string) {
		t, title, ok := news.Unpack(packed)
		if !ok || !news.Kept(t, now) {
			return
		}
		up := n.loc.PagePath(dir, name)
		if pub, ok := n.rules.Of(up); ok {
			out = append(out, news.Article{Loc: n.loc.Loc(up), Published: t, Title: title, Publication: pub})
		}
	}
	for dir, l := range listings {
		l.Articles(func(name, packed string) { add(dir, name, packed) })
	}
	for _, a := range g.Articles {
		add(a.Dir, a.Name, a.News)
	}
	slices.SortFunc(out, func(a, b news.Article) int { return a.Published.Compare(b.Published) })
	return out
}

// land takes the articles of a group whose files landed (g, its state;
// nil for a group with nothing left), noting whether that changes the
// news sitemap.
func (n *newsSitemap) land(g *group, articles []news.Article) {
	if g == nil {
		n.stale = n.stale || n.rules != nil
		return
	}
	if !slices.Equal(g.news, articles) {
		n.stale = true
	}
	g.news = articles
}

// due reports whether the news sitemap is to be made again at now.
func (n *newsSitemap) due(now time.Time, full bool) bool {
	return full || n.stale || (!n.next.IsZero() && !now.Before(n.next))
}

// newsRetry is how long after a news sitemap that could not be written
// the daemon's timer tries again (any publish before tries too): not at
// once, which a file in the way would make a loop.
const newsRetry = time.Minute

// failed notes a news sitemap that could not be written at now: its old
// files stay, and it is made again at the next publish, or newsRetry on.
func (n *newsSitemap) failed(now time.Time) {
	n.stale, n.next = true, now.Add(newsRetry)
}

// claims reports whether an output file is one of the news sitemap's.
func (n *newsSitemap) claims(p string) bool { return slices.Contains(n.names, p) }

// publishNews makes the news sitemap when it is due: from the articles of
// every group, those listed now, in files of 1,000 at most; the files it
// no longer needs, and all of them when no article is listed, go with the
// publish's stale outputs. With the news sitemap off, a full build finds
// its old files among the outputs met, and removes them.
func (e *Engine) publishNews(r *run) error {
	n := e.news
	if n.rules == nil || !n.due(r.now, r.full) {
		return nil
	}
	var all []news.Article
	gone := func(a news.Article) bool { return !news.Kept(a.Published, r.now) }
	for _, g := range e.model.groups {
		if slices.ContainsFunc(g.news, gone) {
			// Left for good: not kept until the group's next publish.
			// (A copy: a state's slices are replaced, never written to.)
			g.news = slices.DeleteFunc(slices.Clone(g.news), gone)
		}
		all = append(all, g.news...)
	}
	docs := news.Encode(e.enc.Header(), news.Select(all, r.now))
	names := make([]string, len(docs))
	batch := e.pub.Begin()
	var errs []error
	for i, d := range docs {
		names[i] = e.opts.names.Out(outname.Part(e.opts.names.News(), i+1))
		if _, _, err := e.put(batch, r.rep, names[i], d); err != nil {
			batch.Abort()
			n.failed(r.now)
			return fmt.Errorf("news sitemap not written: %w", err)
		}
	}
	failed, err := e.commitFiles(batch, r.rep)
	errs = append(errs, err)
	for name, ferr := range failed {
		errs = append(errs, fmt.Errorf("news sitemap %s not written: %w", filepath.Join(e.opts.outDir, name), ferr))
	}
	if err := errors.Join(errs...); err != nil {
		n.failed(r.now)
		return err
	}
	r.stale = append(r.stale, n.names...)
	n.names, n.stale, n.next = names, false, news.Next(all, r.now)
	return nil
}
