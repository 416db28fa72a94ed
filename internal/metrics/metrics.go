package metrics

import (
	"context"
	"errors"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/hreflang"
	"github.com/sitemapd/sitemapd/internal/ping"
	"github.com/sitemapd/sitemapd/internal/reach"
	"github.com/sitemapd/sitemapd/internal/searchconsole"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// State is what the daemon reports of itself when asked.
type State struct {
	Watches   int  // directories watched
	Overflows int  // kernel queue overflows since the start
	Degraded  bool // some directories polled instead of watched, or the root missing
	// Refused is why the last full build was not published (the shrink
	// guard), until one is; "" otherwise.
	Refused string
	// Stalled is why the daemon shows no sign of life (as its systemd
	// watchdog sees it); "" while it lives.
	Stalled string
	// Fleet is why the fleet's etcd cannot be reached, and since when;
	// "" while it can, or without a fleet.
	Fleet      string
	FleetStats *FleetStats // nil without a fleet
	Endpoints  []ping.Stats
	// SearchConsole is each searchconsole endpoint's state, Google's
	// view of the sitemaps among it.
	SearchConsole []searchconsole.Status
	// SelfCheck is the self-check's last view of the site; nil when it
	// is off.
	SelfCheck *reach.Status
	// Roots are the directories (the document root, the output root)
	// whose absolute paths /healthz does not show: the paths its reasons
	// name are relative to them. An answer to anyone who can reach the
	// listener should not describe the server's filesystem.
	Roots []string
}

// FleetStats is what a fleet's member reports (package fleet).
type FleetStats struct {
	Reachable, Leading bool
	Queued             int
	Requests, Adopted  int64
	// Resent and ResentURLs are the batches in flight found when taking
	// over as leader, and their URLs; Forgotten the URLs forgotten as the
	// leader sent them (fleet.Ledger).
	Resent, ResentURLs, Forgotten int64
}

// NotifyFailingAfter is how long an endpoint's requests may keep failing
// (with URLs owed) before /healthz says so: long enough for a search
// engine's passing trouble and the retries of a few scheduled runs.
const NotifyFailingAfter = time.Hour

// Metrics collects what the daemon does: the process's registry and one
// Site per site served. A nil *Metrics records nothing.
type Metrics struct {
	reg      *prometheus.Registry
	multi    bool     // per-site series carry the site label
	labels   []string // the per-site label names: none, or "site"
	builds   *prometheus.CounterVec
	duration *prometheus.HistogramVec
	urls     *prometheus.GaugeVec
	leftOut  *prometheus.GaugeVec
	hreflang *prometheus.GaugeVec
	// descs describe the state metrics (stateCollector), labelled as
	// the per-site series are.
	descs map[metric]*prometheus.Desc

	mu      sync.Mutex
	sites   map[string]*Site
	order   []string // site names in the order they were added
	mounted []route  // Mount's, served beside /healthz and /metrics
}

// route is a handler mounted on the listener.
type route struct {
	pattern string
	h       http.Handler
}

// Site records what the daemon does for one site. A nil *Site records
// nothing.
type Site struct {
	m      *Metrics
	name   string
	values []string // the per-site label values: none, or the name

	// guarded by m.mu
	state     func() State
	lastOK    bool
	lastErr   string
	lastBuild time.Time
	broken    string // why it is not served as configured, "" when it is
}

// New returns the Metrics of a process serving one site, whose series
// carry no site label.
func New(version string) *Metrics {
	m := newMetrics(version, false)
	m.Site("")
	return m
}

// NewMulti returns the Metrics of a process serving several sites: every
// per-site series carries a site label.
func NewMulti(version string) *Metrics { return newMetrics(version, true) }

func newMetrics(version string, multi bool) *Metrics {
	var site []string
	if multi {
		site = []string{"site"}
	}
	m := &Metrics{
		reg: prometheus.NewRegistry(), multi: multi, labels: site, sites: map[string]*Site{},
		builds:   publishes.counterVec(site),
		duration: publishDuration.histogramVec(site, durationBuckets),
		urls:     urlsListed.gaugeVec(site),
		leftOut:  pagesLeftOut.gaugeVec(site),
		hreflang: hreflangAlternates.gaugeVec(site),
		descs:    map[metric]*prometheus.Desc{},
	}
	for _, sm := range stateMetrics {
		m.descs[sm] = sm.desc(site)
	}
	info := buildInfo.gauge(prometheus.Labels{"version": version})
	info.Set(1)
	m.reg.MustRegister(m.builds, m.duration, m.urls, m.leftOut, m.hreflang, info, stateCollector{m},
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Site returns the recorder of the site named name, made on first use.
// A single-site Metrics has one recorder, whatever the name.
func (m *Metrics) Site(name string) *Site {
	if m == nil {
		return nil
	}
	if !m.multi {
		name = ""
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if s := m.sites[name]; s != nil {
		return s
	}
	s := &Site{m: m, name: name, state: func() State { return State{} }}
	if m.multi {
		s.values = []string{name}
	}
	for _, why := range tree.Reasons() {
		m.leftOut.WithLabelValues(s.with(why.String())...) // every reason, at 0 until counted
	}
	for _, why := range hreflang.Reasons() {
		m.hreflang.WithLabelValues(s.with(why.String())...)
	}
	m.sites[name] = s
	m.order = append(m.order, name)
	return s
}

// RemoveSite forgets a site that is no longer served, and its series.
func (m *Metrics) RemoveSite(name string) {
	if m == nil || !m.multi {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sites[name] == nil {
		return
	}
	delete(m.sites, name)
	m.order = slices.DeleteFunc(m.order, func(n string) bool { return n == name })
	for _, v := range []interface {
		DeletePartialMatch(prometheus.Labels) int
	}{m.builds, m.duration, m.urls, m.leftOut, m.hreflang} {
		v.DeletePartialMatch(prometheus.Labels{"site": name})
	}
}

// with is the label values of a per-site series: the site's, then vals.
func (s *Site) with(vals ...string) []string { return append(slices.Clone(s.values), vals...) }

// SetState, Published and LeftOut record for the single site of a
// Metrics made by New.
func (m *Metrics) SetState(f func() State) { m.Site("").SetState(f) }

// Published: see Site.Published.
func (m *Metrics) Published(trigger string, d time.Duration, urls int, err error) {
	m.Site("").Published(trigger, d, urls, err)
}

// LeftOut: see Site.LeftOut.
func (m *Metrics) LeftOut(t tree.Tally) { m.Site("").LeftOut(t) }

// SetState sets the function that reports the site's state.
func (s *Site) SetState(f func() State) {
	if s == nil {
		return
	}
	s.m.mu.Lock()
	s.state = f
	s.m.mu.Unlock()
}

// SetBroken says why the site is not served as configured (its
// configuration is invalid, or it stopped), "" once it is: /healthz
// reports the site unhealthy with that reason meanwhile.
func (s *Site) SetBroken(reason string) {
	if s == nil {
		return
	}
	s.m.mu.Lock()
	s.broken = reason
	s.m.mu.Unlock()
}

// Published records one publish. urls is how many URLs the published
// sitemaps list after it, full build or not, or -1 when not known.
func (s *Site) Published(trigger string, d time.Duration, urls int, err error) {
	if s == nil {
		return
	}
	result := "ok"
	if err != nil {
		result = "error"
	}
	m := s.m
	m.builds.WithLabelValues(s.with(trigger, result)...).Inc()
	m.duration.WithLabelValues(s.with(trigger)...).Observe(d.Seconds())
	if urls >= 0 {
		m.urls.WithLabelValues(s.values...).Set(float64(urls))
	}
	m.mu.Lock()
	s.lastOK, s.lastBuild = err == nil, time.Now()
	s.lastErr = ""
	if err != nil {
		s.lastErr = err.Error()
	}
	m.mu.Unlock()
}

// LeftOut records the pages a full build left out, by reason.
func (s *Site) LeftOut(t tree.Tally) {
	if s == nil {
		return
	}
	for _, why := range tree.Reasons() {
		s.m.leftOut.WithLabelValues(s.with(why.String())...).Set(float64(t[why]))
	}
}

// Hreflang records what the last publish made of the site's hreflang
// alternates, by reason.
func (s *Site) Hreflang(t hreflang.Tally) {
	if s == nil {
		return
	}
	for _, why := range hreflang.Reasons() {
		s.m.hreflang.WithLabelValues(s.with(why.String())...).Set(float64(t[why]))
	}
}

// Mount serves h at pattern (an http.ServeMux pattern) beside /healthz and
// /metrics, on the same listener and to the same clients: the status page
// is the daemon's, not this package's, and is mounted here so that
// `listen` stays one address. Mount before Serve; Handler serves what is
// mounted when it is called.
func (m *Metrics) Mount(pattern string, h http.Handler) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.mounted = append(m.mounted, route{pattern, h})
}

// Serve listens on addr until ctx is done. The listener is bound before it
// returns, so a bad address is reported at once.
func (m *Metrics) Serve(ctx context.Context, addr string, log *zap.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: m.Handler(), ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("health and metrics listener stopped", zap.Error(err))
		}
	}()
	paths := []string{"/healthz", "/metrics"}
	m.mu.Lock()
	for _, r := range m.mounted {
		paths = append(paths, r.pattern)
	}
	m.mu.Unlock()
	log.Info("serving "+strings.Join(paths, ", "), zap.String("listen", ln.Addr().String()))
	return nil
}

// stateCollector turns State into metrics when scraped.
type stateCollector struct{ m *Metrics }

func (c stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, sm := range stateMetrics {
		ch <- c.m.descs[sm]
	}
}

func (c stateCollector) Collect(ch chan<- prometheus.Metric) {
	for _, site := range c.m.states() {
		st, lv := site.state, site.values
		put := func(sm metric, v float64, labels ...string) {
			ch <- prometheus.MustNewConstMetric(c.m.descs[sm], sm.valueType(), v, append(slices.Clone(lv), labels...)...)
		}
		put(watches, float64(st.Watches))
		put(watchOverflows, float64(st.Overflows))
		put(watchDegraded, b2f(st.Degraded))
		for _, e := range st.Endpoints {
			put(notifyRequests, float64(e.Successes), e.Endpoint, "success")
			put(notifyRequests, float64(e.Failures), e.Endpoint, "failure")
			put(notifyOwed, float64(e.Owed), e.Endpoint)
			put(notifyStatus, float64(e.LastStatus), e.Endpoint)
			put(notifyGone, b2f(e.Gone), e.Endpoint)
		}
		collectConsoles(put, st.SearchConsole)
		if f := st.FleetStats; f != nil {
			put(fleetReachable, b2f(f.Reachable))
			put(fleetLeader, b2f(f.Leading))
			put(fleetQueued, float64(f.Queued))
			put(fleetRequests, float64(f.Requests))
			put(fleetAdopted, float64(f.Adopted))
			put(fleetResent, float64(f.Resent))
			put(fleetResentURLs, float64(f.ResentURLs))
			put(fleetForgotten, float64(f.Forgotten))
		}
		collectSelfCheck(put, st.SelfCheck)
	}
}

// siteState is one site's state and what else health needs, read at once.
type siteState struct {
	name      string
	values    []string
	state     State
	lastOK    bool
	lastErr   string
	lastBuild time.Time
	broken    string
}

// states reads every site's state, in the order the sites were added.
// The state functions are called without m.mu held: they read the
// daemon's parts, which may record metrics themselves.
func (m *Metrics) states() []siteState {
	m.mu.Lock()
	out := make([]siteState, 0, len(m.order))
	fns := make([]func() State, 0, len(m.order))
	for _, n := range m.order {
		s := m.sites[n]
		out = append(out, siteState{name: n, values: s.values, lastOK: s.lastOK, lastErr: s.lastErr, lastBuild: s.lastBuild, broken: s.broken})
		fns = append(fns, s.state)
	}
	m.mu.Unlock()
	for i, f := range fns {
		out[i].state = f()
	}
	return out
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// SiteNames lists the sites recorded, in the order they were added.
func (m *Metrics) SiteNames() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.order)
}
