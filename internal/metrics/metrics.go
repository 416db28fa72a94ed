// Package metrics serves the daemon's health and Prometheus metrics on the
// optional `listen` address: /healthz answers 200 only while the last
// publish succeeded, no full build stands refused by the shrink guard,
// every directory is watched and no notify endpoint has been failing for
// longer than NotifyFailingAfter, with a short JSON body saying why not
// otherwise (paths in it relative to the roots); /metrics carries build counts and durations,
// URLs listed, watches, rescans, overflows and notifications by endpoint
// and outcome.
package metrics

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/ping"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// State is what the daemon reports of itself when asked.
type State struct {
	Watches   int  // directories watched
	Overflows int  // kernel queue overflows since the start
	Degraded  bool // some directories polled instead of watched, or the root missing
	// Refused is why the last full build was not published (the shrink
	// guard), until one is; "" otherwise.
	Refused   string
	Endpoints []ping.Stats
	// Roots are the directories (the document root, the output root)
	// whose absolute paths /healthz does not show: the paths its reasons
	// name are relative to them. An answer to anyone who can reach the
	// listener should not describe the server's filesystem.
	Roots []string
}

// NotifyFailingAfter is how long an endpoint's requests may keep failing
// (with URLs owed) before /healthz says so: long enough for a search
// engine's passing trouble and the retries of a few scheduled runs.
const NotifyFailingAfter = time.Hour

// Metrics collects what the daemon does. A nil *Metrics records nothing.
type Metrics struct {
	reg      *prometheus.Registry
	builds   *prometheus.CounterVec
	duration *prometheus.HistogramVec
	urls     prometheus.Gauge
	leftOut  *prometheus.GaugeVec

	mu        sync.Mutex
	state     func() State
	lastOK    bool
	lastErr   string
	lastBuild time.Time
}

// New returns a Metrics whose gauges read state when scraped.
func New(version string) *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		builds: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sitemapd_publishes_total",
			Help: "Publishes, by trigger (initial build, change, rescan, periodic rescan, retry) and result (ok, error).",
		}, []string{"trigger", "result"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "sitemapd_publish_duration_seconds",
			Help:    "Time to read, encode and write a publish, by trigger.",
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 10),
		}, []string{"trigger"}),
		urls: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "sitemapd_urls",
			Help: "URLs the published sitemaps list, after the last publish (full or not).",
		}),
		leftOut: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "sitemapd_pages_left_out",
			Help: "Pages whose files exist but that the last full build did not list, by reason.",
		}, []string{"reason"}),
		state: func() State { return State{} },
	}
	for _, why := range tree.Reasons() {
		m.leftOut.WithLabelValues(why.String()) // every reason, at 0 until counted
	}
	info := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "sitemapd_build_info", Help: "Always 1; the version is a label.",
		ConstLabels: prometheus.Labels{"version": version},
	})
	info.Set(1)
	m.reg.MustRegister(m.builds, m.duration, m.urls, m.leftOut, info, stateCollector{m},
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// SetState sets the function that reports the daemon's state.
func (m *Metrics) SetState(f func() State) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.state = f
	m.mu.Unlock()
}

// Published records one publish. urls is how many URLs the published
// sitemaps list after it, full build or not, or -1 when not known.
func (m *Metrics) Published(trigger string, d time.Duration, urls int, err error) {
	if m == nil {
		return
	}
	result := "ok"
	if err != nil {
		result = "error"
	}
	m.builds.WithLabelValues(trigger, result).Inc()
	m.duration.WithLabelValues(trigger).Observe(d.Seconds())
	if urls >= 0 {
		m.urls.Set(float64(urls))
	}
	m.mu.Lock()
	m.lastOK, m.lastBuild = err == nil, time.Now()
	m.lastErr = ""
	if err != nil {
		m.lastErr = err.Error()
	}
	m.mu.Unlock()
}

// LeftOut records the pages a full build left out, by reason.
func (m *Metrics) LeftOut(t tree.Tally) {
	if m == nil {
		return
	}
	for _, why := range tree.Reasons() {
		m.leftOut.WithLabelValues(why.String()).Set(float64(t[why]))
	}
}

// health is the /healthz body.
type health struct {
	Status    string    `json:"status"` // "ok", "unhealthy" or "degraded"
	Reason    string    `json:"reason,omitempty"`
	LastBuild time.Time `json:"last_build,omitzero"`
	Watches   int       `json:"watches"`
}

// health reports the daemon's health. Unhealthy: its sitemaps may not be
// what the tree says. Degraded: they are, but search engines are not being
// told. Either answers 503, with the reason.
func (m *Metrics) health() (health, bool) {
	m.mu.Lock()
	st := m.state()
	h := health{Status: "ok", LastBuild: m.lastBuild, Watches: st.Watches}
	lastOK, lastErr := m.lastOK, m.lastErr
	m.mu.Unlock()
	switch {
	case h.LastBuild.IsZero():
		h.Reason = "the first build has not finished"
	case st.Refused != "":
		h.Reason = st.Refused
	case !lastOK:
		h.Reason = "the last publish failed: " + lastErr
	case st.Degraded:
		h.Reason = "some directories are not watched (see the log: inotify limits, or the root is missing)"
	}
	if h.Reason != "" {
		h.Status = "unhealthy"
	} else if h.Reason = notifyTrouble(st.Endpoints, time.Now()); h.Reason != "" {
		h.Status = "degraded"
	}
	h.Reason = relative(h.Reason, st.Roots)
	return h, h.Reason == ""
}

// notifyTrouble says which endpoint is not being told, or "".
func notifyTrouble(eps []ping.Stats, now time.Time) string {
	for _, e := range eps {
		switch {
		case e.Gone:
			return fmt.Sprintf("notify endpoint %s answered 404 or 410 and is no longer called (%d URLs owed): check its url", e.Endpoint, e.Owed)
		case e.Owed > 0 && !e.FailingSince.IsZero() && now.Sub(e.FailingSince) > NotifyFailingAfter:
			return fmt.Sprintf("notifications to %s have failed since %s (%d URLs owed): %s",
				e.Endpoint, e.FailingSince.UTC().Format(time.RFC3339), e.Owed, e.LastError)
		}
	}
	return ""
}

// relative rewrites the absolute paths under roots in s as relative ones.
func relative(s string, roots []string) string {
	for _, r := range roots {
		if r == "" || r == "/" {
			continue
		}
		r = strings.TrimSuffix(r, "/")
		s = strings.ReplaceAll(s, r+"/", "")
		s = strings.ReplaceAll(s, r, ".")
	}
	return s
}

// Handler serves /healthz and /metrics.
func (m *Metrics) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		h, ok := m.health()
		w.Header().Set("Content-Type", "application/json")
		if !ok {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		json.NewEncoder(w).Encode(h)
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
	return mux
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
	log.Info("serving /healthz and /metrics", zap.String("listen", ln.Addr().String()))
	return nil
}

// stateCollector turns State into metrics when scraped.
type stateCollector struct{ m *Metrics }

var (
	descWatches   = prometheus.NewDesc("sitemapd_watches", "Directories watched.", nil, nil)
	descOverflows = prometheus.NewDesc("sitemapd_watch_overflows_total", "inotify queue overflows (each costs a full rescan).", nil, nil)
	descDegraded  = prometheus.NewDesc("sitemapd_watch_degraded", "1 while some directories are polled instead of watched.", nil, nil)
	descRequests  = prometheus.NewDesc("sitemapd_notify_requests_total", "Notification requests, by endpoint and outcome (success, failure).", []string{"endpoint", "outcome"}, nil)
	descOwed      = prometheus.NewDesc("sitemapd_notify_owed_urls", "URLs an endpoint is still owed.", []string{"endpoint"}, nil)
	descStatus    = prometheus.NewDesc("sitemapd_notify_last_status", "HTTP status of an endpoint's last answer (0: none).", []string{"endpoint"}, nil)
	descGone      = prometheus.NewDesc("sitemapd_notify_endpoint_gone", "1 when an endpoint answered 404/410 and is no longer called.", []string{"endpoint"}, nil)
)

func (c stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descWatches, descOverflows, descDegraded, descRequests, descOwed, descStatus, descGone} {
		ch <- d
	}
}

func (c stateCollector) Collect(ch chan<- prometheus.Metric) {
	c.m.mu.Lock()
	st := c.m.state()
	c.m.mu.Unlock()
	ch <- prometheus.MustNewConstMetric(descWatches, prometheus.GaugeValue, float64(st.Watches))
	ch <- prometheus.MustNewConstMetric(descOverflows, prometheus.CounterValue, float64(st.Overflows))
	ch <- prometheus.MustNewConstMetric(descDegraded, prometheus.GaugeValue, b2f(st.Degraded))
	for _, e := range st.Endpoints {
		ch <- prometheus.MustNewConstMetric(descRequests, prometheus.CounterValue, float64(e.Successes), e.Endpoint, "success")
		ch <- prometheus.MustNewConstMetric(descRequests, prometheus.CounterValue, float64(e.Failures), e.Endpoint, "failure")
		ch <- prometheus.MustNewConstMetric(descOwed, prometheus.GaugeValue, float64(e.Owed), e.Endpoint)
		ch <- prometheus.MustNewConstMetric(descStatus, prometheus.GaugeValue, float64(e.LastStatus), e.Endpoint)
		ch <- prometheus.MustNewConstMetric(descGone, prometheus.GaugeValue, b2f(e.Gone), e.Endpoint)
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
