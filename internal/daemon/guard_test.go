package daemon

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// health asks the daemon's /healthz.
func (h *harness) health() (int, string) {
	rec := httptest.NewRecorder()
	h.d.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
	return rec.Code, rec.Body.String()
}

// TestShrinkGuardInTheDaemon: new robots.txt rules that shut out the whole
// site are refused (the sitemaps stay, /healthz says why) until rules that
// leave out less publish; a directory excluded by a new configuration
// loses its sitemaps. The files end as a fresh full build's.
func TestShrinkGuardInTheDaemon(t *testing.T) {
	h := start(t, "")
	for _, f := range []string{"docs/a.html", "docs/b.html", "blog/c.html"} {
		h.write(f)
	}
	h.sync()
	docs, _ := os.ReadFile(h.path("docs/sitemap.xml"))
	if !strings.Contains(string(docs), "/docs/b.html") {
		t.Fatalf("docs/sitemap.xml before:\n%s", docs)
	}

	os.WriteFile(h.path("robots.txt"), []byte("User-agent: *\nDisallow: /\n"), 0o644)
	h.waitFor("the refusal", func() bool { return h.logs.FilterMessage("publish refused by the shrink guard").Len() > 0 })
	code, body := h.health()
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "disallowed by robots.txt") {
		t.Errorf("/healthz after the refusal: %d %s", code, body)
	}
	if now, _ := os.ReadFile(h.path("docs/sitemap.xml")); string(now) != string(docs) {
		t.Errorf("a refused publish changed docs/sitemap.xml:\n%s", now)
	}

	os.WriteFile(h.path("robots.txt"), []byte("User-agent: *\nDisallow: /blog/\n"), 0o644)
	h.waitFor("blog/sitemap.xml removed", func() bool { _, err := os.Stat(h.path("blog/sitemap.xml")); return err != nil })
	h.sync()
	if code, body := h.health(); code != http.StatusOK {
		t.Errorf("/healthz after a publish: %d %s", code, body)
	}

	os.WriteFile(h.cfgPath, []byte(testConfig+"pages: {exclude: [\"/docs/**\"]}\n"), 0o644)
	h.reload <- struct{}{}
	h.waitFor("docs/sitemap.xml removed", func() bool { _, err := os.Stat(h.path("docs/sitemap.xml")); return err != nil })
	h.checkOracle()
}

// TestURLsGaugeFollowsChanges: sitemapd_urls counts the URLs published
// after every publish, not only after full builds.
func TestURLsGaugeFollowsChanges(t *testing.T) {
	h := start(t, "")
	gauge := func() string {
		rec := httptest.NewRecorder()
		h.d.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
		for _, line := range strings.Split(rec.Body.String(), "\n") {
			if strings.HasPrefix(line, "sitemapd_urls ") {
				return strings.TrimPrefix(line, "sitemapd_urls ")
			}
		}
		return ""
	}
	// The gauge is set just after the files it counts are on disk, so a
	// test that saw the files wait for it; a wrong count times out.
	h.sync()
	h.waitFor("sitemapd_urls 1 (index.html)", func() bool { return gauge() == "1" })
	h.write("docs/a.html")
	h.write("docs/b.html")
	h.sync()
	h.waitFor("sitemapd_urls 3 after two pages added", func() bool { return gauge() == "3" })
}
