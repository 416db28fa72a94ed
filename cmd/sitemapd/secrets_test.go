package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestPingHidesSecrets: `sitemapd ping -dry-run` and a failed `sitemapd
// ping` name the endpoint's host and the index URL, never the password or
// query values of its configured URL.
func TestPingHidesSecrets(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	host := strings.TrimPrefix(srv.URL, "http://")
	srv.Close() // connection refused
	cfg, _ := writeConfig(t, "notify: {attempts: 1, endpoints: [{name: crawler, kind: ping, url: \"http://user:hunter2@"+host+
		"/ping?sitemap={sitemap}&token=SECRET&key=abc\"}]}\n")
	if code, _, stderr := runCLI("build", "-config", cfg); code != ExitOK {
		t.Fatalf("build: %s", stderr)
	}
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"ping", "-config", cfg, "-now", "-dry-run"}, ExitOK},
		{[]string{"ping", "-config", cfg}, ExitFailure},
	} {
		code, out, stderr := runCLI(tc.args...)
		shown := out + stderr
		if code != tc.code || !strings.Contains(out, host) || !strings.Contains(out, "sitemap=https%3A%2F%2Fstatic.test%2Fsitemap_index.xml") {
			t.Errorf("%q: exit %d, %q, want %d naming %s and the index", tc.args, code, shown, tc.code, host)
		}
		for _, secret := range []string{"SECRET", "abc", "hunter2"} {
			if strings.Contains(shown, secret) {
				t.Errorf("%q shows %q: %s", tc.args, secret, shown)
			}
		}
	}
}
