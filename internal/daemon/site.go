package daemon

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/build"
	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/lock"
	"github.com/sitemapd/sitemapd/internal/metrics"
	"github.com/sitemapd/sitemapd/internal/pagestore"
	"github.com/sitemapd/sitemapd/internal/ping"
	"github.com/sitemapd/sitemapd/internal/watch"
)

// version is one configuration of a site, as loaded.
type version struct {
	cfg *config.Config
	// sum is the configuration file's checksum for a single-site process,
	// where any edit of the file is a reload (as it always was); zero
	// with several sites, where a site is rebuilt only when its own
	// configuration differs.
	sum [32]byte
}

// differs reports whether v is another configuration than o.
func (v version) differs(o version) bool {
	return v.sum != o.sum || !reflect.DeepEqual(v.cfg, o.cfg)
}

// runner serves one site: its own engine, watcher, notifier, locks,
// retries and due timer, on the process's shared inotify instance. Its
// goroutine runs run; the supervisor hands it new configurations with
// offer and stops it by canceling its context.
type runner struct {
	d    *Daemon
	name string
	log  *zap.Logger
	rec  *metrics.Site

	updates chan version // the latest configuration offered, not yet taken
	cancel  context.CancelFunc
	done    chan struct{} // closed when run has returned; err is set then
	err     error

	eng     atomic.Pointer[build.Engine] // while one serves, for the keeper
	locks   *lock.Set                    // run's goroutine only
	lastErr error                        // of the last publish; run's goroutine only

	mu      sync.Mutex
	running version // the configuration served (or starting)
	groups  int     // what the status line says is published
	urls    int
	refused string // why the shrink guard refuses the last full build, "" if it does not
}

func (s *runner) setRefused(why string) {
	s.mu.Lock()
	s.refused = why
	s.mu.Unlock()
}

func (s *runner) current() version {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running
}

func (s *runner) setCurrent(v version) {
	s.mu.Lock()
	s.running = v
	s.mu.Unlock()
}

func (s *runner) published() (groups, urls int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.groups, s.urls
}

// offer hands the site a new configuration; an earlier one it has not
// taken yet is dropped. Only the supervisor calls it.
func (s *runner) offer(v version) {
	select {
	case <-s.updates:
	default:
	}
	s.updates <- v
}

// run serves the site until ctx is done (then it returns nil) or it
// cannot go on. It takes the site's locks unless it was given them. fatalFirst makes a first build that writes nothing at
// all an error (ErrNothingPublished), as it is for a process serving one
// site; with several, the site is reported unhealthy and goes on.
func (s *runner) run(ctx context.Context, v version, fatalFirst bool) (err error) {
	d := s.d
	s.setCurrent(v)
	if s.locks == nil { // a site added by a reload
		s.locks, err = lock.TakeAll(ctx, v.cfg, d.me, lock.Options{Wait: func(h *lock.HeldError) {
			s.log.Info("waiting for another sitemapd to finish", zap.Stringer("holder", h.Holder), zap.String("dir", h.Dir))
		}})
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
	}
	defer func() { s.locks.Close() }()
	d.keeper.beat()
	first := fatalFirst
	for {
		end, next, err := s.serve(ctx, v.cfg, first)
		if err != nil || end == stopped {
			return err
		}
		first = false
		d.starting(s)
		if end == reloaded {
			s.log.Info("configuration reloaded; rebuilding", zap.String("config", next.cfg.File))
			d.keeper.set("reloading")
			v = next
			s.setCurrent(v)
		}
	}
}

// ending is why serve returned (stopped when it returns an error).
type ending int

const (
	stopped      ending = iota // ctx is done
	reloaded                   // a valid new configuration was taken: serve it
	rootReplaced               // the document root is another directory: serve cfg again on it
)

// serve runs one configuration until ctx is done, a new configuration is
// taken (it is returned with reloaded), or the document root was
// replaced.
//
// first is the first configuration served since the start: if its first
// build writes nothing at all, serve fails with ErrNothingPublished.
func (s *runner) serve(ctx context.Context, cfg *config.Config, first bool) (ending, version, error) {
	d := s.d
	led := &ledger{observed: d.opts.Notifier != nil}
	eng, err := build.New(cfg, s.log, build.WithChanges(), build.WithWriteAhead(led.owe), build.WithChangeURLs(led.wantsURLs))
	if err != nil {
		return stopped, version{}, err
	}
	defer eng.Close()
	led.eng = eng
	s.eng.Store(eng)
	defer s.eng.Store(nil)
	d.keeper.beat()

	// Watch before the first build, so nothing changed during it is missed.
	w, err := watch.New(watch.Options{
		Root: cfg.Root, Settle: cfg.Watch.Settle, MaxDelay: cfg.Watch.MaxDelay,
		SkipDir: eng.SkipDir,
		// robots.txt is never a page, but its rules decide which pages are.
		Ignore: func(name string) bool { return name != "robots.txt" && eng.IgnoreName(name) },
		Mux:    d.mux,
	}, s.log)
	if err != nil {
		return stopped, version{}, err
	}
	defer w.Close()
	wctx, stopWatch := context.WithCancel(ctx)
	batches := make(chan watch.Batch)
	watchDone := make(chan error, 1)
	go func() { watchDone <- w.Run(wctx, batches) }()
	defer func() {
		stopWatch()
		if watchDone != nil {
			<-watchDone
		}
	}()

	urlFiles, stopURLFiles := watchURLFiles(ctx, d.mux.Source(), eng.URLFiles(), cfg.Watch.Settle, cfg.Watch.MaxDelay, s.log)
	defer stopURLFiles()

	// The notifier holds the state directory while this configuration
	// serves; its runs stop (requests canceled, nothing owed lost) first.
	notifier, err := ping.New(cfg, s.log, ping.WithVersion(d.opts.Version), ping.WithPublishedBefore(pagestore.Exists(cfg.StateDir)))
	if err != nil {
		return stopped, version{}, err
	}
	defer notifier.Close()
	led.notifier = notifier
	d.keeper.beat()
	nctx, stopNotify := context.WithCancel(ctx)
	notifyDone := make(chan error, 1)
	go func() { notifyDone <- notifier.Run(nctx) }()
	defer func() {
		stopNotify()
		if err := <-notifyDone; err != nil {
			s.log.Error("notifier", zap.Error(err))
		}
	}()

	s.setRefused("")
	s.rec.SetState(func() metrics.State {
		// Read from any goroutine (/healthz, another site's status): what
		// only the engine's goroutine may read is the copy publish keeps.
		st := metrics.State{Watches: w.Watches(), Overflows: w.Overflows(), Degraded: w.Degraded(), Endpoints: notifier.Stats(),
			Roots: []string{cfg.Root, cfg.OutputRoot()}}
		s.mu.Lock()
		st.Refused = s.refused
		s.mu.Unlock()
		st.Stalled = d.keeper.stalled(time.Now())
		return st
	})
	s.log.Info("starting", zap.String("root", cfg.Root), zap.String("base_url", cfg.BaseURL),
		zap.Int("depth", cfg.Depth), zap.Int("watches", w.Watches()))
	var retry backoff
	defer retry.stop()
	var due dueTimer
	defer due.stop()
	var quiet quietTimer
	defer quiet.stop()
	// replaced is set when a publish finds the output directory moved or
	// replaced: the loop then serves the configuration again, on the
	// directory its path names now.
	var replaced *build.OutputReplacedError
	publish := func(why Trigger, run func() (*build.Report, error)) bool {
		if why.Full() {
			d.keeper.scan()
		}
		landed := s.publish(eng, led, why, func() (*build.Report, error) {
			rep, err := run()
			errors.As(err, &replaced)
			return rep, err
		})
		d.keeper.beat()
		due.set(eng.Due())
		quiet.published(why.Full())
		if failed := eng.Failed(); len(failed) > 0 {
			if delay, armed := retry.arm(); armed {
				s.log.Info("will retry the groups that failed", zap.Strings("groups", failed), zap.Duration("in", delay))
			}
		} else {
			retry.reset()
		}
		d.setStatus()
		return landed
	}
	if !publish(InitialBuild, func() (*build.Report, error) { return eng.Build(ctx) }) {
		switch {
		case ctx.Err() != nil:
			return stopped, version{}, nil
		case replaced != nil:
		case first:
			return stopped, version{}, fmt.Errorf("%w: %w", ErrNothingPublished, s.lastErr)
		default:
			s.log.Error("the first build published nothing", zap.Error(s.lastErr))
		}
	}
	d.started(s)
	// The main loop beats while it waits for work, and the status is
	// brought up to date (/healthz may change between publishes).
	var alive <-chan time.Time
	if d.keeper != nil {
		t := time.NewTicker(d.keeperTick())
		defer t.Stop()
		alive = t.C
	}

	var rescan <-chan time.Time
	if cfg.Watch.Rescan > 0 {
		t := time.NewTicker(cfg.Watch.Rescan)
		defer t.Stop()
		rescan = t.C
	}
	for {
		if replaced != nil {
			s.log.Error("output directory moved or replaced; restarting on the directory its path names now", zap.String("output_dir", replaced.Dir))
			if err := s.locks.Renew(d.me); err != nil {
				return stopped, version{}, err
			}
			return rootReplaced, version{}, nil
		}
		select {
		case <-ctx.Done():
			return stopped, version{}, nil
		case err := <-watchDone:
			watchDone = nil
			if ctx.Err() != nil {
				return stopped, version{}, nil // both were ready; shutting down
			}
			return stopped, version{}, fmt.Errorf("watcher stopped: %w", err)
		case b := <-batches:
			if b.RootChanged {
				// The engine holds the old directory open: start afresh,
				// holding the new one's lock.
				s.log.Info("document root replaced; restarting on the new one", zap.String("root", cfg.Root))
				if err := s.locks.Renew(d.me); err != nil {
					return stopped, version{}, err
				}
				return rootReplaced, version{}, nil
			}
			switch {
			case b.Rescan:
				publish(Rescan, func() (*build.Report, error) { return eng.Build(ctx) })
			case robotsTouched(b) && eng.RobotsChanged():
				// New rules may let in or keep out any page: read it all.
				publish(RobotsChanged, func() (*build.Report, error) { return eng.Build(ctx) })
			default:
				publish(Change, func() (*build.Report, error) { return eng.Update(ctx, b.Dirs, b.Names) })
			}
		case files := <-urlFiles:
			publish(URLFiles, func() (*build.Report, error) { return eng.UpdateURLFiles(ctx, files) })
		case <-rescan:
			publish(PeriodicRescan, func() (*build.Report, error) { return eng.Build(ctx) })
		case <-alive:
			d.keeper.beat()
			d.setStatus()
		case <-retry.c:
			retry.fired()
			publish(Retry, func() (*build.Report, error) { return eng.Rebuild(ctx, eng.Failed()) })
		case <-due.c:
			due.fired()
			publish(Due, func() (*build.Report, error) { return eng.Rebuild(ctx, eng.DueGroups(time.Now())) })
		case <-quiet.c:
			quiet.fired()
		case next := <-s.updates:
			if s.take(ctx, next) {
				return reloaded, next, nil
			}
		}
	}
}

// take takes the locks a new configuration needs (another output root or
// state directory), reporting whether it can be served; if another process
// holds them, the old configuration stays.
func (s *runner) take(ctx context.Context, next version) bool {
	if !next.differs(s.current()) {
		return false
	}
	locks, err := lock.TakeAll(ctx, next.cfg, s.d.me, lock.Options{Keep: s.locks})
	if err != nil {
		s.log.Error("new configuration cannot be served; keeping the old one", zap.Error(err))
		return false
	}
	s.locks.Close() // what the new one does not need
	s.locks = locks
	return true
}

// publish runs one build and logs and reports its outcome. Errors are
// logged, never fatal: the site keeps serving what it has. It reports
// whether anything of it is on disk: a file written, or found right
// already, or a publish that failed nowhere; or one the shrink guard
// refused (what was published stays). Otherwise s.lastErr says why.
func (s *runner) publish(eng *build.Engine, led *ledger, why Trigger, run func() (*build.Report, error)) (landed bool) {
	d := s.d
	led.initial, led.indexes = why == InitialBuild, nil
	rep, err := run()
	if why.Full() && !errors.Is(err, context.Canceled) {
		// A full walk leaves much garbage behind, and the runtime returns
		// it to the system only slowly: give it back now, before the
		// publish is announced, so that the resident size of a daemon that
		// mostly idles is what it keeps, and what follows the announcement
		// (a change) does not pay for the walk's collection.
		debug.FreeOSMemory()
	}
	s.lastErr = err
	if err := eng.Refused(); err != nil {
		s.setRefused(err.Error())
	} else {
		s.setRefused("")
	}
	if errors.Is(err, context.Canceled) {
		return false
	}
	if rep != nil {
		_, urls := eng.Listed()
		s.rec.Published(why.String(), rep.Duration, urls, err)
		if why.Full() {
			s.rec.LeftOut(rep.LeftOut)
		}
	}
	var refused *build.ShrinkError
	switch {
	case errors.As(err, &refused):
		// Nothing was published; it stays refused until a publish is not
		// (or the configuration changes).
		s.log.Error("publish refused by the shrink guard", zap.Stringer("trigger", why), rep.LeftOutField(), zap.Error(err))
		if d.opts.OnIdle != nil {
			d.opts.OnIdle(*rep)
		}
		return true
	case err != nil:
		s.log.Error("publish incomplete", zap.Stringer("trigger", why), zap.Error(err))
	}
	if rep == nil {
		return false
	}
	landed = err == nil || len(rep.Written) > 0 || rep.Unchanged > 0
	groups, urls := eng.Listed()
	s.mu.Lock()
	s.groups, s.urls = groups, urls
	s.mu.Unlock()
	c := rep.Changes
	n := c.Counts()
	s.log.Info("published", zap.Stringer("trigger", why), zap.Int("groups", rep.Groups),
		zap.Int("added", n.Added), zap.Int("changed", n.Changed), zap.Int("removed", n.Removed),
		zap.Int("files_written", len(rep.Written)), zap.Int("files_removed", len(rep.Removed)),
		rep.LeftOutField(), zap.Float64("seconds", rep.Duration.Seconds()))
	if !c.Empty() || len(rep.Written)+len(rep.Removed) > 0 {
		p := Publish{
			Site:    s.name,
			Changes: c, Files: append(append([]string{}, rep.Written...), rep.Removed...), Indexes: eng.IndexURLs(),
			Initial: why == InitialBuild,
		}
		// The pages were recorded ahead of the files (ledger.owe); the
		// index URLs a ping names are known for sure only now.
		if len(p.Files) > 0 && !slices.Equal(p.Indexes, led.indexes) {
			if err := led.notifier.Note(nil, p.Indexes, true, false); err != nil {
				s.log.Error("cannot record what search engines are owed", zap.Error(err))
			}
		}
		if d.opts.Notifier != nil {
			d.opts.Notifier.Published(p)
		}
	}
	if d.opts.OnIdle != nil {
		d.opts.OnIdle(*rep)
	}
	return landed
}
