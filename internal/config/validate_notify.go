package config

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/sitemapd/sitemapd/internal/redact"
)

// checkWatch checks the daemon's debouncing and rescans.
func (c *Config) checkWatch(bad badFunc) {
	w := c.Watch
	if w.Settle <= 0 {
		bad("watch.settle", "%v must be positive", w.Settle)
	}
	if w.MaxDelay < w.Settle {
		bad("watch.max_delay", "%v must be at least watch.settle (%v)", w.MaxDelay, w.Settle)
	}
	if w.Rescan < 0 {
		bad("watch.rescan", "%v must not be negative (0 disables)", w.Rescan)
	}
}

// checkNotify checks notify: the schedule, the requests' bounds and each
// endpoint, whose names must differ.
func (c *Config) checkNotify(bad badFunc) {
	n := c.Notify
	if err := checkSchedule(n.Schedule); err != nil {
		bad("notify.schedule", "%q: %v", n.Schedule, err)
	}
	if n.Timeout <= 0 {
		bad("notify.timeout", "%v must be positive", n.Timeout)
	}
	if n.Attempts < 1 {
		bad("notify.attempts", "%d must be at least 1", n.Attempts)
	}
	if n.MaxBackoff <= 0 {
		bad("notify.max_backoff", "%v must be positive", n.MaxBackoff)
	}
	names := map[string]bool{}
	for i, ep := range n.Endpoints {
		key := fmt.Sprintf("notify.endpoints[%d]", i)
		if ep.Name == "" {
			bad(key+".name", "is required")
		} else if names[ep.Name] {
			bad(key+".name", "%q is used by another endpoint", ep.Name)
		}
		names[ep.Name] = true
		checkEndpoint(key, ep, bad)
		checkTiming(key, ep, bad)
		if ep.Kind == SearchConsole {
			c.checkSearchConsole(key, ep, bad)
		}
	}
}

// checkEndpoint checks an endpoint's URL, kind and key; its messages
// show the URL redacted, as it may carry a token.
func checkEndpoint(key string, ep Endpoint, bad badFunc) {
	if ep.Kind == SearchConsole {
		return // Config.checkSearchConsole's
	}
	if ep.Property != "" || ep.Credentials != "" {
		bad(key+".kind", "property and credentials are only used by searchconsole endpoints")
	}
	if u, err := url.Parse(ep.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		bad(key+".url", "%q must be an http:// or https:// URL", redact.URL(ep.URL, "{sitemap}"))
	}
	switch ep.Kind {
	case IndexNow:
		if !indexNowKeyRE.MatchString(ep.Key) {
			bad(key+".key", "IndexNow keys are 8–128 characters of a-z, A-Z, 0-9 and '-'")
		}
	case Ping:
		if !strings.Contains(ep.URL, "{sitemap}") {
			bad(key+".url", "%q has no {sitemap} placeholder for the index URL", redact.URL(ep.URL))
		}
		if ep.Key != "" {
			bad(key+".key", "is only used by indexnow endpoints")
		}
	default:
		bad(key+".kind", "%q is not one of indexnow, ping, searchconsole", ep.Kind)
	}
}

// checkSchedule parses a robfig/cron spec without letting the library's
// panics (v3.0.1 panics on "TZ=" and friends) or its silent rounding of
// sub-second @every intervals reach the daemon.
func checkSchedule(spec string) (err error) {
	if strings.TrimSpace(spec) == "" {
		return errors.New("is required")
	}
	if strings.HasPrefix(spec, "@every") {
		d, perr := parseEvery(spec)
		if perr != nil {
			return perr
		}
		if d < time.Second {
			return fmt.Errorf("interval %v is shorter than one second", d)
		}
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("not a valid cron spec")
		}
	}()
	_, err = cron.ParseStandard(spec)
	return err
}

func parseEvery(spec string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(strings.TrimPrefix(spec, "@every")))
	if err != nil {
		return 0, fmt.Errorf("bad @every interval: %v", err)
	}
	return d, nil
}
