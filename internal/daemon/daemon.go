// Package daemon runs sitemapd as a long-lived service: one full build, then
// the watcher's batches rebuilt incrementally, a periodic full rescan, and
// configuration reloads (SIGHUP, or an edit of the file) that keep the old
// configuration in force when the new one is invalid.
package daemon

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"time"

	"github.com/fsnotify/fsnotify"
	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/build"
	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/lock"
	"github.com/sitemapd/sitemapd/internal/metrics"
	"github.com/sitemapd/sitemapd/internal/ping"
	"github.com/sitemapd/sitemapd/internal/tree"
	"github.com/sitemapd/sitemapd/internal/watch"
)

// Publish is what one publish changed, handed to the Notifier.
type Publish struct {
	Changes tree.Changes // page URLs added, changed and removed
	Files   []string     // sitemap and index files written or removed
	Indexes []string     // URLs of the index files now published
	Initial bool         // the first build after a start or reload
}

// Notifier receives every publish that changed something. It must not
// block: it is called from the build loop. The daemon tells search engines
// itself (package ping); a Notifier only observes.
type Notifier interface {
	Published(Publish)
}

// Options configure a Daemon.
type Options struct {
	// ConfigPath is the file loaded at start and on every reload.
	ConfigPath string
	Notifier   Notifier
	// Reload delivers reload requests (SIGHUP). Edits of the config file
	// trigger reloads too.
	Reload <-chan struct{}
	// OnIdle, if set, is called after every publish, when no batch is
	// pending (tests use it to wait without sleeping).
	OnIdle func(build.Report)
	// Version is named in the User-Agent of notifications and in metrics.
	Version string
	// Lifecycle, if set, is told when the daemon is ready, reloading and
	// stopping, what it is doing, and that it is alive (see keeper).
	Lifecycle Lifecycle
	// Watchdog is systemd's WatchdogSec (WATCHDOG_USEC): how long systemd
	// waits for a keep-alive before it kills the daemon. 0: no watchdog.
	Watchdog time.Duration
}

// Lifecycle is told of the daemon's state changes: systemd's sd_notify
// (READY=1, RELOADING=1, STOPPING=1, WATCHDOG=1, STATUS=,
// EXTEND_TIMEOUT_USEC=). Its methods are called from more than one
// goroutine, never at once.
type Lifecycle interface {
	Ready()     // the first build after a start or reload is published
	Reloading() // a new configuration is being applied
	Stopping()
	// Alive is sent while the daemon shows signs of life: its main loop
	// waiting for work, or a publish making progress. A stuck loop or a
	// stalled publish stops sending it.
	Alive()
	// Status says what the daemon is doing, in one line: "scanning:
	// 412,000 entries", "published 1,203 groups, 52,340 URLs; waiting for
	// changes", "degraded: …" (the /healthz reason).
	Status(string)
	// ExtendTimeout asks for d more before the start (or reload) times
	// out; sent with Alive while starting, so only while making progress.
	ExtendTimeout(d time.Duration)
}

// Daemon is a running sitemapd.
type Daemon struct {
	opts    Options
	log     *zap.Logger
	metrics *metrics.Metrics
	health  http.Handler // d.metrics's, for the status line
	lastErr error        // of the last publish
	keeper  *keeper      // nil without a Lifecycle
	me      lock.Holder  // written in the lock files
	locks   *lock.Set    // of the configuration served

	// What the status line says was published: the last full build's
	// groups, and its URLs plus those added since less those removed.
	groups, urls int
}

// ErrNothingPublished is returned by Run when the first build after the
// start wrote nothing at all (every write failed: the output directory is
// not writable, or foreign files are in the way of every sitemap). A
// daemon that would serve nothing must not look started.
var ErrNothingPublished = errors.New("the first build published nothing")

// New returns a daemon; Run starts it.
func New(opts Options, log *zap.Logger) *Daemon {
	if log == nil {
		log = zap.NewNop()
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	d := &Daemon{opts: opts, log: log, metrics: metrics.New(opts.Version)}
	d.health = d.metrics.Handler()
	if opts.Lifecycle != nil {
		d.keeper = newKeeper(opts.Lifecycle, opts.Watchdog)
	}
	abs, _ := filepath.Abs(opts.ConfigPath)
	d.me = lock.Holder{PID: os.Getpid(), Command: "run", Config: abs}
	return d
}

// Run loads the configuration and serves until ctx is canceled, then
// returns nil. The initial configuration must be valid (an error is
// returned at once); later invalid ones are logged and ignored. A publish in
// progress when ctx is canceled is finished or abandoned without leaving
// partial files.
//
// One daemon serves an output tree and a state directory: Run locks both
// (package lock) and returns a *lock.HeldError naming the process in the
// way, if any; a `sitemapd build` in the way is waited for. If the first
// build writes nothing at all, Run returns ErrNothingPublished with the
// reasons, and the Lifecycle is never told Ready.
func (d *Daemon) Run(ctx context.Context) (err error) {
	if d.keeper != nil {
		kctx, stopKeeper := context.WithCancel(ctx)
		defer stopKeeper()
		go d.keeper.run(kctx)
	}
	cfg, sum, err := load(d.opts.ConfigPath)
	if err != nil {
		return err
	}
	d.keeper.set("starting")
	d.locks, err = lock.TakeAll(ctx, cfg, d.me, lock.Options{Wait: func(h *lock.HeldError) {
		d.log.Info("waiting for another sitemapd to finish", zap.Stringer("holder", h.Holder), zap.String("dir", h.Dir))
		d.keeper.set("waiting for " + h.Holder.String() + " to finish")
	}})
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	defer func() { d.locks.Close() }()
	d.keeper.beat()
	cfgEvents, stopCfgWatch := d.watchConfig()
	defer stopCfgWatch()
	if cfg.Listen != "" {
		// Bound once: a new listen address takes a restart.
		if err := d.metrics.Serve(ctx, cfg.Listen, d.log); err != nil {
			return fmt.Errorf("listen: %w", err)
		}
	}
	defer func() {
		if err != nil {
			d.keeper.set("failed: " + err.Error())
		} else {
			d.keeper.set("stopping")
		}
		d.lifecycle(Lifecycle.Stopping)
	}()
	first := true
	for {
		end, next, err := d.serve(ctx, cfg, sum, cfgEvents, first)
		if err != nil || end == stopped {
			return err
		}
		first = false
		d.keeper.setStarting(true)
		d.lifecycle(Lifecycle.Reloading)
		if end == reloaded {
			d.log.Info("configuration reloaded; rebuilding", zap.String("config", d.opts.ConfigPath))
			d.keeper.set("reloading")
			cfg, sum = next, sha256.Sum256(mustRead(d.opts.ConfigPath))
		}
	}
}

func load(path string) (*config.Config, [32]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, [32]byte{}, fmt.Errorf("read config: %w", err)
	}
	cfg, err := config.Load(data, path)
	return cfg, sha256.Sum256(data), err
}

func mustRead(path string) []byte {
	b, _ := os.ReadFile(path)
	return b
}

// watchConfig reports writes to the config file (editors replace it, so the
// directory is watched). A failure only costs automatic reloads.
func (d *Daemon) watchConfig() (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	fw, err := fsnotify.NewWatcher()
	if err == nil {
		err = fw.Add(filepath.Dir(d.opts.ConfigPath))
	}
	if err != nil {
		d.log.Warn("cannot watch the config file; reload with SIGHUP", zap.Error(err))
		if fw != nil {
			fw.Close()
		}
		return ch, func() {}
	}
	abs, _ := filepath.Abs(d.opts.ConfigPath)
	go func() {
		for {
			select {
			case ev, ok := <-fw.Events:
				if !ok {
					return
				}
				if p, _ := filepath.Abs(ev.Name); p == abs && !ev.Has(fsnotify.Chmod) {
					select {
					case ch <- struct{}{}:
					default:
					}
				}
			case _, ok := <-fw.Errors:
				if !ok {
					return
				}
			}
		}
	}()
	return ch, func() { fw.Close() }
}

// ending is why serve returned (stopped when it returns an error).
type ending int

const (
	stopped      ending = iota // ctx is done
	reloaded                   // a valid new configuration was loaded: serve it
	rootReplaced               // the document root is another directory: serve cfg again on it
)

// serve runs one configuration until ctx is done, a valid new configuration
// is loaded (it is returned with reloaded), or the document root was
// replaced.
//
// first is the first configuration served since the start: if its first
// build writes nothing at all, serve fails with ErrNothingPublished.
func (d *Daemon) serve(ctx context.Context, cfg *config.Config, sum [32]byte, cfgEvents <-chan struct{}, first bool) (ending, *config.Config, error) {
	led := &ledger{}
	eng, err := build.New(cfg, d.log, build.WithChanges(), build.WithWriteAhead(led.owe))
	if err != nil {
		return stopped, nil, err
	}
	defer eng.Close()
	led.eng = eng
	if d.keeper != nil {
		src := progressSource(eng.Progress)
		d.keeper.progress.Store(&src)
		defer d.keeper.progress.Store(nil)
	}
	d.keeper.beat()

	// Watch before the first build, so nothing changed during it is missed.
	w, err := watch.New(watch.Options{
		Root: cfg.Root, Settle: cfg.Watch.Settle, MaxDelay: cfg.Watch.MaxDelay,
		SkipDir: eng.SkipDir,
		// robots.txt is never a page, but its rules decide which pages are.
		Ignore: func(name string) bool { return name != "robots.txt" && eng.IgnoreName(name) },
	}, d.log)
	if err != nil {
		return stopped, nil, err
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

	// The notifier holds the state directory while this configuration
	// serves; its runs stop (requests canceled, nothing owed lost) first.
	notifier, err := ping.New(cfg, d.log, ping.WithVersion(d.opts.Version))
	if err != nil {
		return stopped, nil, err
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
			d.log.Error("notifier", zap.Error(err))
		}
	}()

	d.metrics.SetState(func() metrics.State {
		st := metrics.State{Watches: w.Watches(), Overflows: w.Overflows(), Degraded: w.Degraded(), Endpoints: notifier.Stats(),
			Roots: []string{cfg.Root, cfg.OutputRoot()}}
		if err := eng.Refused(); err != nil {
			st.Refused = err.Error()
		}
		return st
	})
	d.log.Info("starting", zap.String("root", cfg.Root), zap.String("base_url", cfg.BaseURL),
		zap.Int("depth", cfg.Depth), zap.Int("watches", w.Watches()))
	var retry backoff
	defer retry.stop()
	var due dueTimer
	defer due.stop()
	publish := func(why Trigger, run func() (*build.Report, error)) bool {
		if why.Full() {
			d.keeper.scan()
		}
		landed := d.publish(eng, led, why, run)
		d.keeper.beat()
		due.set(eng.Due())
		if failed := eng.Failed(); len(failed) > 0 {
			if delay, armed := retry.arm(); armed {
				d.log.Info("will retry the groups that failed", zap.Strings("groups", failed), zap.Duration("in", delay))
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
			return stopped, nil, nil
		case first:
			return stopped, nil, fmt.Errorf("%w: %w", ErrNothingPublished, d.lastErr)
		}
	}
	d.keeper.setStarting(false)
	d.lifecycle(Lifecycle.Ready)
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
		select {
		case <-ctx.Done():
			return stopped, nil, nil
		case err := <-watchDone:
			watchDone = nil
			if ctx.Err() != nil {
				return stopped, nil, nil // both were ready; shutting down
			}
			return stopped, nil, fmt.Errorf("watcher stopped: %w", err)
		case b := <-batches:
			if b.RootChanged {
				// The engine holds the old directory open: start afresh,
				// holding the new one's lock.
				d.log.Info("document root replaced; restarting on the new one", zap.String("root", cfg.Root))
				if err := d.locks.Renew(d.me); err != nil {
					return stopped, nil, err
				}
				return rootReplaced, nil, nil
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
		case <-d.opts.Reload:
			if next := d.reload(ctx, sum); next != nil {
				return reloaded, next, nil
			}
		case <-cfgEvents:
			if next := d.reload(ctx, sum); next != nil {
				return reloaded, next, nil
			}
		}
	}
}

// lifecycle tells the Lifecycle, if any.
func (d *Daemon) lifecycle(f func(Lifecycle)) {
	if d.opts.Lifecycle != nil {
		f(d.opts.Lifecycle)
	}
}

// Handler serves /healthz and /metrics (tests use it without a listener).
func (d *Daemon) Handler() http.Handler { return d.metrics.Handler() }

// robotsTouched reports whether a batch may have changed the docroot's
// robots.txt.
func robotsTouched(b watch.Batch) bool {
	if !slices.Contains(b.Dirs, "") {
		return false
	}
	names, byName := b.Names[""]
	return !byName || slices.Contains(names, "robots.txt")
}

// reload loads the config file again; it returns the new configuration if
// it is valid and different, nil otherwise. The locks the new one needs
// are taken (another output root or state directory); if another process
// holds them, the old configuration stays.
func (d *Daemon) reload(ctx context.Context, current [32]byte) *config.Config {
	cfg, sum, err := load(d.opts.ConfigPath)
	switch {
	case err != nil:
		d.log.Error("new configuration is invalid; keeping the old one", zap.Error(err))
		return nil
	case bytes.Equal(sum[:], current[:]):
		return nil
	}
	locks, err := lock.TakeAll(ctx, cfg, d.me, lock.Options{Keep: d.locks})
	if err != nil {
		d.log.Error("new configuration cannot be served; keeping the old one", zap.Error(err))
		return nil
	}
	d.locks.Close() // what the new one does not need
	d.locks = locks
	return cfg
}

// keeperTick is how often the main loop beats and refreshes the status.
func (d *Daemon) keeperTick() time.Duration {
	if d.keeper == nil {
		return statusEvery
	}
	return d.keeper.tick
}

// setStatus says what the daemon is doing now that no publish runs: the
// /healthz reason if it is unhealthy, what is published otherwise.
func (d *Daemon) setStatus() {
	if d.keeper == nil {
		return
	}
	if reason := d.healthReason(); reason != "" {
		d.keeper.set("degraded: " + reason)
		return
	}
	d.keeper.set(fmt.Sprintf("published %s, %s; waiting for changes",
		plural(d.groups, "group"), plural(d.urls, "URL")))
}

func plural(n int, what string) string {
	if n != 1 {
		what += "s"
	}
	return commas(int64(n)) + " " + what
}

// healthReason is why /healthz says unhealthy, "" when it says ok.
func (d *Daemon) healthReason() string {
	rec := httptest.NewRecorder()
	d.health.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
	if rec.Code == http.StatusOK {
		return ""
	}
	var h struct {
		Reason string `json:"reason"`
	}
	if json.Unmarshal(rec.Body.Bytes(), &h) != nil || h.Reason == "" {
		return "unhealthy (HTTP " + strconv.Itoa(rec.Code) + ")"
	}
	return h.Reason
}

// publish runs one build and logs and reports its outcome. Errors are
// logged, never fatal: the daemon keeps serving what it has. It reports
// whether anything of it is on disk: a file written, or found right
// already, or a publish that failed nowhere; or one the shrink guard
// refused (what was published stays). Otherwise d.lastErr says why.
func (d *Daemon) publish(eng *build.Engine, led *ledger, why Trigger, run func() (*build.Report, error)) (landed bool) {
	led.initial, led.indexes = why == InitialBuild, nil
	rep, err := run()
	d.lastErr = err
	if errors.Is(err, context.Canceled) {
		return false
	}
	if rep != nil {
		_, urls := eng.Listed()
		d.metrics.Published(why.String(), rep.Duration, urls, err)
		if why.Full() {
			d.metrics.LeftOut(rep.LeftOut)
		}
	}
	var refused *build.ShrinkError
	switch {
	case errors.As(err, &refused):
		// Nothing was published; it stays refused until a publish is not
		// (or the configuration changes).
		d.log.Error("publish refused by the shrink guard", zap.Stringer("trigger", why), rep.LeftOutField(), zap.Error(err))
		if d.opts.OnIdle != nil {
			d.opts.OnIdle(*rep)
		}
		return true
	case err != nil:
		d.log.Error("publish incomplete", zap.Stringer("trigger", why), zap.Error(err))
	}
	if rep == nil {
		return false
	}
	landed = err == nil || len(rep.Written) > 0 || rep.Unchanged > 0
	d.groups, d.urls = eng.Listed()
	c := rep.Changes
	d.log.Info("published", zap.Stringer("trigger", why), zap.Int("groups", rep.Groups),
		zap.Int("added", len(c.Added)), zap.Int("changed", len(c.Changed)), zap.Int("removed", len(c.Removed)),
		zap.Int("files_written", len(rep.Written)), zap.Int("files_removed", len(rep.Removed)),
		rep.LeftOutField(), zap.Float64("seconds", rep.Duration.Seconds()))
	if !c.Empty() || len(rep.Written)+len(rep.Removed) > 0 {
		p := Publish{
			Changes: c, Files: append(append([]string{}, rep.Written...), rep.Removed...), Indexes: eng.IndexURLs(),
			Initial: why == InitialBuild,
		}
		// The pages were recorded ahead of the files (ledger.owe); the
		// index URLs a ping names are known for sure only now.
		if len(p.Files) > 0 && !slices.Equal(p.Indexes, led.indexes) {
			if err := led.notifier.Note(nil, p.Indexes, true, false); err != nil {
				d.log.Error("cannot record what search engines are owed", zap.Error(err))
			}
		}
		if d.opts.Notifier != nil {
			d.opts.Notifier.Published(p)
		}
	}
	if why.Full() {
		// A full walk leaves much garbage behind, and the runtime returns
		// it to the system only slowly: give it back now, so the resident
		// size of a daemon that mostly idles is what it keeps.
		debug.FreeOSMemory()
	}
	if d.opts.OnIdle != nil {
		d.opts.OnIdle(*rep)
	}
	return landed
}

// ledger records what search engines are owed by a publish before its
// files land (build.WithWriteAhead): a crash right after a sitemap's rename
// would otherwise lose the notification for good, as the restart finds the
// sitemap already listing the page. A crash may repeat a notification;
// none is lost.
type ledger struct {
	eng      *build.Engine
	notifier *ping.Notifier // nil until the notifier is up
	initial  bool           // the publish is the first build of this run
	indexes  []string       // index URLs a ping was recorded for, this publish
}

func (l *ledger) owe(c tree.Changes, files bool) error {
	if l.notifier == nil {
		return nil
	}
	if files {
		l.indexes = l.eng.IndexURLs() // as published so far; checked after
	}
	return l.notifier.Note(slices.Concat(c.Added, c.Changed, c.Removed), l.indexes, files, l.initial)
}

// Retries of failed groups start after retryMin and double while they keep
// failing, up to retryMax: a full disk or a foreign file in the way is
// picked up soon after it is fixed, without flooding the log meanwhile.
const (
	retryMin = 5 * time.Second
	retryMax = 5 * time.Minute
)

// backoff is the retry timer; c is nil while no retry is due.
type backoff struct {
	timer *time.Timer
	c     <-chan time.Time
	delay time.Duration // of the last retry armed; 0 after a success
}

// arm schedules a retry unless one is pending, returning its delay.
func (b *backoff) arm() (time.Duration, bool) {
	if b.c != nil {
		return 0, false
	}
	b.delay = min(max(2*b.delay, retryMin), retryMax)
	b.timer = time.NewTimer(b.delay)
	b.c = b.timer.C
	return b.delay, true
}

// fired notes that the retry is running.
func (b *backoff) fired() { b.c = nil }

// reset cancels any retry and starts the next failure from retryMin.
func (b *backoff) reset() {
	b.stop()
	b.delay = 0
}

func (b *backoff) stop() {
	if b.timer != nil {
		b.timer.Stop()
	}
	b.c = nil
}

// dueTimer fires when the first page still to come is due; c is nil while
// none is.
type dueTimer struct {
	timer *time.Timer
	c     <-chan time.Time
	at    time.Time
}

// dueSlack is how long after a page's time its group is rebuilt: a little,
// so that the clock has passed it for sure.
const dueSlack = 50 * time.Millisecond

// set arms the timer for at (the zero time: none).
func (t *dueTimer) set(at time.Time) {
	if at.Equal(t.at) && (t.c != nil || at.IsZero()) {
		return
	}
	t.stop()
	t.at = at
	if at.IsZero() {
		return
	}
	t.timer = time.NewTimer(max(time.Until(at)+dueSlack, dueSlack))
	t.c = t.timer.C
}

// fired notes that the timer's publish is running.
func (t *dueTimer) fired() { t.c, t.at = nil, time.Time{} }

func (t *dueTimer) stop() {
	if t.timer != nil {
		t.timer.Stop()
	}
	t.c = nil
}
