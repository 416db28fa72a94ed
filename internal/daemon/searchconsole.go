package daemon

// The site's searchconsole endpoints while a configuration is served:
// each a searchconsole.Client running its own loop, told after each
// publish which sitemaps the site announces.

import (
	"context"
	"path/filepath"
	"slices"
	"sync"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/outname"
	"github.com/sitemapd/sitemapd/internal/robots"
	"github.com/sitemapd/sitemapd/internal/safefile"
	"github.com/sitemapd/sitemapd/internal/searchconsole"
)

// maxRobots is what is read of robots.txt for its Sitemap lines: the
// 500 KiB Google reads of it.
const maxRobots = 500 << 10

// consoles is the searchconsole endpoints of one configuration served.
type consoles struct {
	clients []*searchconsole.Client
	// broken are the endpoints that could not start (their key cannot
	// be read any more), reported on /healthz as they are.
	broken []searchconsole.Status
}

// startSearchConsole starts a client per searchconsole endpoint; close
// stops them (their calls canceled) and releases them.
func (ss *session) startSearchConsole(ctx context.Context) {
	s, d := ss.s, ss.d
	ss.consoles = &consoles{}
	var wg sync.WaitGroup
	cctx, stop := context.WithCancel(ctx)
	for _, ep := range ss.cfg.Notify.Endpoints {
		if ep.Kind != config.SearchConsole {
			continue
		}
		c, err := searchconsole.New(ss.cfg, ep, s.log, append([]searchconsole.Option{searchconsole.WithVersion(d.opts.Version)}, d.opts.SearchConsole...)...)
		if err != nil {
			s.log.Error("Search Console endpoint cannot start", zap.String("endpoint", ep.Name), zap.Error(err))
			// /healthz names no path of the server: the log says which.
			ss.consoles.broken = append(ss.consoles.broken, searchconsole.Status{Endpoint: ep.Name, Property: ep.Property,
				LastError: "its key cannot be used (the log says why)", Kind: searchconsole.Auth})
			continue
		}
		ss.consoles.clients = append(ss.consoles.clients, c)
		if ss.fleet != nil {
			// One server of a fleet submits and polls: the leader
			// (whileLeader). Its Close waits for the leader's runs,
			// stopped first (startNotifier's close).
			ss.leaderRuns = append(ss.leaderRuns, func(ctx context.Context) { c.Run(ctx) })
			continue
		}
		wg.Go(func() { c.Run(cctx) })
	}
	ss.onClose(func() {
		stop()
		wg.Wait()
		for _, c := range ss.consoles.clients {
			c.Close()
		}
	})
}

// announceSitemaps tells each searchconsole endpoint the sitemaps the
// site announces now: its index files, and the Sitemap lines of the
// robots.txt at the output root (sitemapd's own with robots_txt: true,
// and any others written there).
func (ss *session) announceSitemaps() {
	if len(ss.consoles.clients) == 0 {
		return
	}
	urls := ss.eng.IndexURLs()
	p := filepath.Join(ss.cfg.OutputRoot(), outname.RobotsName)
	if data, err := safefile.ReadFile(p, maxRobots, safefile.Follow); err == nil {
		for _, u := range robots.Sitemaps(data) {
			if !slices.Contains(urls, u) {
				urls = append(urls, u)
			}
		}
	}
	for _, c := range ss.consoles.clients {
		c.Announce(urls)
	}
}

// statuses reports every searchconsole endpoint, for /healthz and the
// metrics; safe from any goroutine.
func (g *consoles) statuses() []searchconsole.Status {
	if g == nil {
		return nil
	}
	out := slices.Clone(g.broken)
	for _, c := range g.clients {
		out = append(out, c.Status())
	}
	return out
}
