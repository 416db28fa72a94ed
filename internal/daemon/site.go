package daemon

import (
	"context"
	"errors"
	"reflect"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/build"
	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/lock"
	"github.com/sitemapd/sitemapd/internal/metrics"
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
	page    pageState
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
// cannot go on. It takes the site's locks unless it was given them.
// fatalFirst makes a first build that writes nothing at all an error
// (ErrNothingPublished), as it is for a process serving one site; with
// several, the site is reported unhealthy and goes on.
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
	end := func() {}
	if why.Full() {
		end = d.heap.begin()
	}
	rep, err := run()
	end()
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
		groups, urls := eng.Listed()
		s.rec.Published(why.String(), rep.Duration, urls, err)
		s.rec.Hreflang(rep.Hreflang)
		if why.Full() {
			s.rec.LeftOut(rep.LeftOut)
		}
		s.recordPublish(why, rep, groups, urls, err)
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
	s.announce(eng, led, why, rep)
	if d.opts.OnIdle != nil {
		d.opts.OnIdle(*rep)
	}
	return landed
}

// announce logs a publish that has a report (landed or not), and tells
// what it changed to the notifier (the index URLs a ping names) and to
// Options.Notifier.
func (s *runner) announce(eng *build.Engine, led *ledger, why Trigger, rep *build.Report) {
	d := s.d
	c := rep.Changes
	n := c.Counts()
	s.log.Info("published", zap.Stringer("trigger", why), zap.Int("groups", rep.Groups),
		zap.Int("added", n.Added), zap.Int("changed", n.Changed), zap.Int("removed", n.Removed),
		zap.Int("files_written", len(rep.Written)), zap.Int("files_removed", len(rep.Removed)),
		rep.LeftOutField(), rep.Lastmods.Field(), zap.Float64("seconds", rep.Duration.Seconds()))
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
}
