package outname

import (
	"maps"
	"testing"
)

func TestPartNames(t *testing.T) {
	for _, c := range []struct {
		name string
		n    int
		want string
	}{
		{"sitemap.xml", 1, "sitemap.xml"},
		{"sitemap.xml", 0, "sitemap.xml"},
		{"sitemap.xml", 2, "sitemap-2.xml"},
		{"sitemap.xml", 12, "sitemap-12.xml"},
		{"sitemap_index.xml", 3, "sitemap_index-3.xml"},
		{"sitemap-news.xml", 2, "sitemap-news-2.xml"},
	} {
		if got := Part(c.name, c.n); got != c.want {
			t.Errorf("Part(%q, %d) = %q, want %q", c.name, c.n, got, c.want)
		}
	}
	for _, c := range []struct{ name, key, want string }{
		{"sitemap.xml", "", "sitemap.xml"},
		{"sitemap.xml", "0123456789ab", "sitemap-0123456789ab.xml"},
		{"sitemap.txt", "0123456789ab", "sitemap-0123456789ab.txt"},
		{"sitemap.xml", OwnKey, "sitemap-sitemapd.xml"},
	} {
		if got := Chunk(c.name, c.key); got != c.want {
			t.Errorf("Chunk(%q, %q) = %q, want %q", c.name, c.key, got, c.want)
		}
	}
	for file, want := range map[string]bool{
		"sitemap.xml": true, "sitemap-2.xml": true, "sitemap-10.xml.gz": true, "sitemap.xml.gz": true,
		"sitemap-1.xml": false, "sitemap-02.xml": false, "sitemap-x.xml": false, "sitemap-2.xml.bak": false,
		"sitemap_index.xml": false, "mysitemap.xml": false,
		"sitemap-0123456789ab.xml": true, "sitemap-0123456789ab.xml.gz": true,
		"sitemap-0123456789AB.xml": false, "sitemap-0123456789a.xml": false, "sitemap-0123456789abc.xml": false,
		"sitemap-.xml": false, "sitemap-xml": false, "sitemap-": false, "sitemap": false, "": false, "sitemap-2": false,
		"sitemap-sitemapd.xml": true, "sitemapX2.xml": false,
		"sitemap-news.xml": false, "sitemap-urls-a.xml": false,
	} {
		if got := IsPart(file, "sitemap.xml"); got != want {
			t.Errorf("IsPart(%q) = %v, want %v", file, got, want)
		}
	}
}

func TestDerivedNames(t *testing.T) {
	s := New(Bases{Sitemap: "map.xml", Index: "sitemap_index.xml"})
	if s.Sitemap() != "map.xml" || s.Index() != "sitemap_index.xml" || s.Text() != "map.txt" || s.News() != "map-news.xml" {
		t.Errorf("sitemap %q, index %q, text %q, news %q", s.Sitemap(), s.Index(), s.Text(), s.News())
	}
	if got := s.ExtraPattern(); got != "map-urls-*.xml" {
		t.Errorf("ExtraPattern() = %q", got)
	}
	if KeyName("0123abcd") != "0123abcd.txt" {
		t.Errorf("KeyName = %q", KeyName("0123abcd"))
	}
	plain, gz := New(Bases{Sitemap: "sitemap.xml"}), New(Bases{Sitemap: "sitemap.xml", Gzip: true})
	for _, c := range []struct {
		s          *Site
		file, base string
		out        string
		partOf     bool
	}{
		{plain, "sitemap-2.xml", "sitemap.xml", "sitemap-2.xml", true},
		{plain, "sitemap-2.xml.gz", "sitemap.xml", "sitemap-2.xml.gz", false},
		{gz, "sitemap-2.xml", "sitemap.xml", "sitemap-2.xml.gz", false},
		{gz, "sitemap-2.xml.gz", "sitemap.xml", "sitemap-2.xml.gz.gz", true},
		{gz, "other.xml.gz", "sitemap.xml", "other.xml.gz.gz", false},
	} {
		if got := c.s.Out(c.file); got != c.out {
			t.Errorf("Out(%q) = %q, want %q", c.file, got, c.out)
		}
		if got := c.s.PartOf(c.file, c.base); got != c.partOf {
			t.Errorf("PartOf(%q, %q) = %v, want %v", c.file, c.base, got, c.partOf)
		}
	}
}

func TestExtraNames(t *testing.T) {
	s := New(Bases{Sitemap: "sitemap.xml", Index: "sitemap_index.xml"})
	for file, want := range map[string]string{
		"/etc/sitemapd/example.com.urls": "sitemap-urls-example.com.xml",
		"/srv/shop urls.txt":             "sitemap-urls-shop-urls.xml",
		"/srv/.urls":                     "sitemap-urls-urls.xml",
		"/srv/list":                      "sitemap-urls-list.xml",
		"/srv/ä.urls":                    "sitemap-urls---.xml",
	} {
		name := s.Extra(file)
		if name != want {
			t.Errorf("Extra(%q) = %q, want %q", file, name, want)
		}
		// Never a part of a group's sitemap nor of the index: the names
		// sitemapd gives its other outputs.
		if IsPart(name, s.Sitemap()) || IsPart(name, s.Index()) || s.Kind(name) != Extra || s.Kind(name+".gz") != Extra {
			t.Errorf("%s: named like another output, or not known as an extra", name)
		}
	}
	for _, name := range []string{"sitemap.xml", "sitemap-urls-.xml", "sitemap-0123456789ab.xml", "sitemap_index.xml", "sitemap-urls-a.txt"} {
		if s.Kind(name) == Extra {
			t.Errorf("Kind(%q) is Extra", name)
		}
	}
}

func TestKind(t *testing.T) {
	all := New(Bases{Sitemap: "sitemap.xml", Index: "sitemap_index.xml", Feed: "changes.atom", Stylesheet: true, Keys: []string{"0123abcd4567"}})
	bare := New(Bases{Sitemap: "sitemap.xml", Index: "sitemap_index.xml"})
	for _, c := range []struct {
		name      string
		all, bare Kind
	}{
		{"sitemap.xml", Sitemap, Sitemap},
		{"sitemap-0123456789ab.xml.gz", Sitemap, Sitemap},
		{"sitemap-sitemapd.xml", Sitemap, Sitemap},
		{"sitemap_index-2.xml", Index, Index},
		{"sitemap.txt", Text, Text},
		{"sitemap-0123456789ab.txt", Text, Text},
		{"sitemap-news-3.xml.gz", News, News},
		{"sitemap-urls-shop.xml", Extra, Extra},
		{"sitemap-urls-shop-0123456789ab.xml.gz", Extra, Extra},
		{"0123abcd4567.txt", Key, Foreign},
		{"sitemap.xsl", Stylesheet, Foreign},
		{"changes.atom", Feed, Foreign},
		{"old.atom", Foreign, Foreign},
		{"robots.txt", Robots, Robots},
		{"index.html", Foreign, Foreign},
		{"sitemap-news.txt", Foreign, Foreign},
		{".sitemapd-text.sha256", Foreign, Foreign},
	} {
		if got := all.Kind(c.name); got != c.all {
			t.Errorf("Kind(%q) = %v, want %v", c.name, got, c.all)
		}
		if got := bare.Kind(c.name); got != c.bare {
			t.Errorf("without feed, stylesheet and keys: Kind(%q) = %v, want %v", c.name, got, c.bare)
		}
	}
	// A text sitemap named like robots.txt (sitemap_name robots.xml, text
	// sitemaps off) is a text sitemap first: parted kinds come first.
	if k := New(Bases{Sitemap: "robots.xml"}).Kind("robots.txt"); k != Text {
		t.Errorf("Kind(robots.txt) with sitemap_name robots.xml = %v, want text sitemap", k)
	}
}

func TestKindClasses(t *testing.T) {
	for k, want := range map[Kind][2]bool{ // Parted, Owned
		Foreign: {false, false}, Sitemap: {true, true}, Index: {true, true}, Text: {true, true},
		News: {true, true}, Extra: {true, true}, Key: {false, true}, Stylesheet: {false, true},
		Feed: {false, true}, Robots: {false, false},
	} {
		if got := [2]bool{k.Parted(), k.Owned()}; got != want {
			t.Errorf("%v: Parted, Owned = %v, want %v", k, got, want)
		}
	}
}

func TestKeyFilesIsACopy(t *testing.T) {
	s := New(Bases{Sitemap: "sitemap.xml", Keys: []string{"k1k1k1k1", "k2k2k2k2"}})
	got := s.KeyFiles()
	if want := map[string]string{"k1k1k1k1.txt": "k1k1k1k1", "k2k2k2k2.txt": "k2k2k2k2"}; !maps.Equal(got, want) {
		t.Errorf("KeyFiles() = %v, want %v", got, want)
	}
	delete(got, "k1k1k1k1.txt")
	if s.Kind("k1k1k1k1.txt") != Key {
		t.Error("changing what KeyFiles returned changed the site's names")
	}
}
