package daemon

// The status page (package status) as the daemon fills it: each site's
// History of publishes and submissions, and a Snapshot of what the daemon
// knows of the site, taken per request of /status.

import (
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/build"
	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/ping"
	"github.com/sitemapd/sitemapd/internal/status"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// pageState is what the status page shows of a site beyond /healthz. The
// site's goroutine keeps it; the listener's read it. Guarded by runner.mu.
type pageState struct {
	cfg      *config.Config // the configuration served; nil before the first
	notifier *ping.Notifier // its notifier, for its Stats
	hist     *history       // nil when it could not be opened
	last     time.Time      // when the last publish ended
	took     time.Duration  // how long it took
	// Of the last full build that was not refused: its sitemap files and
	// the groups listed after it. A rebuild counts only the groups it
	// builds, so these stand until the next full build. (What each group
	// lists and leaves out, the engine keeps: build.Engine.Groups.)
	sitemaps, groups int
}

// sitemapsNow estimates the sitemap files published now, groups being
// the groups listed: the last full build's count, plus one for each
// group listed since and minus one for each gone. It is exact unless a
// group was cut into more parts, or fewer, since that build (a group
// has one until it lists more than part_size URLs); the next full build
// counts again.
func (pg *pageState) sitemapsNow(groups int) int {
	return max(0, pg.sitemaps+groups-pg.groups)
}

// history is a site's status.History. It is a picture for people: one
// that cannot be opened (state_dir not writable) is nil, and the page
// shows no charts; one that cannot be saved keeps its records in memory.
// Either is logged, a failing save once until one succeeds, not at every
// request sent. A nil *history records nothing.
type history struct {
	h       *status.History
	log     *zap.Logger
	failing atomic.Bool
}

// openHistory opens the History kept in dir, or logs why not and returns
// nil.
func openHistory(dir string, log *zap.Logger) *history {
	h, err := status.Open(dir, log)
	if err != nil {
		log.Error("the status page's history cannot be opened; /status shows no charts and no recent publishes or submissions", zap.Error(err))
		return nil
	}
	return &history{h: h, log: log}
}

func (h *history) close() {
	if h != nil {
		h.h.Close()
	}
}

// saved logs the first of a run of failed saves, and the save that ends it.
func (h *history) saved(err error) {
	switch {
	case err != nil && !h.failing.Swap(true):
		h.log.Error("cannot save the status page's history; it is kept in memory and saved again at the next publish or submission", zap.Error(err))
	case err == nil && h.failing.Swap(false):
		h.log.Info("the status page's history is saved again")
	}
}

func (h *history) publish(p status.Publish) {
	if h != nil {
		h.saved(h.h.RecordPublish(p))
	}
}

// submission records a request the notifier made (ping.WithObserver).
func (h *history) submission(a ping.Attempt) {
	if h != nil {
		h.saved(h.h.RecordSubmission(status.SubmissionOf(a)))
	}
}

func (h *history) activity() status.Activity {
	if h == nil {
		return status.Activity{}
	}
	return h.h.Activity()
}

// openHistory opens the site's History in its state directory, beside
// the notifier's ledger, for as long as this configuration serves: a
// reload may name another state_dir. It closes after the notifier has
// stopped (onClose runs latest first), so no submission comes after.
func (ss *session) openHistory() {
	s := ss.s
	hist := openHistory(ss.cfg.StateDir, s.log)
	ss.onClose(hist.close)
	s.mu.Lock()
	s.page.cfg, s.page.hist = ss.cfg, hist
	s.mu.Unlock()
	ss.onClose(func() {
		s.mu.Lock()
		s.page.hist = nil // closed: what it holds is not shown between configurations
		s.mu.Unlock()
	})
}

// recordPublish notes a publish with a report for the status page.
// groups and urls are what the sitemaps list after it.
func (s *runner) recordPublish(why Trigger, rep *build.Report, groups, urls int, err error) {
	var refused *build.ShrinkError
	isRefused := errors.As(err, &refused)
	s.mu.Lock()
	pg := &s.page
	pg.last, pg.took = time.Now(), rep.Duration
	if why.Full() && !isRefused {
		pg.sitemaps, pg.groups = rep.Sitemaps, groups
	}
	hist, cfg := pg.hist, pg.cfg
	s.mu.Unlock()
	p := status.Publish{Duration: rep.Duration, Trigger: why.String(), URLs: urls, Failed: err != nil}
	if !isRefused && cfg != nil { // a refused build published nothing
		n := rep.Changes.Counts()
		p.Moved, p.Removed = bySource(cfg, n.Added+n.Changed, n.Dated), n.Removed
	}
	hist.publish(p)
}

// bySource counts n lastmods by their source: dated of them are the
// dates their pages' heads state (pages.head_dates; the engine knows it
// of each page, tree.Page.Dated), the others come from the source
// pages.lastmod configures: content (and significant, which is content
// read for what a page says) or mtime. (The lines of URL files
// (extra_urls) are not pages: the few that moved count with the others.)
func bySource(cfg *config.Config, n, dated int) status.Sources {
	dated = min(max(0, dated), n)
	if cfg.Pages.LastModFrom == config.LastModMTime {
		return status.Sources{PageDate: dated, MTime: n - dated}
	}
	return status.Sources{PageDate: dated, Content: n - dated}
}

// groupsOf is the engine's groups as the status page shows them: named by
// their URL's path (never a directory on the server), with what each
// lists and leaves out, and where its lastmods come from (bySource).
func groupsOf(cfg *config.Config, gs []*build.GroupStatus) []status.Group {
	out := make([]status.Group, 0, len(gs))
	for _, g := range gs {
		sg := status.Group{Path: "/", Listed: g.Listed, Sources: bySource(cfg, g.Listed, g.Dated)}
		if u, err := url.Parse(g.URL); err == nil && u.Path != "" {
			sg.Path = u.Path
		}
		for _, r := range tree.Reasons() {
			if n := g.LeftOut[r]; n > 0 {
				sg.LeftOut = append(sg.LeftOut, status.LeftOut{Reason: r, Count: n, Examples: g.Examples[r]})
			}
		}
		out = append(out, sg)
	}
	return out
}

// statusSource is the daemon as the status page's Source.
type statusSource struct{ d *Daemon }

// Sites are those /healthz knows, in its order: a site that is not served
// (its configuration invalid, its locks held elsewhere) is listed too,
// with its health only. One site's name is "".
func (src statusSource) Sites() []string { return src.d.metrics.Load().SiteNames() }

func (src statusSource) Snapshot(name string) (status.Snapshot, bool) {
	m := src.d.metrics.Load()
	if !slices.Contains(m.SiteNames(), name) {
		return status.Snapshot{}, false
	}
	snap := status.Snapshot{Site: name, Now: time.Now()}
	body, _, found := m.Health(name)
	if !found {
		return status.Snapshot{}, false
	}
	// /healthz's answer, read as its clients read it: its status and its
	// reason, whose paths are already relative to the roots.
	var h struct{ Status, Reason string }
	if b, err := json.Marshal(body); err == nil {
		json.Unmarshal(b, &h)
	}
	snap.Health = status.HealthOf(h.Status, h.Reason)
	if s := src.d.runnerNamed(name); s != nil {
		s.fill(&snap)
	}
	return snap, true
}

// runnerNamed is the site of that name running now, or nil.
func (d *Daemon) runnerNamed(name string) *runner {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, s := range d.all {
		if s.name == name {
			return s
		}
	}
	return nil
}

// fill adds to snap what the site knows: what its sitemaps list, its
// last publish, its endpoints and its history. Nothing here is a path
// on the server: the group is named by base_url's path, and an endpoint's
// URL is only shown through redact (status.Endpoint.Shown).
func (s *runner) fill(snap *status.Snapshot) {
	s.mu.Lock()
	pg := s.page
	groups, urls := s.groups, s.urls
	s.mu.Unlock()
	if pg.cfg == nil {
		return // not started yet
	}
	cfg := pg.cfg
	snap.BaseURL = cfg.BaseURL
	snap.URLs, snap.Sitemaps = urls, pg.sitemapsNow(groups)
	snap.LastPublish, snap.LastDuration = pg.last, pg.took
	if eng := s.eng.Load(); eng != nil {
		snap.Groups = groupsOf(cfg, eng.Groups())
	}
	stats := map[string]ping.Stats{}
	if pg.notifier != nil {
		for _, st := range pg.notifier.Stats() {
			stats[st.Endpoint] = st
		}
	}
	for _, ec := range cfg.Notify.Endpoints {
		e := status.Endpoint{Name: ec.Name, URL: ec.URL}
		if ec.Kind == config.SearchConsole {
			e.URL = "Search Console property " + ec.Property // its own loop: /healthz has Google's view
		}
		if st, ok := stats[ec.Name]; ok {
			e.Owed, e.LastAttempt, e.LastStatus, e.LastError, e.NextTry, e.Gone =
				st.Owed, st.LastAttempt, st.LastStatus, st.LastError, st.NextTry, st.Gone
		}
		snap.Endpoints = append(snap.Endpoints, e)
	}
	snap.Activity = pg.hist.activity()
}
