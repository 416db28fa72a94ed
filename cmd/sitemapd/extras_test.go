package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestExtrasInTheProcess: in one `sitemapd run` serving two sites, an
// application's own sitemap (extra_sitemaps) and a file of extra URLs
// (extra_urls, outside every docroot, watched on the process's one
// inotify instance) are listed in their site's index, as a crawler
// following the index reads it; an edit of the URL file republishes its
// URLs, a line not under base_url is refused naming file and line, and
// the other site lists none of it.
func TestExtrasInTheProcess(t *testing.T) {
	m := newMultiSite(t, "")
	m.addSite("b")
	urls := filepath.Join(m.dir, "urls", "shop.urls")
	os.MkdirAll(filepath.Dir(urls), 0o755)
	write := func(body string) {
		t.Helper()
		// Written aside and renamed, as a deploy does.
		if err := os.WriteFile(urls+".tmp", []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(urls+".tmp", urls); err != nil {
			t.Fatal(err)
		}
	}
	write("https://a.test/app/one\nhttps://a.test/app/two\t2026-01-02\n")
	// The application's own sitemap, hand-made (no marker), where a
	// group's would be.
	m.page("a", "index.html")
	m.page("a", "shop/item.html")
	app := filepath.Join(m.root("a"), "shop", "sitemap.xml")
	appXML := `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://a.test/shop/cart</loc></url></urlset>
`
	if err := os.WriteFile(app, []byte(appXML), 0o644); err != nil {
		t.Fatal(err)
	}
	m.writeSiteFile("a", "root: ../www/a\nbase_url: https://a.test/\n"+
		"watch: {settle: 50ms, max_delay: 500ms, rescan: 0s}\n"+
		"extra_sitemaps: [\"https://a.test/shop/sitemap.xml\"]\n"+
		"extra_urls: [\"../urls/shop.urls\"]\n")
	c := startChild(t, m.cfg)
	c.expect(t, "READY=1")
	m.waitLocs("a", "", "app/one", "app/two", "shop/cart", "shop/item.html")
	m.waitLocs("b", "")
	if b, _ := os.ReadFile(app); string(b) != appXML {
		t.Errorf("the application's sitemap was changed:\n%s", b)
	}

	write("https://a.test/app/two\t2026-01-02\nhttps://a.test/app/three\nhttps://elsewhere.test/x\n")
	m.waitLocs("a", "", "app/three", "app/two", "shop/cart", "shop/item.html")
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(c.stderr.String(), "shop.urls:3") {
		if time.Now().After(deadline) {
			t.Fatal("no warning names shop.urls:3, the line not under base_url")
		}
		time.Sleep(20 * time.Millisecond)
	}
	m.waitLocs("b", "")
}
