package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestEndpointTiming: when each endpoint is sent, as the YAML says it:
// IndexNow after its delay (5 s unless given), ping and any endpoint with
// a schedule of its own on a cron schedule; and the messages of delays
// and schedules that cannot be, each at its file, line and key.
func TestEndpointTiming(t *testing.T) {
	site, _ := filepath.Abs("testdata/site")
	head := "root: " + site + "\nbase_url: https://www.sitemapd.test/\nnotify:\n  schedule: \"@every 7m\"\n  endpoints:\n"
	const in = "kind: indexnow, url: https://in.sitemapd.test/indexnow, key: abcdefgh"
	const ping = "kind: ping, url: \"https://p.sitemapd.test/?s={sitemap}\""
	for _, tc := range []struct {
		ep       string
		delay    time.Duration
		delayed  bool
		schedule string
	}{
		{"{name: a, " + in + "}", 5 * time.Second, true, "@every 7m"},
		{"{name: a, " + in + ", delay: 2s}", 2 * time.Second, true, "@every 7m"},
		{"{name: a, " + in + ", delay: 0}", 0, true, "@every 7m"},
		{"{name: a, " + in + ", delay: 1h}", time.Hour, true, "@every 7m"},
		{"{name: a, " + in + ", schedule: \"*/10 * * * *\"}", 0, false, "*/10 * * * *"},
		{"{name: a, " + ping + "}", 0, false, "@every 7m"},
		{"{name: a, " + ping + ", schedule: \"@hourly\"}", 0, false, "@hourly"},
	} {
		c, err := Load([]byte(head+"    - "+tc.ep+"\n"), "x.yml")
		if err != nil {
			t.Errorf("%s: %v", tc.ep, err)
			continue
		}
		ep := c.Notify.Endpoints[0]
		if d, ok := ep.SendDelay(); d != tc.delay || ok != tc.delayed {
			t.Errorf("%s: SendDelay() = %v, %v; want %v, %v", tc.ep, d, ok, tc.delay, tc.delayed)
		}
		if got := c.Notify.ScheduleOf(ep); got != tc.schedule {
			t.Errorf("%s: ScheduleOf = %q, want %q", tc.ep, got, tc.schedule)
		}
	}
	for _, tc := range []struct{ ep, want string }{
		{"{name: a, " + in + ", delay: -1s}", `x.yml:6: notify.endpoints[0].delay: -1s must be between 0s and 1h0m0s`},
		{"{name: a, " + in + ", delay: 2h}", `x.yml:6: notify.endpoints[0].delay: 2h0m0s must be between 0s and 1h0m0s (for batches, give the endpoint a schedule instead)`},
		{"{name: a, " + in + ", delay: soon}", `x.yml:6: notify.endpoints[0].delay: "soon" is not a duration`},
		{"{name: a, " + in + ", delay: 5s, schedule: \"@hourly\"}", `x.yml:6: notify.endpoints[0].delay: an endpoint is sent either delay after a publish or on a schedule, not both`},
		{"{name: a, " + ping + ", delay: 5s}", `x.yml:6: notify.endpoints[0].delay: is only used by indexnow endpoints (a ping endpoint is sent on notify.schedule`},
		{"{name: a, " + in + ", schedule: \"every day\"}", `x.yml:6: notify.endpoints[0].schedule: "every day": expected exactly 5 fields`},
		{"{name: a, " + ping + ", schedule: \"@every 100ms\"}", `x.yml:6: notify.endpoints[0].schedule: "@every 100ms": interval 100ms is shorter than one second`},
		{"{name: a, kind: smoke, url: https://s.sitemapd.test/, schedule: \"@hourly\"}", `x.yml:6: notify.endpoints[0].schedule: is only used by indexnow and ping endpoints`},
	} {
		_, err := Load([]byte(head+"    - "+tc.ep+"\n"), "x.yml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %s", tc.ep, err, tc.want)
		}
	}
}
