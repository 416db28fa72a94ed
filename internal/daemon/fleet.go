package daemon

import (
	"context"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/build"
	"github.com/sitemapd/sitemapd/internal/fleet"
	"github.com/sitemapd/sitemapd/internal/metrics"
	"github.com/sitemapd/sitemapd/internal/ping"
	"github.com/sitemapd/sitemapd/internal/siteurl"
)

// joinWait bounds how long a session waits, before its first build, for
// the fleet's records: long enough for a range read of a large site's
// records, short enough that a server whose etcd is down still publishes
// (its own times, converging when etcd returns).
var joinWait = 30 * time.Second

// openFleet connects the site to its fleet (fleet: in the configuration)
// and waits for the fleet's records, so that the first publish takes the
// fleet's times. It returns the engine's option, none without a fleet.
func (ss *session) openFleet(ctx context.Context) ([]build.Option, error) {
	if !ss.cfg.Fleet.On() {
		return nil, nil
	}
	log := ss.s.log.Named("fleet")
	fl, err := fleet.New(&ss.cfg.Fleet, log)
	if err != nil {
		return nil, err
	}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { fl.Run(rctx); close(done) }()
	ss.onClose(func() { cancel(); <-done; fl.Close() })
	ss.fleet, ss.ledger = fl, fl.Ledger(ss.cfg.Fleet.ServerName())
	loc := siteurl.New(ss.cfg)
	fl.SetPageURL(func(rel string) string {
		dir, name := path.Split(rel)
		return loc.Loc(loc.PagePath(strings.TrimSuffix(dir, "/"), name))
	})
	ss.led.unowed = fl.TakeOwed
	start := time.Now()
	if err := ss.waitJoined(ctx, fl); err != nil {
		_, _, why := fl.Health()
		log.Warn("the fleet's records could not be read: publishing this server's own times until they can", zap.String("reason", why))
	} else {
		log.Info("joined the fleet", zap.String("server", ss.cfg.Fleet.ServerName()), zap.Duration("took", time.Since(start)))
	}
	return []build.Option{build.WithFleet(fl)}, nil
}

// fleetChanged is the fleet's signal that it settled times otherwise than
// they were published here; nil (never ready) without a fleet.
func (ss *session) fleetChanged() <-chan struct{} {
	if ss.fleet == nil {
		return nil
	}
	return ss.fleet.Changed()
}

// agreed publishes again what the fleet settled otherwise: its pages,
// read again (their files unchanged, they take the fleet's times), or,
// for sitemap files only, the index; or the whole site, when a version
// came back with another time (fleet.Agreement.Reread).
func (ss *session) agreed(ctx context.Context) {
	pages, index := ss.fleet.Take()
	eng := ss.eng
	switch {
	case ss.fleet.Reread():
		ss.publish(FleetAgreed, func() (*build.Report, error) { return eng.Build(ctx, ss.betweenBatches()) })
	case len(pages) > 0:
		// Only times change: a page whose file changed since the last
		// batch is busy here (its batch reads it, and owes it), so what
		// this publish changes is lastmods adopted, owed to nobody: the
		// page's change was owed when it was published (a search engine
		// told twice of it otherwise, if it was sent meanwhile).
		dirs := slices.Sorted(maps.Keys(pages))
		ss.led.timesOnly = true
		defer func() { ss.led.timesOnly = false }()
		ss.publish(FleetAgreed, func() (*build.Report, error) {
			return eng.Update(ctx, dirs, pages, ss.betweenBatches())
		})
	case index:
		ss.publish(FleetAgreed, func() (*build.Report, error) { return eng.Rebuild(ctx, nil) })
	}
}

// fleetTrouble is why the fleet's etcd cannot be reached, since when and
// what that means, for /healthz; "" while it can, or without a fleet.
// Safe from any goroutine.
func (ss *session) fleetTrouble() string {
	if ss.fleet == nil {
		return ""
	}
	ok, since, why := ss.fleet.Health()
	if ok {
		return ""
	}
	return fmt.Sprintf("fleet: etcd unreachable for %s (since %s): %s; publishing this server's own lastmods, %d versions queued",
		time.Since(since).Round(time.Second), since.UTC().Format(time.RFC3339), why, ss.fleet.Pending())
}

// whileLeader runs the notifier (run) only while this server leads its
// fleet, so that one server of the fleet notifies; without a fleet, at
// once. Every server records what it owes as it publishes, and forgets
// what the leader sent (watchLedger): a new leader first counts the
// batch its predecessor left in flight, then sends what nobody sent
// (docs/fleet.md). The searchconsole clients' loops (leaderRuns) run
// beside it, under the same leadership: one server of the fleet submits
// and polls.
func (ss *session) whileLeader(ctx context.Context, run func(context.Context) error) error {
	if ss.fleet == nil {
		return run(ctx)
	}
	return ss.fleet.Lead(ctx, ss.cfg.Fleet.ServerName(), func(ctx context.Context) error {
		if err := ss.ledger.TakeOver(ctx); err != nil {
			return err
		}
		var wg sync.WaitGroup
		defer wg.Wait()
		lctx, cancel := context.WithCancel(ctx)
		defer cancel()
		for _, r := range ss.leaderRuns {
			wg.Go(func() { r(lctx) })
		}
		return run(lctx)
	})
}

// ledgerOptions has the notifier record its sends in the fleet's ledger;
// none without a fleet.
func (ss *session) ledgerOptions() []ping.Option {
	if ss.ledger == nil {
		return nil
	}
	return []ping.Option{ping.WithLedger(ss.ledger)}
}

// watchLedger has the notifier forget what the fleet's leader sent, until
// the session closes; nothing without a fleet.
func (ss *session) watchLedger(ctx context.Context, n *ping.Notifier) {
	if ss.ledger == nil {
		return
	}
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { ss.ledger.Watch(wctx, n.Forget); close(done) }()
	ss.onClose(func() { cancel(); <-done })
}

// waitJoined waits, at most joinWait, for the fleet's records to be read,
// beating the keeper meanwhile: the process is alive, waiting with a
// bound, and systemd's watchdog must not take it for stuck.
func (ss *session) waitJoined(ctx context.Context, fl *fleet.Agreement) error {
	wctx, cancel := context.WithTimeout(ctx, joinWait)
	defer cancel()
	loaded := make(chan error, 1)
	go func() { loaded <- fl.WaitLoaded(wctx) }()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case err := <-loaded:
			return err
		case <-tick.C:
			ss.d.keeper.beat()
		}
	}
}

// fleetStats is the fleet's figures for /metrics, nil without a fleet.
func (ss *session) fleetStats() *metrics.FleetStats {
	if ss.fleet == nil {
		return nil
	}
	ok, _, _ := ss.fleet.Health()
	return &metrics.FleetStats{Reachable: ok, Leading: ss.fleet.Leading(), Queued: ss.fleet.Pending(),
		Requests: ss.fleet.Requests(), Adopted: ss.fleet.Adopted(),
		Resent: ss.ledger.Resent.Load(), ResentURLs: ss.ledger.ResentURLs.Load(), Forgotten: ss.ledger.Forgotten.Load()}
}
