package config

import (
	"maps"
	"testing"

	"github.com/sitemapd/sitemapd/internal/outname"
)

// TestOutputNames checks what the configuration hands package outname:
// its base names, gzip, the stylesheet when builtin, and the keys of the
// IndexNow endpoints alone.
func TestOutputNames(t *testing.T) {
	c, err := LoadFile("testdata/full.good.yml")
	if err != nil {
		t.Fatal(err)
	}
	n := c.OutputNames()
	if n.Sitemap() != "map.xml" || n.Index() != "map_index.xml" || n.Out("x.xml") != "x.xml.gz" {
		t.Errorf("sitemap %q, index %q, Out(x.xml) %q", n.Sitemap(), n.Index(), n.Out("x.xml"))
	}
	if want := map[string]string{"0123456789abcdef0123456789abcdef.txt": "0123456789abcdef0123456789abcdef"}; !maps.Equal(n.KeyFiles(), want) {
		t.Errorf("key files %v, want %v (the ping endpoint has none)", n.KeyFiles(), want)
	}
	for name, want := range map[string]outname.Kind{
		"changes.atom": outname.Feed, outname.StylesheetName: outname.Stylesheet, "map_index-2.xml.gz": outname.Index,
	} {
		if got := n.Kind(name); got != want {
			t.Errorf("Kind(%q) = %v, want %v", name, got, want)
		}
	}
	d := Default()
	d.Stylesheet = "none"
	if got := d.OutputNames().Kind(outname.StylesheetName); got != outname.Foreign {
		t.Errorf("without the builtin stylesheet, Kind(%s) = %v", outname.StylesheetName, got)
	}
}
