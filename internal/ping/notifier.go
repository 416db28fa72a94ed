// Package ping tells search engines what changed.
//
// The Notifier keeps, for every configured endpoint, the set of URLs it is
// owed: page URLs added, changed or removed for an IndexNow endpoint, the
// index URLs for a classic ping endpoint. Publishes add to the sets (a URL
// changed ten times is owed once); each endpoint sends them on its own,
// a few seconds after the publish that owes them or at the turns of a
// cron schedule (window.go), so a slow or failing endpoint never delays
// another; a URL is forgotten only once its endpoint accepted it, and only
// if it was not owed again meanwhile. The sets live in state_dir, with
// each endpoint's Retry-After hold (hold.go), rewritten atomically
// whenever they change, so neither an outage nor a restart loses a change.
//
// Requests have a timeout and a User-Agent naming sitemapd. Network errors,
// 408, 429 and 5xx other than 501 are retried within a run with
// exponential backoff and full jitter; a 429 or 503 with Retry-After
// ends the run and holds the endpoint as long as it asked (hold.go); what
// is still owed after the last attempt waits for the next run. See
// send.go for how each status is handled. A redirect is followed only on
// the endpoint's own scheme, host and port (redirect.go):
// the key and URLs go nowhere the configuration does not name. An
// endpoint URL is only ever shown as redact.URL shows it, since it may
// carry credentials.
//
// Stats counts each endpoint's requests and says when it is tried next;
// an observer (WithObserver) is told of every request, for the daemon's
// status page.
package ping

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/robfig/cron/v3"
	"go.uber.org/zap"
	"golang.org/x/sys/unix"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/ctxtime"
	"github.com/sitemapd/sitemapd/internal/publish"
	"github.com/sitemapd/sitemapd/internal/safefile"
)

// Stats are one endpoint's counters, for logs and metrics.
type Stats struct {
	Endpoint   string
	Attempts   int    // HTTP requests made
	Successes  int    // requests the endpoint accepted
	Failures   int    // requests that failed, retried or not
	LastStatus int    // HTTP status of the last response; 0 for none
	LastError  string // the last failure, "" after a success
	Owed       int    // URLs owed now
	Gone       bool   // the endpoint answered 404/410; calls stopped
	// FailingSince is when the requests that have failed since the last
	// success began failing; zero after a success, or before any failure.
	FailingSince time.Time
	// LastAttempt is when the last request was answered or failed; zero
	// before the first.
	LastAttempt time.Time
	// NextTry is when the endpoint is next sent what it owes: its delay
	// after the publish that owed it, or its schedule's next turn, not
	// before its hold ends. Zero while nothing is owed, while it is being
	// sent, when the endpoint is gone, or when Run is not running (then
	// nothing is scheduled).
	NextTry time.Time
	// HeldUntil is when the hold its Retry-After asked for ends; zero for
	// none.
	HeldUntil time.Time
}

// failed notes a failed request.
func (s *Stats) failed(why string) {
	s.Failures++
	s.LastError = why
	if s.FailingSince.IsZero() {
		s.FailingSince = time.Now()
	}
}

// endpoint is one configured endpoint and what it is owed. Guarded by
// Notifier.mu.
type endpoint struct {
	cfg   config.Endpoint
	owed  map[string]uint64 // URL -> generation at which it was last owed
	gone  string            // endpoint URL that answered 404/410, or ""
	stats Stats
	t     timing // when it is sent next
}

// Notifier owes and sends notifications. Note is safe to call while a run
// is under way.
type Notifier struct {
	cfg    *config.Config
	log    *zap.Logger
	ua     string
	client *http.Client
	store  *publish.Publisher // state_dir, nil without endpoints
	lock   *os.File           // flock on state_dir, held while open
	sleep  func(context.Context, time.Duration) error

	mu    sync.Mutex
	eps   []*endpoint
	gen   uint64
	fresh bool // no state file existed: this site was never notified
	rnd   *rand.Rand
	cron  *cron.Cron // while Run runs, for Stats' NextTry; nil otherwise

	publishedBefore bool          // WithPublishedBefore
	observe         func(Attempt) // WithObserver; nil for none
	ledger          Ledger        // WithLedger; nil for none
}

// Option adjusts a Notifier.
type Option func(*Notifier)

// WithSleep replaces the wait between attempts (tests record the delays
// instead of waiting them).
func WithSleep(sleep func(context.Context, time.Duration) error) Option {
	return func(n *Notifier) { n.sleep = sleep }
}

// WithRand seeds the backoff jitter.
func WithRand(r *rand.Rand) Option { return func(n *Notifier) { n.rnd = r } }

// WithPublishedBefore says that the site was published before from this
// state directory (its page store is there). A state file missing beside
// it is then a ledger lost (deleted while the daemon was stopped), not a
// first run: what the first build finds changed since the sitemaps were
// last published is owed, as after a corrupt state file, rather than
// taken for the whole site and left to the sitemaps.
func WithPublishedBefore(published bool) Option {
	return func(n *Notifier) { n.publishedBefore = published }
}

// WithVersion sets the version the User-Agent names.
func WithVersion(v string) Option {
	return func(n *Notifier) { n.ua = "sitemapd/" + v + " (+https://github.com/sitemapd/sitemapd)" }
}

// ErrLocked reports that another sitemapd process uses the state directory.
var ErrLocked = errors.New("another sitemapd process is using the notification state")

// New returns a Notifier for a validated configuration, with what the state
// directory says is owed. With endpoints configured it creates state_dir if
// needed and locks it: a second process on the same state fails with
// ErrLocked. Close releases it.
func New(cfg *config.Config, log *zap.Logger, opts ...Option) (*Notifier, error) {
	if log == nil {
		log = zap.NewNop()
	}
	n := &Notifier{cfg: cfg, log: log.Named("notify"), sleep: ctxtime.Sleep, rnd: rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))}
	WithVersion("dev")(n)
	for _, o := range opts {
		o(n)
	}
	n.client = newClient(cfg.Notify.Timeout)
	for _, ec := range cfg.Notify.Endpoints {
		if ec.Kind == config.SearchConsole {
			continue // internal/searchconsole's, on a loop of its own
		}
		delay, delayed := ec.SendDelay()
		n.eps = append(n.eps, &endpoint{cfg: ec, owed: map[string]uint64{}, stats: Stats{Endpoint: ec.Name}, t: newTiming(delay, delayed)})
	}
	if len(n.eps) == 0 {
		return n, nil
	}
	if err := os.MkdirAll(cfg.StateDir, 0o700); err != nil {
		return nil, fmt.Errorf("create state directory: %w", err)
	}
	lock, err := safefile.Lock(filepath.Join(cfg.StateDir, "notify.lock"), 0o600)
	if err != nil {
		return nil, fmt.Errorf("open state lock: %w", err)
	}
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		lock.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w in %s", ErrLocked, cfg.StateDir)
		}
		return nil, fmt.Errorf("lock state directory %s: %w", cfg.StateDir, err)
	}
	n.lock = lock
	n.store, err = publish.OpenState(cfg.StateDir)
	if err != nil {
		n.Close()
		return nil, err
	}
	doc, lost, err := readState(cfg.StateDir, n.log)
	if err != nil {
		n.Close()
		return nil, err
	}
	if doc == nil && !lost && n.publishedBefore {
		n.log.Warn("notification state is missing though the site was published before: taken as lost; what changed since the last publish is owed",
			zap.String("path", filepath.Join(cfg.StateDir, StateFile)))
		lost = true
	}
	n.fresh = doc == nil && !lost
	if doc != nil {
		n.restore(doc)
	}
	return n, nil
}

// restore takes what the state file says each endpoint is owed, and
// whether it is gone or held.
func (n *Notifier) restore(doc *stateDoc) {
	for _, ep := range n.eps {
		st := doc.Endpoints[ep.cfg.Name]
		if st == nil {
			continue
		}
		for _, u := range st.URLs {
			ep.owed[u] = 0
		}
		if st.Gone == ep.cfg.URL {
			ep.gone = st.Gone // still the URL that answered it is gone
		}
		if h := st.Held; h != nil && h.URL == ep.cfg.URL {
			ep.t.hold = hold{until: h.Until, why: askedToWait} // a restart within it still waits
		}
	}
}

// Close releases the state directory. It does not wait for runs: cancel
// Run's context first.
func (n *Notifier) Close() error {
	var err error
	if n.store != nil {
		err = n.store.Close()
	}
	if n.lock != nil {
		if cerr := n.lock.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// WantsPages reports whether Note, called now, would record page URLs for
// some endpoint (an IndexNow endpoint, and not the first build of a site
// never notified): when it would not, a publish need not keep them.
func (n *Notifier) WantsPages(initial bool) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if initial && n.fresh {
		return false
	}
	for _, ep := range n.eps {
		if ep.cfg.Kind == config.IndexNow {
			return true
		}
	}
	return false
}

// Note owes the endpoints a publish: its page URLs (added, changed and
// removed alike: engines recrawl each) to IndexNow endpoints, its index URLs
// to ping endpoints when any sitemap file changed. initial marks the
// daemon's first build: on a site that was never notified (no state file)
// its URLs are the whole site, which engines learn from the sitemaps, not
// from a flood of IndexNow submissions.
func (n *Notifier) Note(pages, indexes []string, filesChanged, initial bool) error {
	if len(n.eps) == 0 {
		return nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	skipPages := initial && n.fresh
	if skipPages && len(pages) > 0 {
		n.log.Info("first run on this site: not submitting its existing URLs to IndexNow; the sitemaps list them",
			zap.Int("urls", len(pages)))
	}
	n.fresh = false
	n.gen++
	for _, ep := range n.eps {
		switch {
		case ep.cfg.Kind == config.IndexNow && !skipPages:
			for _, u := range pages {
				ep.owed[u] = n.gen
			}
			if len(pages) > 0 {
				ep.owedLocked(time.Now())
			}
		case ep.cfg.Kind == config.Ping && filesChanged && len(indexes) > 0:
			// The index URLs now published replace older ones: a ping
			// says "read the index again", once.
			clear(ep.owed)
			for _, u := range indexes {
				ep.owed[u] = n.gen
			}
		}
	}
	return n.saveLocked()
}

// saveLocked writes the state file if it changed. n.mu must be held. A
// state directory replaced while sitemapd ran is refused: the ledger
// would land in the directory held open, out of sight of the next start,
// which would then owe nothing.
func (n *Notifier) saveLocked() error {
	data, err := encodeState(n.eps)
	if err != nil {
		return err
	}
	if _, err := n.store.WriteFile(StateFile, data); err != nil {
		return fmt.Errorf("save notification state: %w", err)
	}
	return nil
}

// Stats returns every endpoint's counters.
func (n *Notifier) Stats() []Stats {
	n.mu.Lock()
	out := make([]Stats, len(n.eps))
	jobs := make([]cron.EntryID, len(n.eps))
	turn := make([]bool, len(n.eps))
	holdEnds := make([]time.Time, len(n.eps))
	c := n.cron
	for i, ep := range n.eps {
		out[i] = ep.stats
		out[i].Owed = len(ep.owed)
		out[i].Gone = ep.gone != ""
		if ep.t.hold.why == askedToWait {
			out[i].HeldUntil = ep.t.hold.until
		}
		if c != nil {
			out[i].NextTry, turn[i] = ep.nextTryLocked()
		}
		jobs[i], holdEnds[i] = ep.t.job, ep.t.hold.until
	}
	// Unlocked: cron answers from its own goroutine.
	n.mu.Unlock()
	for i := range out {
		if turn[i] {
			// The job's next turn, as cron has it (an @every schedule
			// counts from its last turn, not from now).
			out[i].NextTry = later(c.Entry(jobs[i]).Next, holdEnds[i])
		}
	}
	return out
}

// Result is what Flush did for one endpoint.
type Result struct {
	Endpoint string
	Sent     int   // URLs the endpoint accepted
	Owed     int   // URLs still owed after the run
	Err      error // why something is still owed, if anything is
}

// Flush sends what is owed now, every endpoint at once, and reports. An
// endpoint held by its Retry-After is not called; one whose last answer
// asks for a hold is held (for Run, after a restart).
func (n *Notifier) Flush(ctx context.Context) []Result {
	res := make([]Result, len(n.eps))
	var wg sync.WaitGroup
	for i, ep := range n.eps {
		n.mu.Lock()
		err, owed := ep.heldNowLocked(time.Now()), len(ep.owed)
		n.mu.Unlock()
		if err != nil {
			res[i] = Result{Endpoint: ep.cfg.Name, Owed: owed, Err: err}
			continue
		}
		wg.Go(func() {
			res[i] = n.send(ctx, ep, false)
			n.settle(ctx, ep, res[i], false)
		})
	}
	wg.Wait()
	return res
}

// Request is one request a run would make, for dry runs.
type Request struct {
	Endpoint string
	Method   string
	// URL is where it goes, as it may be shown: its query values other
	// than the index URL hidden (redact.URL), since it is printed.
	URL  string
	URLs []string // the page URLs it carries (IndexNow)
}

// Plan returns the requests a run would make now, without sending any.
func (n *Notifier) Plan() []Request {
	var out []Request
	for _, ep := range n.eps {
		urls, _ := n.snapshot(ep)
		if len(urls) == 0 {
			continue
		}
		switch ep.cfg.Kind {
		case config.IndexNow:
			on, _ := n.onHost(urls)
			for _, batch := range batches(on) {
				out = append(out, Request{Endpoint: ep.cfg.Name, Method: http.MethodPost, URL: shown(ep.cfg.URL), URLs: batch})
			}
		case config.Ping:
			for _, u := range urls {
				out = append(out, Request{Endpoint: ep.cfg.Name, Method: http.MethodGet, URL: shown(pingURL(ep.cfg.URL, u), u)})
			}
		}
	}
	return out
}

// OweIndex owes every ping endpoint a ping of the given index URLs, as if
// the index had just changed (`sitemapd ping -now`).
func (n *Notifier) OweIndex(indexes []string) error {
	return n.Note(nil, indexes, true, false)
}

// snapshot returns the URLs an endpoint is owed, sorted, with their
// generations; nothing for an endpoint that is gone.
func (n *Notifier) snapshot(ep *endpoint) ([]string, map[string]uint64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if ep.gone != "" {
		return nil, nil
	}
	gens := make(map[string]uint64, len(ep.owed))
	urls := make([]string, 0, len(ep.owed))
	for u, g := range ep.owed {
		urls = append(urls, u)
		gens[u] = g
	}
	slices.Sort(urls)
	return urls, gens
}

// forget forgets URLs an endpoint accepted, or that can never be
// delivered, unless they were owed again since the snapshot, and saves.
func (n *Notifier) forget(ep *endpoint, urls []string, gens map[string]uint64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, u := range urls {
		if g, ok := ep.owed[u]; ok && g == gens[u] {
			delete(ep.owed, u)
		}
	}
	if err := n.saveLocked(); err != nil {
		n.log.Error("cannot save notification state; a restart may send these URLs again", zap.Error(err))
	}
}

func pingURL(template, index string) string {
	return strings.ReplaceAll(template, "{sitemap}", url.QueryEscape(index))
}
