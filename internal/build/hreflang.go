package build

import (
	"context"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/hreflang"
	"github.com/sitemapd/sitemapd/internal/scan"
	"github.com/sitemapd/sitemapd/internal/sitemap"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// Whether an alternate is listed depends on other pages than its own
// (package hreflang): on whether the page it names is listed, and names
// it back. So a publish stages the hreflang graph of the groups it reads
// (altRun), and encodes alternates as that stage sees the site:
//
//   - a full build reads every group before it encodes the alternates of
//     any: groups whose pages name alternates are held (their listings,
//     not yet their URLs) until the walk ends; the others are published
//     as they come;
//   - a rebuild stages the groups it read, and reads too, and encodes
//     every part of, the groups holding a page that names a page whose
//     alternates came, went or changed (stageAlternates): a deleted fr/
//     page re-encodes the pages that pointed at it.
//
// The graph takes the stage when the publish commits (the files of a
// group that fail to land are retried against it, and are what its
// heads say).

// newAltGraph is the graph of a site, nil when pages.hreflang is off.
func newAltGraph(cfg *config.Config) *hreflang.Graph {
	if !cfg.Pages.Hreflang {
		return nil
	}
	return hreflang.NewGraph(hreflang.NewHosts(cfg.BaseURL, cfg.Pages.HreflangHosts))
}

// altRun is a publish's part in the site's hreflang graph: its stage;
// the groups each of whose parts is encoded again, since a page of theirs
// names one that changed; a full build's groups held until its walk ends.
type altRun struct {
	stage *hreflang.Stage // nil with pages.hreflang off
	whole map[string]bool
	held  []*scan.Group
}

// newAltRun begins a publish's part; its report says what the rule made
// of the alternates published so far, until the publish commits.
func newAltRun(g *hreflang.Graph, full bool, rep *Report) altRun {
	if g == nil {
		return altRun{}
	}
	rep.Hreflang = g.Tally()
	return altRun{stage: g.Stage(full), whole: map[string]bool{}}
}

// filter keeps, in place, the alternates each URL's entry lists.
func (a *altRun) filter(urls []sitemap.URL) {
	if a.stage == nil {
		return
	}
	for i := range urls {
		if len(urls[i].Alternates) > 0 {
			urls[i].Alternates = a.stage.Filter(urls[i].Loc, urls[i].Alternates)
		}
	}
}

// take stages a group a full build's walk handed over, and reports
// whether it is to be held: a page of it names alternates. A group that
// could not be read keeps what the graph knew of it.
func (a *altRun) take(sc *scan.Scanner, g *scan.Group) bool {
	if a.stage == nil {
		return false
	}
	if g.Err != nil {
		a.stage.Keep(g.Dir)
		return false
	}
	pages := altPages(a.stage.Hosts(), sc, g.URLs, g.Listings)
	a.stage.Set(g.Dir, pages)
	if len(pages) == 0 {
		return false
	}
	a.held = append(a.held, g)
	return true
}

// commit makes the stage the graph's, as the publish commits, and notes
// what the rule made of the site's alternates in the report.
func (a *altRun) commit(g *hreflang.Graph, rep *Report) {
	if a.stage == nil {
		return
	}
	a.stage.Commit()
	rep.Hreflang = g.Tally()
}

// altPages are the pages of a group that name alternates: those of urls
// (URL entries with their alternates as the heads say) and those listed
// in listings.
func altPages(h hreflang.Hosts, sc *scan.Scanner, urls []sitemap.URL, listings map[string]*tree.Listing) []hreflang.Page {
	var pages []hreflang.Page
	for _, u := range urls {
		if len(u.Alternates) > 0 {
			pages = append(pages, h.PageOf(u.Loc, u.Alternates))
		}
	}
	for d, l := range listings {
		l.Each(func(i int, name string, _ int64) {
			if alts := l.Head(i).Alts; alts != "" {
				pages = append(pages, h.PageOf(sc.PageLoc(d, name), tree.Alternates(alts)))
			}
		})
	}
	return pages
}

// stageAlternates stages the groups a rebuild read, then reads, into
// reads, the groups holding a page that names one whose alternates the
// stage changes, until no more are found; each of those is encoded
// whole.
func stageAlternates(ctx context.Context, e *Engine, r *run, reads map[string]groupRead, uo updateOptions) error {
	a := &r.alts
	if a.stage == nil {
		return nil
	}
	staged := map[string]bool{}
	for {
		for dir, rd := range reads {
			if staged[dir] || rd.g.Err != nil {
				continue
			}
			staged[dir] = true
			if rd.g.FromView {
				a.stage.Set(dir, altPages(a.stage.Hosts(), e.scan, nil, rd.u.View))
			} else {
				a.stage.Set(dir, altPages(a.stage.Hosts(), e.scan, rd.g.URLs, nil))
			}
		}
		more := false
		for _, dir := range a.stage.Referrers(a.stage.Changed()) {
			a.whole[dir] = true
			if _, ok := reads[dir]; ok {
				continue
			}
			g, u, err := e.readGroup(ctx, r, dir, nil, nil, uo)
			if err != nil {
				return err
			}
			reads[dir], more = groupRead{g, u}, true
		}
		if !more {
			return nil
		}
	}
}

// publishHeld publishes the groups a full build held for their
// alternates, now that the walk has staged every group.
func publishHeld(e *Engine, r *run, w *scan.Walk) {
	held := r.alts.held
	r.alts.held = nil
	for _, g := range held {
		w.AddURLs(g)
		e.publishGroup(r, g, tree.WholeUpdate(g.Listings, g.FollowsLinks()))
	}
}
