package robots

import (
	"slices"
	"testing"
)

func TestSitemaps(t *testing.T) {
	data := []byte("User-agent: *\r\nDisallow: /x\r\nSitemap: https://shop.test/sitemap_index.xml\r\n" +
		"sitemap:https://shop.test/app/sitemap.xml # the app's\n  SITEMAP :  https://shop.test/news.xml\n" +
		"Sitemap: https://shop.test/sitemap_index.xml\nSitemap:\nSitemaps: https://shop.test/no.xml")
	want := []string{"https://shop.test/sitemap_index.xml", "https://shop.test/app/sitemap.xml", "https://shop.test/news.xml"}
	if got := Sitemaps(data); !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
