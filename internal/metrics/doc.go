// Package metrics serves the daemon's health and Prometheus metrics on the
// optional `listen` address: /healthz answers 200 only while the last
// publish succeeded, no full build stands refused by the shrink guard,
// every directory is watched and no notify endpoint has been failing for
// longer than NotifyFailingAfter, with a short JSON body saying why not
// otherwise (paths in it relative to the roots); /metrics carries build counts and durations,
// URLs listed, watches, rescans, overflows and notifications by endpoint
// and outcome.
//
// A process serving several sites (NewMulti) labels every per-site metric
// with site="NAME", and /healthz answers for all of them (any site not ok
// makes it 503, naming the site) or, given ?site=NAME, for one. A process
// serving one site (New) keeps the names and labels it always had.
//
// Mount adds a handler to the same listener: the daemon's /status page,
// served to whoever may ask /healthz.
package metrics
