// Package daemon runs sitemapd as a long-lived service: for each site, one
// full build, then the watcher's batches rebuilt incrementally, a periodic
// full rescan; and configuration reloads (SIGHUP, or an edit of the file or
// of an included site file) that keep the old configuration in force when
// the new one is invalid.
//
// One process may serve several sites (config.Process): each runs on its
// own (site.go) with its own engine, notifier, locks and timers, on one
// shared inotify instance (watch.Mux); the Daemon supervises them, starting
// added sites, stopping removed ones and handing changed ones their new
// configuration on reload, while a site whose new configuration is invalid
// keeps its last valid one.
//
// Each site keeps a status.History of its publishes and its notifier's
// requests in its state directory, and the status page (/status, beside
// /healthz and /metrics) is a Snapshot of what the daemon knows of each
// site, taken per request (statuspage.go).
package daemon

import (
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/build"
	"github.com/sitemapd/sitemapd/internal/changeset"
	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/lock"
	"github.com/sitemapd/sitemapd/internal/metrics"
	"github.com/sitemapd/sitemapd/internal/outname"
	"github.com/sitemapd/sitemapd/internal/searchconsole"
	"github.com/sitemapd/sitemapd/internal/status"
	"github.com/sitemapd/sitemapd/internal/watch"
)

// Publish is what one publish changed, handed to the Notifier.
type Publish struct {
	Site    string            // the site's name ("" for an unnamed single site)
	Changes changeset.Changes // page URLs added, changed and removed
	Files   []string          // sitemap and index files written or removed
	Indexes []string          // URLs of the index files now published
	Initial bool              // the first build after a start or reload
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
	// SearchConsole is given to every searchconsole endpoint's client:
	// tests point them at a fake of Google (searchconsole.WithAPIBase).
	SearchConsole []searchconsole.Option
	// BoundBuilds bounds the heap while full builds run (buildheap.go);
	// cmd/sitemapd sets it unless GOGC or GOMEMLIMIT is set.
	BoundBuilds bool
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

// Daemon is a running sitemapd: the supervisor of its sites.
type Daemon struct {
	opts    Options
	log     *zap.Logger
	metrics atomic.Pointer[metrics.Metrics] // made by Run, once it knows how many sites
	keeper  *keeper                         // nil without a Lifecycle
	heap    *buildHeap                      // nil unless Options.BoundBuilds
	me      lock.Holder                     // written in the lock files
	mux     *watch.Mux                      // the process's one inotify instance

	multi  bool               // the configuration has sites: or include:
	sites  map[string]*runner // by name; the supervisor's goroutine only
	exited chan *runner       // sites whose run returned an error

	cfgEvents     chan struct{} // an edit of the configuration or of a site file
	include       []string      // the include globs watched
	unwatchConfig func()
	halt          chan struct{} // closed when Run returns

	mu        sync.Mutex
	pending   map[*runner]bool // sites starting: READY waits for them
	launched  bool             // every site of the start is running
	readySent bool
	all       []*runner // every site running, for the status and the keeper
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
	d := &Daemon{opts: opts, log: log, sites: map[string]*runner{}, exited: make(chan *runner), cfgEvents: make(chan struct{}, 1),
		halt: make(chan struct{}), pending: map[*runner]bool{}}
	d.metrics.Store(metrics.New(opts.Version))
	if opts.BoundBuilds {
		d.heap = newBuildHeap()
	}
	if opts.Lifecycle != nil {
		d.keeper = newKeeper(opts.Lifecycle, opts.Watchdog)
		src := progressSource(d.progress)
		d.keeper.progress.Store(&src)
	}
	abs, _ := filepath.Abs(opts.ConfigPath)
	d.me = lock.Holder{PID: os.Getpid(), Command: "run", Config: abs}
	return d
}

// Run loads the configuration and serves every site in it until ctx is
// canceled, then returns nil. The initial configuration must be valid (an
// error is returned at once; with several sites, at least one must be);
// later invalid ones are logged and ignored. A publish in progress when
// ctx is canceled is finished or abandoned without leaving partial files.
//
// One daemon serves an output tree and a state directory: each site locks
// both (package lock). With one site, Run returns a *lock.HeldError naming
// the process in the way, if any (a `sitemapd build` in the way is
// waited for), and ErrNothingPublished, with the reasons, if the first
// build writes nothing at all; the Lifecycle is then never told Ready.
// With several, a site that cannot start is logged and reported by
// /healthz, and the others serve.
func (d *Daemon) Run(ctx context.Context) (err error) {
	defer close(d.halt)
	if d.keeper != nil {
		kctx, stopKeeper := context.WithCancel(ctx)
		defer stopKeeper()
		go d.keeper.run(kctx)
	}
	proc, sum, err := loadProcess(d.opts.ConfigPath)
	if err != nil {
		return err
	}
	if proc.Multi && len(proc.Sites) == 0 {
		return fmt.Errorf("no site can be served: %w", proc.Err())
	}
	d.multi = proc.Multi
	if d.multi {
		d.metrics.Store(metrics.NewMulti(d.opts.Version))
	}
	// Every site's locks first: a second daemon on the same sites is
	// told so (exit 2) before it binds anything.
	d.keeper.set("starting")
	held, err := d.lockSites(ctx, proc)
	if held == nil {
		return err
	}
	defer func() {
		for _, l := range held { // those not handed to a runner
			l.Close()
		}
	}()
	d.keeper.beat()
	if d.mux, err = watch.NewMux(d.log); err != nil {
		return err
	}
	defer d.mux.Close()
	d.watchConfig(proc.Include)
	defer func() { d.unwatchConfig() }()
	// Mounted whether or not a listener serves it: Handler serves it too.
	d.metrics.Load().Mount("/status", status.NewHandler(statusSource{d}, d.log))
	if proc.Listen != "" {
		// Bound once: a new listen address takes a restart.
		if err := d.metrics.Load().Serve(ctx, proc.Listen, d.log); err != nil {
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
	defer d.stopAll()
	d.apply(ctx, proc, sum, held)
	d.mu.Lock()
	d.launched = true
	d.readyLocked()
	d.mu.Unlock()
	return d.loop(ctx)
}

// loop serves until ctx is done, taking reloads and the sites that stop;
// it ends with the error of a lone site that stopped, or when none is
// left.
func (d *Daemon) loop(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case s := <-d.exited:
			if end, err := d.siteStopped(s); end {
				return err
			}
		case <-d.opts.Reload:
			d.reload(ctx)
		case <-d.cfgEvents:
			d.reload(ctx)
		}
	}
}

// siteStopped takes a site's runner that returned: the process ends with
// it when it serves one site, or when it was the last; otherwise it is
// reported broken and forgotten, and the others serve on.
func (d *Daemon) siteStopped(s *runner) (end bool, err error) {
	if d.sites[s.name] != s {
		return false, nil // stopped meanwhile
	}
	if !d.multi {
		return true, s.err
	}
	d.log.Error("site stopped", zap.String("site", s.name), zap.Error(s.err))
	s.rec.SetBroken("it stopped: " + s.err.Error())
	s.cancel()
	d.forget(s)
	delete(d.sites, s.name)
	if len(d.sites) == 0 {
		// Nothing left to serve (another daemon holds every site, say):
		// a process that serves nothing must not look alive.
		return true, fmt.Errorf("no site is served any more; the last one stopped: %w", s.err)
	}
	return false, nil
}

func loadProcess(path string) (*config.Process, [32]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, [32]byte{}, fmt.Errorf("read config: %w", err)
	}
	p, err := config.LoadProcess(data, path)
	return p, sha256.Sum256(data), err
}

// reload loads the configuration again and applies what changed: with one
// site, any edit of the file; with several, each site's own configuration.
// An invalid file changes nothing; an invalid site keeps its last valid
// configuration, and the others go on.
func (d *Daemon) reload(ctx context.Context) {
	proc, sum, err := loadProcess(d.opts.ConfigPath)
	switch {
	case err != nil:
		d.log.Error("new configuration is invalid; keeping the old one", zap.Error(err))
		return
	case proc.Multi != d.multi:
		d.log.Error("new configuration switches between one site and several, which takes a restart; keeping the old one",
			zap.String("config", d.opts.ConfigPath))
		return
	}
	d.apply(ctx, proc, sum, nil)
	if !slices.Equal(proc.Include, d.include) {
		d.unwatchConfig()
		d.watchConfig(proc.Include)
	}
}

// lockSites takes the locks of every site at the start: with one site,
// its error is Run's; with several, a site whose locks another process
// holds is logged and reported, and not started, unless none is left.
// It returns nil and no error when ctx is done.
func (d *Daemon) lockSites(ctx context.Context, proc *config.Process) (map[string]*lock.Set, error) {
	held := map[string]*lock.Set{}
	var first error
	for _, cfg := range proc.Sites {
		log := d.siteLog(cfg.Name)
		locks, err := lock.TakeAll(ctx, cfg, d.me, lock.Options{Wait: func(h *lock.HeldError) {
			log.Info("waiting for another sitemapd to finish", zap.Stringer("holder", h.Holder), zap.String("dir", h.Dir))
			d.keeper.set("waiting for " + h.Holder.String() + " to finish")
		}})
		switch {
		case err != nil && ctx.Err() != nil:
			for _, l := range held {
				l.Close()
			}
			return nil, nil
		case err != nil && !d.multi:
			return nil, err
		case err != nil:
			log.Error("site not started", zap.Error(err))
			d.metrics.Load().Site(cfg.Name).SetBroken("it is not served: " + err.Error())
			first = cmp.Or(first, err)
		default:
			held[cfg.Name] = locks
		}
	}
	if len(held) == 0 {
		return nil, fmt.Errorf("no site can be served: %w", first)
	}
	return held, nil
}

// siteLog is the logger of a site: with several, it names the site.
func (d *Daemon) siteLog(name string) *zap.Logger {
	if d.multi {
		return d.log.With(zap.String("site", name))
	}
	return d.log
}

// apply makes the sites running those of proc: it starts the new ones,
// offers a changed configuration to each site whose configuration
// changed, stops the removed ones, and reports the invalid ones. held
// are the locks taken at the start (a site without them is not started
// then); nil on reload, where each new site takes its own.
func (d *Daemon) apply(ctx context.Context, proc *config.Process, sum [32]byte, held map[string]*lock.Set) {
	m := d.metrics.Load()
	keep := map[string]bool{}
	for _, cfg := range proc.Sites {
		v := version{cfg: cfg}
		if !d.multi {
			v.sum = sum
		}
		keep[cfg.Name] = true
		s := d.sites[cfg.Name]
		if s == nil && held != nil {
			if locks := held[cfg.Name]; locks != nil {
				delete(held, cfg.Name)
				d.launch(ctx, cfg.Name, v, locks)
			}
			continue
		}
		if s == nil {
			d.launch(ctx, cfg.Name, v, nil)
			continue
		}
		s.rec.SetBroken("")
		if v.differs(s.current()) {
			s.offer(v)
		}
	}
	for _, f := range proc.Failed {
		keep[f.Name] = true
		if s := d.sites[f.Name]; s != nil {
			d.log.Error("site configuration is invalid; the site keeps its last valid one", zap.String("site", f.Name), zap.Error(f.Err))
			s.rec.SetBroken("its new configuration is invalid, so the last valid one still serves: " + f.Err.Error())
			continue
		}
		d.log.Error("site configuration is invalid; the site is not served", zap.String("site", f.Name), zap.Error(f.Err))
		if f.Name != "" {
			m.Site(f.Name).SetBroken("its configuration is invalid, so it is not served: " + f.Err.Error())
		}
	}
	for name, s := range d.sites {
		if !keep[name] {
			d.log.Info("site removed from the configuration; stopping it", zap.String("site", name))
			d.stop(s)
			delete(d.sites, name)
			m.RemoveSite(name)
		}
	}
	if d.multi {
		for _, name := range m.SiteNames() {
			if !keep[name] {
				m.RemoveSite(name)
			}
		}
	}
}

// launch starts serving a site, with its locks if they are taken.
func (d *Daemon) launch(ctx context.Context, name string, v version, locks *lock.Set) {
	sctx, cancel := context.WithCancel(ctx)
	s := &runner{d: d, name: name, log: d.siteLog(name), rec: d.metrics.Load().Site(name), updates: make(chan version, 1),
		cancel: cancel, done: make(chan struct{}), locks: locks}
	d.sites[name] = s
	d.mu.Lock()
	d.all = append(d.all, s)
	d.mu.Unlock()
	d.starting(s)
	go func() {
		err := s.run(sctx, v, !d.multi)
		s.err = err
		close(s.done)
		if err != nil {
			select {
			case d.exited <- s:
			case <-d.halt:
			}
		}
	}()
}

// stop stops a site and waits for it.
func (d *Daemon) stop(s *runner) {
	s.cancel()
	<-s.done
	d.forget(s)
}

// stopAll stops every site, at once, and waits for them.
func (d *Daemon) stopAll() {
	for _, s := range d.sites {
		s.cancel()
	}
	for _, s := range d.sites {
		<-s.done
	}
}

// lifecycle tells the Lifecycle, if any.
func (d *Daemon) lifecycle(f func(Lifecycle)) {
	if d.opts.Lifecycle != nil {
		f(d.opts.Lifecycle)
	}
}

// Handler serves /healthz, /metrics and, once Run has started, /status
// (tests use it without a listener).
func (d *Daemon) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.metrics.Load().Handler().ServeHTTP(w, r)
	})
}

// robotsTouched reports whether a batch may have changed the docroot's
// robots.txt.
func robotsTouched(b watch.Batch) bool {
	if !slices.Contains(b.Dirs, "") {
		return false
	}
	names, byName := b.Names[""]
	return !byName || slices.Contains(names, outname.RobotsName)
}

// keeperTick is how often the main loop beats and refreshes the status.
func (d *Daemon) keeperTick() time.Duration {
	if d.keeper == nil {
		return statusEvery
	}
	return d.keeper.tick
}
