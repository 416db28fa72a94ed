package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSelfCheck: selfcheck is off by default with its documented
// defaults; given values are taken; a wrong one is an error at its file,
// line and key.
func TestSelfCheck(t *testing.T) {
	site, _ := filepath.Abs("testdata/site")
	head := "root: " + site + "\nbase_url: https://www.sitemapd.test/\n"
	c, err := Load([]byte(head), "x.yml")
	if err != nil {
		t.Fatal(err)
	}
	want := SelfCheck{Interval: time.Hour, AfterPublish: 30 * time.Second, Sitemaps: 5, Pages: 10, Timeout: 10 * time.Second}
	if c.SelfCheck != want {
		t.Errorf("defaults: %+v, want %+v", c.SelfCheck, want)
	}
	c, err = Load([]byte(head+"selfcheck: {enabled: true, interval: 2s, after_publish: 0s, sitemaps: 0, pages: 3, timeout: 1s, connect: \"127.0.0.1:8080\"}\n"), "x.yml")
	if err != nil {
		t.Fatal(err)
	}
	want = SelfCheck{Enabled: true, Interval: 2 * time.Second, Sitemaps: 0, Pages: 3, Timeout: time.Second, Connect: "127.0.0.1:8080"}
	if c.SelfCheck != want {
		t.Errorf("given: %+v, want %+v", c.SelfCheck, want)
	}
	for _, tc := range []struct{ yaml, want string }{
		{"selfcheck: {enabled: true, interval: 500ms}", `x.yml:3: selfcheck.interval: 500ms must be at least 1s`},
		{"selfcheck:\n  after_publish: 2h", `x.yml:4: selfcheck.after_publish: 2h0m0s must be between 0s and selfcheck.interval (1h0m0s)`},
		{"selfcheck:\n  pages: -1", `x.yml:4: selfcheck.pages: -1 must be 0 or more`},
		{"selfcheck:\n  sitemaps: -2", `x.yml:4: selfcheck.sitemaps: -2 must be 0 or more`},
		{"selfcheck:\n  timeout: 0s", `x.yml:4: selfcheck.timeout: 0s must be positive`},
		{"selfcheck:\n  connect: 127.0.0.1", `x.yml:4: selfcheck.connect: "127.0.0.1" must be host:port`},
		{"selfcheck:\n  interval: often", `selfcheck.interval: "often" is not a duration`},
		{"selfcheck:\n  every: 1h", `selfcheck.every`},
	} {
		_, err := Load([]byte(head+tc.yaml+"\n"), "x.yml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %s", tc.yaml, err, tc.want)
		}
	}
}
