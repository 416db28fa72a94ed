package metrics

import (
	"slices"

	"github.com/prometheus/client_golang/prometheus"
)

// metric names one of the metrics sitemapd exports (metricTable).
type metric int

const (
	publishes metric = iota
	publishDuration
	urlsListed
	pagesLeftOut
	hreflangAlternates
	buildInfo
	watches
	watchOverflows
	watchDegraded
	notifyRequests
	notifyOwed
	notifyStatus
	notifyGone
	consoleRequests
	consoleErrors
	consoleWarnings
	consolePending
	consoleURLs
	consoleDownloaded
	fleetReachable
	fleetLeader
	fleetQueued
	fleetRequests
	fleetAdopted
	fleetResent
	fleetResentURLs
	fleetForgotten
	selfCheckRuns
	selfCheckLast
	selfCheckURLs
	selfCheckProblems
)

// kind is a metric's Prometheus type; its String is the exposition's
// TYPE.
type kind int

const (
	counter kind = iota
	gauge
	histogram
)

func (k kind) String() string { return [...]string{"counter", "gauge", "histogram"}[k] }

// metricDef is what a metric is: the names, types, help and labels are a
// contract with dashboards and alerts (docs/operations.md).
type metricDef struct {
	name string
	kind kind
	help string
	// labels are its own, after the site label of a multi-site process
	// (none on buildInfo, which is the process's).
	labels []string
}

// metricTable is the one place each metric's name, type, help and labels
// are defined; the recorder's series (Metrics) and the state read when
// scraped (stateCollector) are made from it.
var metricTable = [...]metricDef{
	publishes: {"sitemapd_publishes_total", counter,
		"Publishes, by trigger (initial build, change, rescan, periodic rescan, retry) and result (ok, error).", []string{"trigger", "result"}},
	publishDuration: {"sitemapd_publish_duration_seconds", histogram,
		"Time to read, encode and write a publish, by trigger.", []string{"trigger"}},
	urlsListed: {"sitemapd_urls", gauge,
		"URLs the published sitemaps list, after the last publish (full or not).", nil},
	pagesLeftOut: {"sitemapd_pages_left_out", gauge,
		"Pages whose files exist but that the last full build did not list, by reason.", []string{"reason"}},
	hreflangAlternates: {"sitemapd_hreflang_alternates", gauge,
		"hreflang alternates the listed pages' heads name, by what the last publish made of them: kept (listed), or why not (other_host, unlisted, no_return, no_self, alone).", []string{"reason"}},
	buildInfo: {"sitemapd_build_info", gauge,
		"Always 1; the version is a label.", nil},
	watches: {"sitemapd_watches", gauge,
		"Directories watched.", nil},
	watchOverflows: {"sitemapd_watch_overflows_total", counter,
		"inotify queue overflows (each costs a full rescan).", nil},
	watchDegraded: {"sitemapd_watch_degraded", gauge,
		"1 while some directories are polled instead of watched.", nil},
	notifyRequests: {"sitemapd_notify_requests_total", counter,
		"Notification requests, by endpoint and outcome (success, failure).", []string{"endpoint", "outcome"}},
	notifyOwed: {"sitemapd_notify_owed_urls", gauge,
		"URLs an endpoint is still owed.", []string{"endpoint"}},
	notifyStatus: {"sitemapd_notify_last_status", gauge,
		"HTTP status of an endpoint's last answer (0: none).", []string{"endpoint"}},
	notifyGone: {"sitemapd_notify_endpoint_gone", gauge,
		"1 when an endpoint answered 404/410 and is no longer called.", []string{"endpoint"}},
	consoleRequests: {"sitemapd_searchconsole_requests_total", counter,
		"Search Console API calls, by endpoint and outcome (success, failure).", []string{"endpoint", "outcome"}},
	consoleErrors: {"sitemapd_searchconsole_sitemap_errors", gauge,
		"Errors Google reports in a sitemap (Search Console), as last polled.", []string{"endpoint", "sitemap"}},
	consoleWarnings: {"sitemapd_searchconsole_sitemap_warnings", gauge,
		"Warnings Google reports in a sitemap (Search Console), as last polled.", []string{"endpoint", "sitemap"}},
	consolePending: {"sitemapd_searchconsole_sitemap_pending", gauge,
		"1 while Google has not processed a sitemap (Search Console), as last polled.", []string{"endpoint", "sitemap"}},
	consoleURLs: {"sitemapd_searchconsole_sitemap_urls", gauge,
		"URLs Google counts in a sitemap, by content type (web, image, video, news…), as last polled.", []string{"endpoint", "sitemap", "type"}},
	consoleDownloaded: {"sitemapd_searchconsole_sitemap_last_downloaded_timestamp_seconds", gauge,
		"When Google last downloaded a sitemap (Unix time; 0: not yet), as last polled.", []string{"endpoint", "sitemap"}},
	fleetReachable: {"sitemapd_fleet_etcd_reachable", gauge,
		"1 while the fleet's etcd answers (a fleet only).", nil},
	fleetLeader: {"sitemapd_fleet_leader", gauge,
		"1 while this server leads the fleet: it sends the notifications.", nil},
	fleetQueued: {"sitemapd_fleet_queued_versions", gauge,
		"Versions published with this server's time, waiting to be recorded in etcd.", nil},
	fleetRequests: {"sitemapd_fleet_etcd_requests_total", counter,
		"Requests made to etcd (transactions, range reads, compactions, watches opened).", nil},
	fleetAdopted: {"sitemapd_fleet_adopted_total", counter,
		"Versions this server published with its own time, whose time another server had recorded first: each published again.", nil},
	fleetResent: {"sitemapd_fleet_resent_batches_total", counter,
		"Batches this server, taking over as leader, found in flight in the fleet's ledger: sent by a leader that stopped before marking them, or not accepted; this server may send them again.", nil},
	fleetResentURLs: {"sitemapd_fleet_resent_urls_total", counter,
		"The URLs of those batches: an upper bound of the URLs the fleet sent twice.", nil},
	fleetForgotten: {"sitemapd_fleet_forgotten_urls_total", counter,
		"URLs this server owed and forgot because the fleet's leader sent them.", nil},
	selfCheckRuns: {"sitemapd_selfcheck_checks_total", counter,
		"Self-checks of the public view run (selfcheck.enabled).", nil},
	selfCheckLast: {"sitemapd_selfcheck_last_check_timestamp_seconds", gauge,
		"When the last self-check ended (Unix time; 0: not yet).", nil},
	selfCheckURLs: {"sitemapd_selfcheck_urls", gauge,
		"URLs the last self-check fetched.", nil},
	selfCheckProblems: {"sitemapd_selfcheck_problem", gauge,
		"1 for each URL the last self-check found not served as sitemapd wrote it, by what it is (key file, robots.txt, index, sitemap, page) and problem (unreachable, status, redirect, content_type, body, not_on_disk).", []string{"what", "url", "problem"}},
}

// stateMetrics are the metrics read from a site's State when scraped.
var stateMetrics = []metric{watches, watchOverflows, watchDegraded, notifyRequests, notifyOwed, notifyStatus, notifyGone,
	consoleRequests, consoleErrors, consoleWarnings, consolePending, consoleURLs, consoleDownloaded,
	fleetReachable, fleetLeader, fleetQueued, fleetRequests, fleetAdopted, fleetResent, fleetResentURLs, fleetForgotten,
	selfCheckRuns, selfCheckLast, selfCheckURLs, selfCheckProblems}

// durationBuckets are publishDuration's: 1ms to about 4.4 minutes.
var durationBuckets = prometheus.ExponentialBuckets(0.001, 4, 10)

// labelsAfter is m's label names after site's (none, or "site").
func (m metric) labelsAfter(site []string) []string {
	return append(slices.Clone(site), metricTable[m].labels...)
}

// counterVec, gaugeVec and histogramVec make m's series, labelled site's
// labels first.
func (m metric) counterVec(site []string) *prometheus.CounterVec {
	d := metricTable[m]
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: d.name, Help: d.help}, m.labelsAfter(site))
}

func (m metric) gaugeVec(site []string) *prometheus.GaugeVec {
	d := metricTable[m]
	return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: d.name, Help: d.help}, m.labelsAfter(site))
}

func (m metric) histogramVec(site []string, buckets []float64) *prometheus.HistogramVec {
	d := metricTable[m]
	return prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: d.name, Help: d.help, Buckets: buckets}, m.labelsAfter(site))
}

// gauge makes m as one gauge, of the process, with constant labels.
func (m metric) gauge(constant prometheus.Labels) prometheus.Gauge {
	d := metricTable[m]
	return prometheus.NewGauge(prometheus.GaugeOpts{Name: d.name, Help: d.help, ConstLabels: constant})
}

// desc describes m for a collector, labelled site's labels first.
func (m metric) desc(site []string) *prometheus.Desc {
	d := metricTable[m]
	return prometheus.NewDesc(d.name, d.help, m.labelsAfter(site), nil)
}

// valueType is a counter's or a gauge's value type, for a const metric.
func (m metric) valueType() prometheus.ValueType {
	if metricTable[m].kind == counter {
		return prometheus.CounterValue
	}
	return prometheus.GaugeValue
}
