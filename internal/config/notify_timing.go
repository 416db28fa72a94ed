package config

import "time"

// When each endpoint is sent. An IndexNow endpoint is sent a short delay
// after the publish that owes it, coalescing the changes of that window:
// Bing asks for URLs as they change and calls batches "not recommended".
// A ping endpoint, or an IndexNow endpoint given a schedule of its own, is
// sent in batches on a cron schedule, as all were before delays existed.

// DefaultDelay is an IndexNow endpoint's delay when the configuration
// gives neither delay nor schedule: long enough that a deploy's burst of
// publishes (watch.max_delay apart at most) goes in one POST, short
// enough to be "within seconds".
const DefaultDelay = 5 * time.Second

// MaxEndpointDelay bounds delay: a longer wait is batching, which a
// schedule says better (and keeps across restarts on the clock).
const MaxEndpointDelay = time.Hour

// SendDelay reports how long after the publish that owes it the endpoint
// is sent, and whether it is sent that way at all: an IndexNow endpoint
// is, after its delay (DefaultDelay if it gives none), unless it has a
// schedule of its own; every other endpoint is sent on a schedule
// (Notify.ScheduleOf).
func (e Endpoint) SendDelay() (time.Duration, bool) {
	if e.Kind != IndexNow || e.Schedule != "" {
		return 0, false
	}
	if e.Delay == nil {
		return DefaultDelay, true
	}
	return *e.Delay, true
}

// ScheduleOf is the cron spec the endpoint runs on: its own schedule, or
// notify.schedule. A scheduled endpoint is sent on it; an endpoint sent
// after a delay tries again on it what a failed send left owed.
func (n Notify) ScheduleOf(e Endpoint) string {
	if e.Schedule != "" {
		return e.Schedule
	}
	return n.Schedule
}

// checkTiming checks an endpoint's delay and schedule: delay is for
// IndexNow endpoints, 0 to MaxEndpointDelay; schedule a cron spec, for
// IndexNow and ping endpoints; not both.
func checkTiming(key string, ep Endpoint, bad badFunc) {
	if ep.Delay != nil {
		switch d := *ep.Delay; {
		case ep.Kind != IndexNow:
			bad(key+".delay", "is only used by indexnow endpoints (a %s endpoint is sent on notify.schedule, or on its own schedule)", ep.Kind)
		case ep.Schedule != "":
			bad(key+".delay", "an endpoint is sent either delay after a publish or on a schedule, not both: remove delay or schedule")
		case d < 0 || d > MaxEndpointDelay:
			bad(key+".delay", "%v must be between 0s and %v (for batches, give the endpoint a schedule instead)", d, MaxEndpointDelay)
		}
	}
	if ep.Schedule == "" {
		return
	}
	if ep.Kind != IndexNow && ep.Kind != Ping {
		bad(key+".schedule", "is only used by indexnow and ping endpoints")
	} else if err := checkSchedule(ep.Schedule); err != nil {
		bad(key+".schedule", "%q: %v", ep.Schedule, err)
	}
}
