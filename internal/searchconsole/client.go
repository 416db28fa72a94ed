package searchconsole

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/ctxtime"
	"github.com/sitemapd/sitemapd/internal/publish"
)

// PollEvery is how often Google's view of each sitemap is read: Google
// fetches a known sitemap every few days at most, so a few readings a day
// see each of its fetches, at four calls a day a sitemap.
const PollEvery = 6 * time.Hour

// QuotaWait is the least wait after a quota error.
const QuotaWait = time.Hour

// maxPassBackoff caps the wait between passes that failed.
const maxPassBackoff = time.Hour

// Client is one searchconsole endpoint: it submits the sitemaps the site
// announces and reads back Google's view of them. Announce and Status are
// safe to call while Run runs.
type Client struct {
	ep       config.Endpoint
	log      *zap.Logger
	http     *http.Client
	base     string // the API's base URL, ending in "/"
	ua       string
	account  string // client_email
	tokenURI string
	// newToken drops the token held, so that the next call asks for one:
	// after a 401, Google's answer to a token revoked or expired early.
	// Only the goroutine making calls uses it and http.
	newToken func()

	attempts   int
	maxBackoff time.Duration
	now        func() time.Time
	sleep      func(context.Context, time.Duration) error
	store      *publish.Publisher // state_dir
	kick       chan struct{}

	mu        sync.Mutex
	rnd       *rand.Rand
	st        *state
	announced []string        // sorted; nil before the first Announce
	outside   map[string]bool // sitemaps outside the property, warned of
	requests  int
	failures  int
	lastErr   error
	failing   time.Time // since when calls fail; zero after a success
	streak    int       // passes failed in a row
	nextPoll  time.Time
	running   bool
}

// Option adjusts a Client.
type Option func(*Client)

// WithVersion sets the version the User-Agent names.
func WithVersion(v string) Option {
	return func(c *Client) { c.ua = "sitemapd/" + v + " (+https://github.com/sitemapd/sitemapd)" }
}

// WithAPIBase points the client at another base URL of the API (ending
// in "/"): for tests only, whose fake answers on 127.0.0.1 (the token
// endpoint comes from the key file's token_uri, as Google's libraries
// read it). No configuration key sets it: the API is Google's.
func WithAPIBase(u string) Option { return func(c *Client) { c.base = u } }

// withClock and withSleep replace the clock and the wait between
// attempts: for tests only.
func withClock(now func() time.Time) Option { return func(c *Client) { c.now = now } }
func withSleep(s func(context.Context, time.Duration) error) Option {
	return func(c *Client) { c.sleep = s }
}

// New returns the client of a searchconsole endpoint of a validated
// configuration: its key read and parsed (the token is asked for at the
// first call), its state read from state_dir. Close releases it.
func New(cfg *config.Config, ep config.Endpoint, log *zap.Logger, opts ...Option) (*Client, error) {
	if log == nil {
		log = zap.NewNop()
	}
	c := &Client{ep: ep, log: log.Named("searchconsole"), base: apiBase, attempts: cfg.Notify.Attempts, maxBackoff: cfg.Notify.MaxBackoff,
		now: time.Now, sleep: ctxtime.Sleep, kick: make(chan struct{}, 1), outside: map[string]bool{}, rnd: rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))}
	WithVersion("dev")(c)
	for _, o := range opts {
		o(c)
	}
	key, err := config.ReadCredentials(ep.Credentials)
	if err != nil {
		return nil, fmt.Errorf("endpoint %s: %w", ep.Name, err)
	}
	conf, err := google.JWTConfigFromJSON(key, Scope)
	if err != nil {
		return nil, fmt.Errorf("endpoint %s: %s: %w", ep.Name, ep.Credentials, err)
	}
	c.account, c.tokenURI = conf.Email, conf.TokenURL
	c.newToken = func() { c.http = newHTTP(conf, cfg.Notify.Timeout) }
	c.newToken()
	if err := os.MkdirAll(cfg.StateDir, 0o700); err != nil {
		return nil, fmt.Errorf("create state directory: %w", err)
	}
	if c.store, err = publish.OpenState(cfg.StateDir); err != nil {
		return nil, err
	}
	c.st = readState(cfg.StateDir, ep.Name, ep.Property, false, c.log)
	return c, nil
}

// newHTTP returns the HTTP client of the API calls: each carries a token
// of the service account, asked of token_uri with a signed JWT and reused
// until it expires; a timeout per request; no redirect followed (Google's
// API answers where it is asked, and a token must go nowhere else).
func newHTTP(conf interface {
	TokenSource(context.Context) oauth2.TokenSource
}, timeout time.Duration) *http.Client {
	noRedirect := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	base := http.DefaultTransport.(*http.Transport).Clone()
	tokens := &http.Client{Timeout: timeout, Transport: base, CheckRedirect: noRedirect}
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, tokens)
	return &http.Client{Timeout: timeout, CheckRedirect: noRedirect,
		Transport: &oauth2.Transport{Source: conf.TokenSource(ctx), Base: base}}
}

// Close releases the state directory.
func (c *Client) Close() error { return c.store.Close() }

// Account is the service account's email, which the property's owner
// adds as a user in Search Console.
func (c *Client) Account() string { return c.account }

// Announce says which sitemaps the site announces now: its index files
// and robots.txt's Sitemap lines. Those the property does not hold are
// left out, with a warning; a new one is submitted at once, and one
// sitemapd submitted that is no longer announced is deleted from the
// property.
func (c *Client) Announce(urls []string) {
	var in []string
	for _, u := range urls {
		if c.ep.Covers(u) {
			in = append(in, u)
			continue
		}
		c.mu.Lock()
		told := c.outside[u]
		c.outside[u] = true
		c.mu.Unlock()
		if !told { // once a process: Announce comes with every publish
			c.log.Warn("sitemap is outside the Search Console property; not submitted", zap.String("endpoint", c.ep.Name),
				zap.String("sitemap", u), zap.String("property", c.ep.Property))
		}
	}
	slices.Sort(in)
	in = slices.Compact(in)
	if in == nil {
		in = []string{}
	}
	c.mu.Lock()
	changed := c.announced == nil || !slices.Equal(in, c.announced)
	c.announced = in
	c.mu.Unlock()
	if changed {
		select {
		case c.kick <- struct{}{}:
		default:
		}
	}
}

// Status reports the endpoint's state.
func (c *Client) Status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.st.status(c.ep.Name, c.ep.Property, c.announced)
	s.Account, s.Requests, s.Failures, s.FailingSince = c.account, c.requests, c.failures, c.failing
	if c.lastErr != nil {
		s.LastError, s.Kind = c.lastErr.Error(), kindOf(c.lastErr)
	}
	if c.running {
		s.NextPoll = c.nextPoll
	}
	return s
}

// Run submits and polls until ctx is done: a pass at each Announce that
// changes the sitemaps, every PollEvery, and after a failure with a
// growing wait (1 minute doubling to an hour; QuotaWait after a quota
// error).
func (c *Client) Run(ctx context.Context) error {
	c.mu.Lock()
	c.running = true
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.running = false
		c.mu.Unlock()
	}()
	for {
		t := time.NewTimer(c.pass(ctx))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-c.kick:
			t.Stop()
		case <-t.C:
		}
	}
}

// note counts a call and its outcome.
func (c *Client) note(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests++
	if err == nil {
		c.lastErr, c.failing = nil, time.Time{}
		return
	}
	if errors.Is(err, context.Canceled) {
		return
	}
	c.failures++
	c.lastErr = err
	if c.failing.IsZero() {
		c.failing = c.now()
	}
}

// save writes the state file if it changed.
func (c *Client) save() {
	c.mu.Lock()
	data, err := json.MarshalIndent(c.st, "", " ")
	c.mu.Unlock()
	if err == nil {
		_, err = c.store.WriteFile(StateFile(c.ep.Name), data)
	}
	if err != nil {
		c.log.Error("cannot save the Search Console state; a restart submits the sitemaps again", zap.String("endpoint", c.ep.Name), zap.Error(err))
	}
}

// backoff is the wait before attempt+1 of a call: full jitter over an
// exponential ceiling of 1 s·2^(attempt-1), capped at notify.max_backoff.
func (c *Client) backoff(attempt int) time.Duration {
	ceiling := c.maxBackoff
	if attempt-1 < 32 {
		ceiling = min(ceiling, time.Second<<(attempt-1))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Duration(c.rnd.Int64N(int64(ceiling) + 1))
}

func kindOf(err error) Kind {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.Kind
	}
	return Other
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
