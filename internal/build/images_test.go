package build

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/head/headtest"
	"github.com/sitemapd/sitemapd/internal/sitemap"
	"github.com/sitemapd/sitemapd/internal/siteurl"
)

// sitemapEntry is a <url> as encoding/xml reads it: a reader other than
// sitemapd's own.
type sitemapEntry struct {
	Loc     string   `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 loc"`
	LastMod string   `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 lastmod"`
	Images  []string `xml:"http://www.google.com/schemas/sitemap-image/1.1 image>loc"`
}

// readEntries reads a sitemap's <url> entries with encoding/xml, and
// whether it declares the image namespace.
func readEntries(t *testing.T, name string, b []byte) (entries []sitemapEntry, declared bool) {
	t.Helper()
	var doc struct {
		URLs []sitemapEntry `xml:"url"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return doc.URLs, bytes.Contains(b, []byte(`xmlns:image="`+sitemap.ImageNamespace+`"`))
}

// TestImagesAsThePagesShow builds the golden tree of images and holds
// every <url>'s image:loc entries to what x/net/html's parser shows of its
// page (headtest.DOMImages), on the site's host and image_hosts, as
// siteurl.Absolute writes URLs: the golden files say what the bytes are,
// this says why.
func TestImagesAsThePagesShow(t *testing.T) {
	dir := "testdata/golden/images"
	root := filepath.Join(t.TempDir(), "root")
	materialize(t, filepath.Join(dir, "tree.txt"), root)
	cfg, e, _ := caseEngine(t, dir, root)
	mustBuild(t, e)
	hosts := append([]string{"static.test"}, cfg.Pages.ImageHosts...)
	keep := func(u *url.URL) (string, bool) {
		if u.User != nil || !slices.Contains(hosts, strings.ToLower(u.Hostname())) {
			return "", false
		}
		return siteurl.Absolute(u), true
	}
	total := 0
	for name, b := range outputs(t, cfg, root) {
		if name == cfg.IndexName {
			continue
		}
		entries, declared := readEntries(t, name, b)
		n := 0
		for _, u := range entries {
			rel := strings.TrimPrefix(u.Loc, cfg.BaseURL)
			if rel == "" || strings.HasSuffix(rel, "/") {
				rel += "index.html"
			}
			file, err := url.PathUnescape(rel)
			if err != nil {
				t.Fatal(err)
			}
			page, err := os.ReadFile(filepath.Join(root, file))
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			if strings.HasSuffix(file, ".html") {
				want = headtest.DOMImages(t, string(page), u.Loc, keep)
			}
			if !slices.Equal(u.Images, want) {
				t.Errorf("%s: %s lists images %q; its page shows %q", name, u.Loc, u.Images, want)
			}
			n += len(u.Images)
		}
		if declared != (n > 0) {
			t.Errorf("%s: image namespace declared %v, with %d images", name, declared, n)
		}
		total += n
	}
	if total < 10 {
		t.Errorf("%d images in all: the tree's pages show more", total)
	}
}

// TestImagesAtMost1000: a page that shows more images than a <url> may
// list lists the first sitemap.MaxImages, in document order.
func TestImagesAtMost1000(t *testing.T) {
	var page strings.Builder
	for i := range sitemap.MaxImages + 50 {
		fmt.Fprintf(&page, "<img src=/img/%04d.jpg>", i)
	}
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "many.html"), page.String(), defaultMTime)
	cfg := loadConfig(t, "testdata/base.yaml", root, "pages: {images: true}\n")
	e, _ := newEngine(t, cfg)
	mustBuild(t, e)
	entries, _ := readEntries(t, "sitemap.xml", outputs(t, cfg, root)["sitemap.xml"])
	if len(entries) != 1 || len(entries[0].Images) != sitemap.MaxImages ||
		entries[0].Images[0] != "https://static.test/img/0000.jpg" || entries[0].Images[sitemap.MaxImages-1] != "https://static.test/img/0999.jpg" {
		t.Errorf("entries %d; images %d, want %d from 0000 to 0999", len(entries), len(entries[0].Images), sitemap.MaxImages)
	}
}

// TestPageStoreImages checks that a build reads a page's images again
// only when its file changed since the last build, across processes (a
// no-op build reads no page's bytes), and that turning images on makes
// every page be read for them, with heads rules on or off.
func TestPageStoreImages(t *testing.T) {
	dir := t.TempDir()
	root, state := filepath.Join(dir, "root"), filepath.Join(dir, "state")
	os.MkdirAll(state, 0o755)
	page := filepath.Join(root, "p.html")
	build := func(pages string) []string {
		t.Helper()
		cfg := loadConfig(t, baseConfig, root, "state_dir: "+state+"\npages: "+pages+"\n")
		e, _ := newEngine(t, cfg)
		mustBuild(t, e)
		e.Close()
		entries, _ := readEntries(t, "sitemap.xml", outputs(t, cfg, root)["sitemap.xml"])
		if len(entries) != 1 {
			t.Fatalf("%d entries, want 1", len(entries))
		}
		return entries[0].Images
	}
	a, b := []string{"https://static.test/a.jpg"}, []string{"https://static.test/b.jpg"}
	for _, pages := range []string{"{images: true}", "{images: true, noindex: false, canonical: false, hreflang: false, redirects: false, head_dates: false}"} {
		t.Run(pages, func(t *testing.T) {
			os.RemoveAll(state)
			os.MkdirAll(state, 0o755)
			writeFile(t, page, "<img src=a.jpg>", defaultMTime)
			if got := build("{images: false}"); got != nil {
				t.Fatalf("images listed while off: %q", got)
			}
			if got := build(pages); !slices.Equal(got, a) {
				t.Fatalf("images %q, want %q: a store kept without images was trusted for them", got, a)
			}
			opened := watchOpens(t, page)
			if got := build(pages); !slices.Equal(got, a) || len(opened.take(t)) != 0 {
				t.Errorf("images %q: the page was read again though its stamp is unchanged", got)
			}
			writeFile(t, page, "<img src=b.jpg>", defaultMTime) // same size and mtime, in place
			if got := build(pages); !slices.Equal(got, b) {
				t.Errorf("images %q, want %q: a page rewritten in place with its mtime put back was not read again", got, b)
			}
			writeFile(t, page, "<img src=a.jpg>", defaultMTime.Add(time.Second))
			if got := build(pages); !slices.Equal(got, a) {
				t.Errorf("images %q, want %q: a changed page's images were not read again", got, a)
			}
		})
	}
}
