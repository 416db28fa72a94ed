package daemon

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/build"
	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/fleet"
	"github.com/sitemapd/sitemapd/internal/metrics"
	"github.com/sitemapd/sitemapd/internal/outname"
	"github.com/sitemapd/sitemapd/internal/pagestore"
	"github.com/sitemapd/sitemapd/internal/ping"
	"github.com/sitemapd/sitemapd/internal/reach"
	"github.com/sitemapd/sitemapd/internal/watch"
)

// ending is why serve returned (stopped when it returns an error).
type ending int

const (
	stopped      ending = iota // ctx is done
	reloaded                   // a valid new configuration was taken: serve it
	rootReplaced               // the document root is another directory: serve cfg again on it
	// serving is no ending: what a step of serve returns to go on
	// serving; serve itself never returns it.
	serving
)

// session is one configuration served: what serve sets up for it, the
// event loop's state, and how to tear it down. Only run's goroutine
// uses it.
type session struct {
	s   *runner
	d   *Daemon
	cfg *config.Config
	eng *build.Engine
	led *ledger

	w         *watch.Watcher
	batches   chan watch.Batch
	watchDone chan error // nil once the watcher's end was read
	urlFiles  <-chan []string
	notifier  *ping.Notifier
	consoles  *consoles        // searchconsole endpoints (searchconsole.go)
	fleet     *fleet.Agreement // nil without a fleet (fleet.go)
	ledger    *fleet.Ledger    // the fleet's notifications; nil without a fleet
	// leaderRuns run beside the notifier while this server leads its
	// fleet (the searchconsole clients' loops); empty without a fleet.
	leaderRuns []func(context.Context)
	selfcheck  *reach.Monitor // nil when off (selfcheck.go)

	retry backoff
	due   dueTimer
	quiet quietTimer
	// alive beats the keeper and refreshes the status while the loop
	// waits; rescan is watch.rescan's; each nil when off.
	alive, rescan <-chan time.Time
	// printsOwed: the first build published without reading what pages
	// say (build.WithDeferredPrints); the loop's next step reads it.
	printsOwed bool
	// lastBatch is when the last batch published was made (the first
	// build's start before any): a page changed since is the next
	// batch's to publish (fleet.go's agreed).
	lastBatch time.Time
	// replaced is set when a publish finds the output directory moved or
	// replaced: the loop then serves the configuration again, on the
	// directory its path names now.
	replaced *build.OutputReplacedError

	closers []func() // what close undoes, in the order it was done
}

// serve runs one configuration until ctx is done, a new configuration is
// taken (it is returned with reloaded), or the document root was
// replaced.
//
// first is the first configuration served since the start: if its first
// build writes nothing at all, serve fails with ErrNothingPublished.
func (s *runner) serve(ctx context.Context, cfg *config.Config, first bool) (ending, version, error) {
	ss := &session{s: s, d: s.d, cfg: cfg}
	defer ss.close()
	if err := ss.open(ctx); err != nil {
		return stopped, version{}, err
	}
	if end, err := ss.firstBuild(ctx, first); end != serving {
		return end, version{}, err
	}
	s.d.started(s)
	ss.startTickers()
	for {
		if ss.replaced != nil {
			s.log.Error("output directory moved or replaced; restarting on the directory its path names now", zap.String("output_dir", ss.replaced.Dir))
			return ss.restart()
		}
		if end, next, err := ss.step(ctx); end != serving {
			return end, next, err
		}
	}
}

// onClose has close run f, before what was registered earlier.
func (ss *session) onClose(f func()) { ss.closers = append(ss.closers, f) }

// close undoes what open and the loop did, latest first.
func (ss *session) close() {
	for i := len(ss.closers) - 1; i >= 0; i-- {
		ss.closers[i]()
	}
}

// open sets up what the configuration is served with: the engine, the
// watches (before the first build, so nothing changed during it is
// missed), the notifier, and the state /healthz and /metrics read.
func (ss *session) open(ctx context.Context) error {
	s, d := ss.s, ss.d
	ss.led = &ledger{observed: d.opts.Notifier != nil}
	fleetOpts, err := ss.openFleet(ctx)
	if err != nil {
		return err
	}
	eng, err := build.New(ss.cfg, s.log, append(fleetOpts, build.WithChanges(), build.WithWriteAhead(ss.led.owe), build.WithChangeURLs(ss.led.wantsURLs),
		build.WithDeferredPrints())...)
	if err != nil {
		return err
	}
	ss.onClose(func() { eng.Close() })
	ss.eng, ss.led.eng = eng, eng
	s.eng.Store(eng)
	ss.onClose(func() { s.eng.Store(nil) })
	d.keeper.beat()
	if err := ss.startWatch(ctx); err != nil {
		return err
	}
	var stopURLFiles func()
	ss.urlFiles, stopURLFiles = watchURLFiles(ctx, d.mux.Source(), eng.URLFiles(), ss.cfg.Watch.Settle, ss.cfg.Watch.MaxDelay, s.log)
	ss.onClose(stopURLFiles)
	ss.openHistory()
	// The searchconsole clients first: in a fleet they run while this
	// server leads, which the notifier's election decides.
	ss.startSearchConsole(ctx)
	if err := ss.startNotifier(ctx); err != nil {
		return err
	}
	ss.startSelfCheck(ctx)
	ss.showState()
	ss.onClose(ss.retry.stop)
	ss.onClose(ss.due.stop)
	ss.onClose(ss.quiet.stop)
	return nil
}

// startWatch starts watching the document root.
func (ss *session) startWatch(ctx context.Context) error {
	eng := ss.eng
	w, err := watch.New(watch.Options{
		Root: ss.cfg.Root, Settle: ss.cfg.Watch.Settle, MaxDelay: ss.cfg.Watch.MaxDelay,
		SkipDir: eng.SkipDir,
		// robots.txt is never a page, but its rules decide which pages are.
		Ignore: func(name string) bool { return name != outname.RobotsName && eng.IgnoreName(name) },
		// A file of ours removed by someone else (rsync --delete) is
		// reported at once, to be written again (changed).
		Own: eng.OwnsName,
		Mux: ss.d.mux,
	}, ss.s.log)
	if err != nil {
		return err
	}
	ss.w = w
	ss.onClose(func() { w.Close() })
	wctx, stopWatch := context.WithCancel(ctx)
	ss.batches = make(chan watch.Batch)
	ss.watchDone = make(chan error, 1)
	done := ss.watchDone
	go func() { done <- w.Run(wctx, ss.batches) }()
	ss.onClose(func() {
		stopWatch()
		if ss.watchDone != nil {
			<-ss.watchDone
		}
	})
	return nil
}

// startNotifier starts the notifier. It holds the state directory while
// this configuration serves; its runs stop (requests canceled, nothing
// owed lost) first. Each request it makes goes in the status page's
// history.
func (ss *session) startNotifier(ctx context.Context) error {
	s, d := ss.s, ss.d
	s.mu.Lock()
	hist := s.page.hist
	s.mu.Unlock()
	notifier, err := ping.New(ss.cfg, s.log, append(ss.ledgerOptions(), ping.WithVersion(d.opts.Version),
		ping.WithPublishedBefore(pagestore.Exists(ss.cfg.StateDir)), ping.WithObserver(hist.submission))...)
	if err != nil {
		return err
	}
	ss.onClose(func() { notifier.Close() })
	ss.watchLedger(ctx, notifier)
	ss.notifier, ss.led.notifier = notifier, notifier
	s.mu.Lock()
	s.page.notifier = notifier
	s.mu.Unlock()
	d.keeper.beat()
	nctx, stopNotify := context.WithCancel(ctx)
	notifyDone := make(chan error, 1)
	go func() { notifyDone <- ss.whileLeader(nctx, notifier.Run) }()
	ss.onClose(func() {
		stopNotify()
		if err := <-notifyDone; err != nil {
			s.log.Error("notifier", zap.Error(err))
		}
	})
	return nil
}

// showState has the site's recorder read the state of what serves it,
// and logs the start.
func (ss *session) showState() {
	s, d, cfg, w, notifier := ss.s, ss.d, ss.cfg, ss.w, ss.notifier
	s.setRefused("")
	s.rec.SetState(func() metrics.State {
		// Read from any goroutine (/healthz, another site's status): what
		// only the engine's goroutine may read is the copy publish keeps.
		st := metrics.State{Watches: w.Watches(), Overflows: w.Overflows(), Degraded: w.Degraded(), Endpoints: notifier.Stats(),
			SearchConsole: ss.consoles.statuses(), SelfCheck: ss.selfCheckStatus(), Roots: []string{cfg.Root, cfg.OutputRoot()}}
		s.mu.Lock()
		st.Refused = s.refused
		s.mu.Unlock()
		st.Stalled = d.keeper.stalled(time.Now())
		st.Fleet, st.FleetStats = ss.fleetTrouble(), ss.fleetStats()
		return st
	})
	s.log.Info("starting", zap.String("root", cfg.Root), zap.String("base_url", cfg.BaseURL),
		zap.Int("depth", cfg.Depth), zap.Int("watches", w.Watches()))
}

// firstBuild publishes the configuration's first build. One that lands
// nothing ends serve with ErrNothingPublished if first; otherwise it is
// logged and the site serves on (so does one that found the output
// directory replaced: the loop restarts on it).
func (ss *session) firstBuild(ctx context.Context, first bool) (ending, error) {
	var rep *build.Report
	ss.lastBatch = time.Now()
	if ss.publish(InitialBuild, func() (*build.Report, error) {
		var err error
		rep, err = ss.eng.Build(ctx)
		return rep, err
	}) {
		ss.printsOwed = rep != nil && rep.PrintsOwed
		return serving, nil
	}
	switch {
	case ctx.Err() != nil:
		return stopped, nil
	case ss.replaced != nil:
	case first:
		return stopped, fmt.Errorf("%w: %w", ErrNothingPublished, ss.s.lastErr)
	default:
		ss.s.log.Error("the first build published nothing", zap.Error(ss.s.lastErr))
	}
	return serving, nil
}

// startTickers starts the loop's beat and watch.rescan's ticker.
func (ss *session) startTickers() {
	if ss.d.keeper != nil {
		t := time.NewTicker(ss.d.keeperTick())
		ss.onClose(t.Stop)
		ss.alive = t.C
	}
	if ss.cfg.Watch.Rescan > 0 {
		t := time.NewTicker(ss.cfg.Watch.Rescan)
		ss.onClose(t.Stop)
		ss.rescan = t.C
	}
}

// restart ends serve to serve the configuration again (rootReplaced),
// holding the locks of the directories its paths name now.
func (ss *session) restart() (ending, version, error) {
	if err := ss.s.locks.Renew(ss.d.me); err != nil {
		return stopped, version{}, err
	}
	return rootReplaced, version{}, nil
}

// step waits for the loop's next event and handles it, returning serving
// to go on.
func (ss *session) step(ctx context.Context) (ending, version, error) {
	eng := ss.eng
	if ss.printsOwed {
		// Before anything else: until then, a change is judged by its
		// bytes. A change waits for this one walk at most.
		ss.printsOwed = false
		ss.publish(PagePrints, func() (*build.Report, error) { return eng.Build(ctx, ss.betweenBatches()) })
		return serving, version{}, nil
	}
	select {
	case <-ctx.Done():
		return stopped, version{}, nil
	case err := <-ss.watchDone:
		ss.watchDone = nil
		if ctx.Err() != nil {
			return stopped, version{}, nil // both were ready; shutting down
		}
		return stopped, version{}, fmt.Errorf("watcher stopped: %w", err)
	case b := <-ss.batches:
		return ss.changed(ctx, b)
	case files := <-ss.urlFiles:
		ss.publish(URLFiles, func() (*build.Report, error) { return eng.UpdateURLFiles(ctx, files) })
	case <-ss.rescan:
		// Pages written a moment ago (less watch.settle) or empty keep
		// their version: their writers' events, lost or not, or the
		// next rescan, bring them once they are whole.
		ss.publish(PeriodicRescan, func() (*build.Report, error) { return eng.Build(ctx, build.WithBatchTime(time.Now())) })
	case <-ss.alive:
		ss.d.keeper.beat()
		ss.d.setStatus()
	case <-ss.retry.c:
		ss.retry.fired()
		ss.publish(Retry, func() (*build.Report, error) { return eng.Rebuild(ctx, eng.Failed(), ss.betweenBatches()) })
	case <-ss.due.c:
		ss.due.fired()
		ss.publish(Due, func() (*build.Report, error) { return eng.Rebuild(ctx, eng.DueGroups(time.Now()), ss.betweenBatches()) })
	case <-ss.quiet.c:
		ss.quiet.fired()
	case <-ss.fleetChanged():
		ss.agreed(ctx)
	case next := <-ss.s.updates:
		if ss.s.take(ctx, next) {
			return reloaded, next, nil
		}
	}
	return serving, version{}, nil
}

// betweenBatches is the option of a publish that reads pages between the
// watcher's batches (the prints' build, a retry, a due group, the fleet's
// agreement): a page written since the last batch was made is the next
// batch's, and an empty one may be a writer's truncation; either keeps its
// published version here, or a half-written file would be taken as a
// version of its page, its lastmod moved and its URL owed. (WithBatchTime
// takes a batch's time, less watch.settle, as the moment after which a
// file is unseen: the last batch's plus settle is that batch's moment.)
func (ss *session) betweenBatches() build.UpdateOption {
	return build.WithBatchTime(ss.lastBatch.Add(ss.cfg.Watch.Settle))
}

// changed publishes a batch of the watcher's: the files of sitemapd's
// someone removed, written again; the changes it names, but for the pages
// still being written, which keep their published version until they are
// quiet; or a full build when its events were lost or robots.txt's rules
// changed; or ends serve when the document root was replaced.
func (ss *session) changed(ctx context.Context, b watch.Batch) (ending, version, error) {
	eng := ss.eng
	ss.lastBatch = b.At
	if len(b.Restore) > 0 && !b.RootChanged && !b.Rescan {
		// A full build (the other cases) writes every missing file too.
		if lost := eng.Lost(b.Restore); len(lost) > 0 {
			ss.s.log.Info("sitemapd's files were removed by someone else (a deploy?); writing them again", zap.Strings("groups", lost))
			ss.publish(Restored, func() (*build.Report, error) { return eng.Restore(ctx, lost) })
		}
	}
	switch {
	case b.RootChanged:
		// The engine holds the old directory open: start afresh,
		// holding the new one's lock.
		ss.s.log.Info("document root replaced; restarting on the new one", zap.String("root", ss.cfg.Root))
		return ss.restart()
	case b.Rescan:
		// Pages still being written (events lost in a deploy) keep
		// their versions until their events come.
		ss.publish(Rescan, func() (*build.Report, error) {
			return eng.Build(ctx, build.WithBusy(b.Busy), build.WithBatchTime(b.At))
		})
	case robotsTouched(b) && eng.RobotsChanged():
		// New rules may let in or keep out any page: read it all.
		ss.publish(RobotsChanged, func() (*build.Report, error) {
			return eng.Build(ctx, build.WithBusy(b.Busy), build.WithBatchTime(b.At))
		})
	case len(b.Dirs) > 0:
		ss.publish(Change, func() (*build.Report, error) {
			return eng.Update(ctx, b.Dirs, b.Names, build.WithBusy(b.Busy), build.WithBatchTime(b.At))
		})
	}
	return serving, version{}, nil
}

// publish runs one publish (runner.publish) and schedules what follows
// it: the keeper's beat, the due timer, the quiet timer, a retry of the
// groups that failed, the status. It reports whether the publish landed.
func (ss *session) publish(why Trigger, run func() (*build.Report, error)) bool {
	s, d, eng := ss.s, ss.d, ss.eng
	if why.Full() {
		d.keeper.scan()
	}
	landed := s.publish(eng, ss.led, why, func() (*build.Report, error) {
		rep, err := run()
		errors.As(err, &ss.replaced)
		return rep, err
	})
	d.keeper.beat()
	if landed {
		ss.announceSitemaps()
		ss.selfcheck.Published()
		ss.publishDigest()
	}
	ss.due.set(eng.Due())
	ss.quiet.published(why.Full())
	if failed := eng.Failed(); len(failed) > 0 {
		if delay, armed := ss.retry.arm(); armed {
			s.log.Info("will retry the groups that failed", zap.Strings("groups", failed), zap.Duration("in", delay))
		}
	} else {
		ss.retry.reset()
	}
	d.setStatus()
	return landed
}
