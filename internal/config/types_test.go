package config

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestTypeErrors: a value of the wrong type names file, line and key, and
// says what is expected, not which Go type it failed to decode into.
func TestTypeErrors(t *testing.T) {
	site, _ := filepath.Abs("testdata/site")
	head := "root: " + site + "\nbase_url: https://www.sitemapd.test/\n"
	for _, tc := range []struct{ body, want string }{
		{"watch:\n  settle: fast\n", `x.yml:4: watch.settle: "fast" is not a duration such as 500ms`},
		{"watch:\n  rescan: 500\n", `x.yml:4: watch.rescan: "500" is not a duration such as 500ms, 10s, 5m or 6h (a number with its unit)`},
		{"notify: {timeout: [1s]}\n", `x.yml:3: notify.timeout: a list is not a duration`},
		{"depth: one\n", `x.yml:3: depth: "one" is not a whole number`},
		{"depth: 1.5\n", `x.yml:3: depth: "1.5" is not a whole number`},
		{"notify:\n  attempts: many\n", `x.yml:4: notify.attempts: "many" is not a whole number`},
		{"gzip: yes please\n", `x.yml:3: gzip: "yes please" is not true or false`},
		{"pages:\n  pretty_urls: 1\n", `x.yml:4: pages.pretty_urls: "1" is not true or false`},
		{"formats: xml\n", `x.yml:3: formats: "xml" is not a list, such as [a, b] or one "- item" a line`},
		{"pages:\n  extensions: {html: yes}\n", `x.yml:4: pages.extensions: a mapping is not a list`},
		{"pages:\n  rules:\n    - match: /\n      priority: high\n", `x.yml:6: pages.rules[0].priority: "high" is not a number such as 0.5`},
		{"pages:\n  rules: [/blog/]\n", `x.yml:4: pages.rules[0]: "/blog/" is not a mapping of keys to values`},
		{"pages: yes\n", `x.yml:3: pages: "yes" is not a mapping of keys to values`},
		{"sitemap_name: [a.xml]\n", `x.yml:3: sitemap_name: a list is not a single value`},
		{"file_mode: rw-r--r--\n", `x.yml:3: file_mode: "rw-r--r--" is not an octal permission such as "0644"`},
		{"file_mode: \"0o7777\"\n", `x.yml:3: file_mode: "0o7777" is not an octal permission`},
		{"notify:\n  endpoints: [{name: a, kind: ping, url: [x]}]\n", `x.yml:4: notify.endpoints[0].url: a list is not a single value`},
	} {
		_, err := Load([]byte(head+tc.body), "x.yml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q:\n got %v\nwant %s", tc.body, err, tc.want)
		}
	}
	// What does decode still does: a bare 0 is a duration, an unquoted
	// octal mode and a 0o one are modes, null is the zero value.
	c, err := Load([]byte(head+"watch: {rescan: 0}\nfile_mode: 0640\npages: {exclude: ~}\n"), "x.yml")
	if err != nil {
		t.Fatal(err)
	}
	if c.Watch.Rescan != 0 || c.Mode != 0o640 || c.Pages.Exclude != nil {
		t.Errorf("rescan %v, mode %v, exclude %q", c.Watch.Rescan, c.Mode, c.Pages.Exclude)
	}
	if c, err = Load([]byte(head+"file_mode: 0o600\nwatch: {settle: 2s, max_delay: 1m}\n"), "x.yml"); err != nil || c.Mode != 0o600 || c.Watch.MaxDelay != time.Minute {
		t.Errorf("0o600: %v, %+v", err, c)
	}
}

// TestStateDirectory: state_dir defaults to the first directory of
// $STATE_DIRECTORY, as systemd sets it for StateDirectory=.
func TestStateDirectory(t *testing.T) {
	for env, want := range map[string]string{
		"":                                     "/var/lib/sitemapd",
		"/var/lib/sitemapd/site":               "/var/lib/sitemapd/site",
		"/var/lib/sitemapd/a:/var/lib/other/b": "/var/lib/sitemapd/a",
	} {
		t.Setenv("STATE_DIRECTORY", env)
		if got := Default().StateDir; got != want {
			t.Errorf("STATE_DIRECTORY=%q: state_dir %q, want %q", env, got, want)
		}
	}
	t.Setenv("STATE_DIRECTORY", "/run/x")
	site, _ := filepath.Abs("testdata/site")
	c, err := Load([]byte("root: "+site+"\nbase_url: http://localhost/\n"), "x.yml")
	if err != nil || c.StateDir != "/run/x" {
		t.Errorf("loaded: %v, state_dir %q", err, c.StateDir)
	}
	c, err = Load([]byte("root: "+site+"\nbase_url: http://localhost/\nstate_dir: /srv/state\n"), "x.yml")
	if err != nil || c.StateDir != "/srv/state" {
		t.Errorf("set in the file: %v, state_dir %q", err, c.StateDir)
	}
}

// TestPlaceholderBaseURL: a base_url on a documentation domain (RFC 2606:
// example.com, .net, .org, and below them) is refused, naming file, line
// and key; the test and example TLDs and look-alikes are not.
func TestPlaceholderBaseURL(t *testing.T) {
	site, _ := filepath.Abs("testdata/site")
	for _, u := range []string{
		"https://example.com/", "http://example.com", "https://EXAMPLE.com/docs/", "https://www.example.com/",
		"https://example.org/", "https://docs.example.net:8443/", "https://example.com./",
	} {
		_, err := Load([]byte("# a site\nroot: "+site+"\nbase_url: "+u+"\n"), "x.yml")
		if want := "x.yml:3: base_url: " + strconv.Quote(u) + " is the example's placeholder: set the site's own URL"; err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %s", u, err, want)
		}
	}
	for _, u := range []string{
		"https://www.sitemapd.test/", "http://127.0.0.1:8080/", "http://localhost/", "https://example.co/",
		"https://myexample.com/", "https://example.com.au/", "https://bench.example/",
	} {
		if _, err := Load([]byte("root: "+site+"\nbase_url: "+u+"\n"), "x.yml"); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
}
