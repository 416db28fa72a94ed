package main

import (
	"fmt"
	"io"
	"time"

	"github.com/sitemapd/sitemapd/internal/ping"
)

// printHolds says, for `sitemapd ping -dry-run`, which endpoints are held
// by the Retry-After they answered with (a 429 or 503, kept in the state
// directory): nothing is sent to them before the hold ends, by
// `sitemapd ping` or the daemon, whatever the plan above lists.
func printHolds(w io.Writer, stats []ping.Stats, now time.Time) {
	for _, s := range stats {
		if s.HeldUntil.After(now) {
			fmt.Fprintf(w, "%s: held until %s (%s from now), as its Retry-After asked: nothing is sent to it before then\n",
				s.Endpoint, s.HeldUntil.UTC().Format(time.RFC3339), s.HeldUntil.Sub(now).Round(time.Second))
		}
	}
}
