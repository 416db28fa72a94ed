package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sitemapd/sitemapd/internal/searchconsole/sctest"
)

// TestDryRunSearchConsole: `build -dry-run` says, per searchconsole
// endpoint, which sitemaps the daemon would submit or delete and what
// Google last said of those it submitted, from the state directory.
func TestDryRunSearchConsole(t *testing.T) {
	key := filepath.Join(t.TempDir(), "gsc.json")
	sctest.WriteKey(t, key, "https://oauth2.googleapis.test/token", 0o600)
	cfg, root := siteConfig(t, "robots_txt: true\nnotify:\n  endpoints:\n"+
		"  - {name: google, kind: searchconsole, property: \"sc-domain:sitemapd.test\", credentials: "+key+"}\n"+
		"  - {name: www, kind: searchconsole, property: \"https://www.sitemapd.test/\", credentials: "+key+"}\n")
	state := filepath.Join(filepath.Dir(root), "state")
	os.MkdirAll(state, 0o700)
	os.WriteFile(filepath.Join(root, "robots.txt"), []byte("Sitemap: https://shop.sitemapd.test/app.xml\nSitemap: https://www.sitemapd.test/blog/news.xml\n"), 0o644)
	os.WriteFile(filepath.Join(state, "searchconsole-google.json"), []byte(`{"version": 1, "property": "sc-domain:sitemapd.test",
 "submitted": {"https://www.sitemapd.test/sitemap_index.xml": "2026-11-20T10:00:00Z", "https://www.sitemapd.test/old_index.xml": "2026-01-01T00:00:00Z"},
 "views": {"https://www.sitemapd.test/sitemap_index.xml": {"url": "https://www.sitemapd.test/sitemap_index.xml", "polled": "2026-11-25T06:00:00Z",
   "last_downloaded": "2026-11-21T08:30:00Z", "errors": 0, "warnings": 1, "contents": [{"type": "web", "submitted": 2}]}}}`), 0o600)
	code, out, stderr := runCLI("build", "-config", cfg, "-dry-run")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"\nSearch Console, endpoint google (property sc-domain:sitemapd.test):\n" +
			"  https://www.sitemapd.test/sitemap_index.xml  submitted 2026-11-20T10:00:00Z; Google, 2026-11-25T06:00:00Z: downloaded 2026-11-21T08:30:00Z, 0 errors, 1 warnings, 2 web URLs\n" +
			"  https://shop.sitemapd.test/app.xml  the daemon would submit it\n" +
			"  https://www.sitemapd.test/blog/news.xml  the daemon would submit it\n" +
			"  https://www.sitemapd.test/old_index.xml  no longer announced: the daemon would delete it from the property\n",
		"\nSearch Console, endpoint www (property https://www.sitemapd.test/):\n" +
			"  https://www.sitemapd.test/sitemap_index.xml  the daemon would submit it\n" +
			"  https://www.sitemapd.test/blog/news.xml  the daemon would submit it\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks\n%s\nin:\n%s", want, out)
		}
	}
}
