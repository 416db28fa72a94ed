package config

import (
	"net"
	"time"
)

// SelfCheck is the daemon's check of the site's public view (package
// reach): shortly after a publish and every Interval, it fetches through
// base_url the key files, robots.txt, the index and a sample of sitemaps
// and pages, and reports on /healthz, in the metrics and in the log what
// differs from what it wrote. Off by default: base_url must reach this
// server's web server from the server itself (or Connect must).
type SelfCheck struct {
	Enabled bool `yaml:"enabled"`
	// Interval is how often it checks while nothing is published.
	Interval time.Duration `yaml:"interval"`
	// AfterPublish is how long after a publish it checks: publishes
	// closer together than this are one check.
	AfterPublish time.Duration `yaml:"after_publish"`
	// Sitemaps and Pages are how many of the index's sitemaps and of
	// their pages one check fetches; each check takes the next ones.
	Sitemaps int `yaml:"sitemaps"`
	Pages    int `yaml:"pages"`
	// Timeout bounds each answer.
	Timeout time.Duration `yaml:"timeout"`
	// Connect, "host:port", is the address requests for base_url's host
	// are sent to instead of the one its name resolves to (curl's
	// --resolve): this server's web server, behind a load balancer.
	Connect string `yaml:"connect"`
}

// DefaultSelfCheck is selfcheck's defaults: off.
func DefaultSelfCheck() SelfCheck {
	return SelfCheck{Interval: time.Hour, AfterPublish: 30 * time.Second, Sitemaps: 5, Pages: 10, Timeout: 10 * time.Second}
}

// MinSelfCheckInterval bounds selfcheck.interval from below: a check
// costs the web server a few requests, not a load.
const MinSelfCheckInterval = time.Second

// checkSelfCheck checks selfcheck's values, whether it is on or not (a
// value that is wrong is reported before it is used).
func (c *Config) checkSelfCheck(bad badFunc) {
	s := c.SelfCheck
	if s.Interval < MinSelfCheckInterval {
		bad("selfcheck.interval", "%v must be at least %v", s.Interval, MinSelfCheckInterval)
	}
	if s.AfterPublish < 0 || s.AfterPublish > s.Interval {
		bad("selfcheck.after_publish", "%v must be between 0s and selfcheck.interval (%v)", s.AfterPublish, s.Interval)
	}
	if s.Sitemaps < 0 {
		bad("selfcheck.sitemaps", "%d must be 0 or more", s.Sitemaps)
	}
	if s.Pages < 0 {
		bad("selfcheck.pages", "%d must be 0 or more", s.Pages)
	}
	if s.Timeout <= 0 || s.Timeout > s.Interval {
		bad("selfcheck.timeout", "%v must be positive and at most selfcheck.interval (%v)", s.Timeout, s.Interval)
	}
	if s.Connect != "" {
		if host, port, err := net.SplitHostPort(s.Connect); err != nil || host == "" || port == "" {
			bad("selfcheck.connect", "%q must be host:port, the address of this server's web server (e.g. 127.0.0.1:443)", s.Connect)
		}
	}
}
