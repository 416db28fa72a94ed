package build

import (
	"context"
	"encoding/xml"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/changeset"
	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/xsdtest"
)

// indexOf reads the root index with encoding/xml: loc -> lastmod.
func indexOf(t *testing.T, root string) map[string]string {
	t.Helper()
	var idx xmlIndex
	if err := xml.Unmarshal([]byte(read(t, filepath.Join(root, "sitemap_index.xml"))), &idx); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, s := range idx.Sitemaps {
		out[s.Loc] = s.LastMod
	}
	return out
}

// extraSite is a site with pages, an app's own sitemap where the docs
// group's would be, and one URL file outside the document root.
func extraSite(t *testing.T, extra string, lines ...string) (root, urls string, cfg *config.Config, logs func() string) {
	t.Helper()
	root = site(t, "index.html", "docs/a.html", "blog/b.html")
	os.WriteFile(filepath.Join(root, "docs/sitemap.xml"), []byte("<urlset>the app's</urlset>"), 0o644)
	urls = filepath.Join(filepath.Dir(root), "etc", "shop.urls")
	os.MkdirAll(filepath.Dir(urls), 0o755)
	writeLines(t, urls, lines...)
	cfg = loadConfig(t, baseConfig, root, fmt.Sprintf("extra_urls: [%q]\nextra_sitemaps: [https://static.test/docs/sitemap.xml, https://static.test/app/map.xml]\n%s", urls, extra))
	_, ol := newEngine(t, cfg) // for its logs
	return root, urls, cfg, func() string { return warnings(ol, root) }
}

func writeLines(t *testing.T, p string, lines ...string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestExtras: a URL file is published as its own sitemap at the root,
// bad lines refused with warnings naming file and line; the apps'
// sitemaps are listed in the index and never touched; the docs group,
// where the app's sitemap.xml is, publishes as sitemap-sitemapd.xml.
func TestExtras(t *testing.T) {
	root, urls, cfg, _ := extraSite(t, "",
		"https://static.test/shop/\t2024-05-01",
		"https://static.test/shop/item?id=42\t2024-05-01T10:30:00+02:00",
		"https://elsewhere.test/x",
		"https://static.test/shop/bad-date\t2024-13-01",
		"https://static.test/shop/plain")
	e, ol := newEngine(t, cfg, WithChanges())
	if _, err := e.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := lastmods(t, filepath.Join(root, "sitemap-urls-shop.xml"))
	want := map[string]string{
		"https://static.test/shop/":           "2024-05-01T00:00:00Z",
		"https://static.test/shop/item?id=42": "2024-05-01T08:30:00Z",
		"https://static.test/shop/plain":      "",
	}
	if !maps.Equal(got, want) {
		t.Errorf("sitemap-urls-shop.xml lists %v, want %v", got, want)
	}
	for _, w := range []string{`path="TMP/etc/shop.urls:3"`, `path="TMP/etc/shop.urls:4"`} {
		if logs := warnings(ol, root); !strings.Contains(logs, w) {
			t.Errorf("no warning naming %s:\n%s", w, logs)
		}
	}
	if s := read(t, filepath.Join(root, "docs/sitemap.xml")); s != "<urlset>the app's</urlset>" {
		t.Errorf("the app's sitemap was touched: %q", s)
	}
	if got := lastmods(t, filepath.Join(root, "docs/sitemap-sitemapd.xml")); len(got) != 1 || !slices.Contains(slices.Collect(maps.Keys(got)), "https://static.test/docs/a.html") {
		t.Errorf("docs/sitemap-sitemapd.xml lists %v", got)
	}
	idx := indexOf(t, root)
	for loc, lastmod := range map[string]bool{
		"https://static.test/sitemap-urls-shop.xml":     true,
		"https://static.test/docs/sitemap-sitemapd.xml": true,
		"https://static.test/sitemap.xml":               true,
		"https://static.test/blog/sitemap.xml":          true,
		"https://static.test/docs/sitemap.xml":          false, // the app's: no lastmod known
		"https://static.test/app/map.xml":               false,
	} {
		lm, ok := idx[loc]
		if !ok || (lm != "") != lastmod {
			t.Errorf("index: %s listed %v, lastmod %q; want listed, with a lastmod: %v", loc, ok, lm, lastmod)
		}
	}
	if len(idx) != 6 {
		t.Errorf("index lists %d sitemaps: %v", len(idx), idx)
	}
	xsdtest.Validate(t, filepath.Join(root, "sitemap-urls-shop.xml"), filepath.Join(root, "docs/sitemap-sitemapd.xml"))
	if rep := mustBuild(t, e); len(rep.Written)+len(rep.Removed) != 0 {
		t.Errorf("a second build wrote %v, removed %v", rep.Written, rep.Removed)
	}
	// Without the app's URL in extra_sitemaps, its file is in the group's
	// way again: the group fails, naming it, and the file is left alone.
	cfg = loadConfig(t, baseConfig, root, fmt.Sprintf("extra_urls: [%q]\n", urls))
	plain, _ := newEngine(t, cfg)
	if _, err := plain.Build(context.Background()); err == nil || !strings.Contains(err.Error(), filepath.Join(root, "docs/sitemap.xml")) || !strings.Contains(err.Error(), "extra_sitemaps") {
		t.Errorf("err = %v, want the app's sitemap named, and extra_sitemaps", err)
	}
	if s := read(t, filepath.Join(root, "docs/sitemap.xml")); s != "<urlset>the app's</urlset>" {
		t.Errorf("the app's sitemap was touched: %q", s)
	}
}

// TestURLFileParts: a URL file larger than a part is cut into parts as a
// group is, each valid and listed in the index; the parts together list
// every URL of the file once.
func TestURLFileParts(t *testing.T) {
	var lines []string
	want := map[string]string{}
	for i := range 200 {
		loc := fmt.Sprintf("https://static.test/item/%03d", i)
		lines = append(lines, loc+"\t2024-01-02")
		want[loc] = "2024-01-02T00:00:00Z"
	}
	root, _, cfg, _ := extraSite(t, "part_size: 20\n", lines...)
	e, _ := newEngine(t, cfg)
	mustBuild(t, e)
	parts, _ := filepath.Glob(filepath.Join(root, "sitemap-urls-shop*.xml"))
	if len(parts) < 3 {
		t.Fatalf("%d parts: %v", len(parts), parts)
	}
	got := map[string]string{}
	idx := indexOf(t, root)
	for _, p := range parts {
		for loc, lm := range lastmods(t, p) {
			if _, dup := got[loc]; dup {
				t.Errorf("%s in two parts", loc)
			}
			got[loc] = lm
		}
		if _, ok := idx["https://static.test/"+filepath.Base(p)]; !ok {
			t.Errorf("index lacks %s", filepath.Base(p))
		}
	}
	if !maps.Equal(got, want) {
		t.Errorf("the parts list %d URLs, want %d", len(got), len(want))
	}
	xsdtest.Validate(t, parts...)
}

// TestURLFileChanges: an edit of the URL file owes exactly the URLs added,
// changed (another date) and removed, before its sitemap lands, and the
// result is a fresh full build's.
func TestURLFileChanges(t *testing.T) {
	root, urls, cfg, _ := extraSite(t, "",
		"https://static.test/keep\t2024-01-01",
		"https://static.test/redate\t2024-01-01",
		"https://static.test/drop",
		"https://static.test/undated")
	var owed []changeset.Changes
	var landed []bool // whether the sitemap was rewritten when owe was called
	sm := filepath.Join(root, "sitemap-urls-shop.xml")
	e, _ := newEngine(t, cfg, WithChanges(), WithWriteAhead(func(c changeset.Changes, _ bool) error {
		owed = append(owed, c)
		b, _ := os.ReadFile(sm)
		landed = append(landed, strings.Contains(string(b), "/added"))
		return nil
	}))
	mustBuild(t, e)
	owed, landed = nil, nil
	writeLines(t, urls,
		"https://static.test/keep\t2024-01-01",
		"https://static.test/redate\t2024-02-01",
		"https://static.test/added",
		"https://static.test/undated")
	rep, err := e.UpdateURLFiles(context.Background(), []string{urls})
	if err != nil {
		t.Fatal(err)
	}
	want := changeset.Changes{Added: []string{"https://static.test/added"}, Changed: []string{"https://static.test/redate"}, Removed: []string{"https://static.test/drop"}}
	if len(owed) != 1 || !changesEqual(owed[0], want) || !changesEqual(rep.Changes, want) {
		t.Errorf("owed %v, reported %v; want %v", owed, rep.Changes, want)
	}
	if len(landed) != 1 || landed[0] {
		t.Error("the sitemap landed before what it owes was recorded")
	}
	if err := checkFullBuildAgrees(t, cfg); err != nil {
		t.Error(err)
	}
}

func changesEqual(a, b changeset.Changes) bool {
	return slices.Equal(a.Added, b.Added) && slices.Equal(a.Changed, b.Changed) && slices.Equal(a.Removed, b.Removed)
}

// checkFullBuildAgrees: a fresh engine's full build writes and removes
// nothing. Its error is returned.
func checkFullBuildAgrees(t *testing.T, cfg *config.Config) error {
	t.Helper()
	fresh, _ := newEngine(t, cfg)
	rep, err := fresh.Build(context.Background())
	if rep == nil {
		t.Fatalf("Build: %v", err)
	}
	if len(rep.Written)+len(rep.Removed) != 0 {
		t.Errorf("a fresh full build writes %v, removes %v", rep.Written, rep.Removed)
	}
	return err
}

// TestURLFileMissing: a URL file that cannot be read fails alone: its
// sitemap keeps the URLs it listed, the index still lists it, the error
// names the file, and a fresh full build agrees. Only taking the file out
// of extra_urls removes its sitemap.
func TestURLFileMissing(t *testing.T) {
	root, urls, cfg, _ := extraSite(t, "", "https://static.test/one", "https://static.test/two")
	e, _ := newEngine(t, cfg, WithChanges())
	mustBuild(t, e)
	sm := filepath.Join(root, "sitemap-urls-shop.xml")
	before := read(t, sm)
	os.Remove(urls)
	for _, run := range []func() (*Report, error){
		func() (*Report, error) { return e.UpdateURLFiles(context.Background(), []string{urls}) },
		func() (*Report, error) { return e.Build(context.Background()) },
	} {
		rep, err := run()
		if err == nil || !strings.Contains(err.Error(), urls) {
			t.Errorf("err = %v, want the file named", err)
		}
		if rep != nil && len(rep.Changes.Removed) != 0 {
			t.Errorf("owes removals %v", rep.Changes.Removed)
		}
		if read(t, sm) != before {
			t.Error("the sitemap changed")
		}
		if _, ok := indexOf(t, root)["https://static.test/sitemap-urls-shop.xml"]; !ok {
			t.Error("the index no longer lists it")
		}
	}
	if err := checkFullBuildAgrees(t, cfg); err == nil {
		t.Error("a fresh full build without the file: no error")
	}
	cfg = loadConfig(t, baseConfig, root, "extra_sitemaps: [https://static.test/docs/sitemap.xml]\n")
	fresh, _ := newEngine(t, cfg)
	mustBuild(t, fresh)
	if exists(sm) {
		t.Error("a build without the file in extra_urls kept its sitemap")
	}
	if _, ok := indexOf(t, root)["https://static.test/sitemap-urls-shop.xml"]; ok {
		t.Error("the index still lists it")
	}
}

// TestURLFileDateToCome: a date in the future gives no lastmod until it
// comes, as a page's future mtime: Due says when, and a rebuild then
// writes it.
func TestURLFileDateToCome(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	root, _, cfg, _ := extraSite(t, "", "https://static.test/soon\t2025-01-02", "https://static.test/past\t2024-12-31")
	e, _ := newEngine(t, cfg, WithChanges(), withClock(func() time.Time { return now }))
	mustBuild(t, e)
	sm := filepath.Join(root, "sitemap-urls-shop.xml")
	if got := lastmods(t, sm); got["https://static.test/soon"] != "" || got["https://static.test/past"] != "2024-12-31T00:00:00Z" {
		t.Errorf("listed %v", got)
	}
	if due := e.Due(); !due.Equal(time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("Due = %v", due)
	}
	now = now.Add(48 * time.Hour)
	rep, err := e.Rebuild(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := lastmods(t, sm); got["https://static.test/soon"] != "2025-01-02T00:00:00Z" {
		t.Errorf("after its date: %v", got)
	}
	if !slices.Equal(rep.Changes.Changed, []string{"https://static.test/soon"}) || !e.Due().IsZero() {
		t.Errorf("changes %v, due %v", rep.Changes, e.Due())
	}
}

// TestURLFileGzipOutputDir: gzipped, into a separate output tree, a URL
// file's sitemap is found again by the next build (nothing rewritten) and
// removed once the file leaves the configuration.
func TestURLFileGzipOutputDir(t *testing.T) {
	root := site(t, "index.html")
	out := filepath.Join(filepath.Dir(root), "out")
	os.MkdirAll(out, 0o755)
	urls := filepath.Join(filepath.Dir(root), "list")
	writeLines(t, urls, "https://static.test/app/a", "https://static.test/app/b\t2024-02-03")
	opts := fmt.Sprintf("gzip: true\noutput_dir: %q\n", out)
	cfg := loadConfig(t, baseConfig, root, opts+fmt.Sprintf("extra_urls: [%q]\n", urls))
	e, _ := newEngine(t, cfg)
	mustBuild(t, e)
	sm := filepath.Join(out, "sitemap-urls-list.xml.gz")
	if got := string(gunzip(t, []byte(read(t, sm)))); !strings.Contains(got, "<loc>https://static.test/app/b</loc><lastmod>2024-02-03T00:00:00Z</lastmod>") {
		t.Errorf("%s:\n%s", sm, got)
	}
	if err := checkFullBuildAgrees(t, cfg); err != nil {
		t.Error(err)
	}
	cfg = loadConfig(t, baseConfig, root, opts)
	e, _ = newEngine(t, cfg)
	if rep := mustBuild(t, e); !slices.Contains(rep.Removed, sm) {
		t.Errorf("removed %v, want %s", rep.Removed, sm)
	}
}

// TestURLFileDropped: a URL file taken out of extra_urls takes its sitemap
// with it, and its URLs are owed as removed, as a page's with its file.
func TestURLFileDropped(t *testing.T) {
	root, _, cfg, _ := extraSite(t, "", "https://static.test/one", "https://static.test/two")
	e, _ := newEngine(t, cfg, WithChanges())
	mustBuild(t, e)
	cfg = loadConfig(t, baseConfig, root, "extra_sitemaps: [https://static.test/docs/sitemap.xml]\n")
	var owed changeset.Changes
	e, _ = newEngine(t, cfg, WithChanges(), WithWriteAhead(func(c changeset.Changes, _ bool) error { owed.Merge(c); return nil }))
	rep := mustBuild(t, e)
	want := []string{"https://static.test/one", "https://static.test/two"}
	if !slices.Equal(owed.Removed, want) || !slices.Equal(rep.Changes.Removed, want) {
		t.Errorf("owed %v, reported %v; want %v removed", owed, rep.Changes, want)
	}
	if exists(filepath.Join(root, "sitemap-urls-shop.xml")) {
		t.Error("its sitemap stayed")
	}
}

// TestURLFileRules: a URL file's URLs are listed by the rules pages are:
// robots.txt keeps one out (with a warning naming file and line) until it
// allows it, and pages.rules give changefreq and priority by path.
func TestURLFileRules(t *testing.T) {
	root, urls, _, _ := extraSite(t, "", "https://static.test/app/a", "https://static.test/app/private/b", "https://static.test/other")
	os.WriteFile(filepath.Join(root, "robots.txt"), []byte("User-agent: *\nDisallow: /app/private/\n"), 0o644)
	cfg := loadConfig(t, baseConfig, root, fmt.Sprintf("extra_urls: [%q]\nextra_sitemaps: [https://static.test/docs/sitemap.xml]\n", urls)+
		"pages:\n  rules: [{match: \"/app/**\", changefreq: daily, priority: 0.3}]\n")
	e, logs := newEngine(t, cfg)
	mustBuild(t, e)
	sm := read(t, filepath.Join(root, "sitemap-urls-shop.xml"))
	for _, want := range []string{
		"<url><loc>https://static.test/app/a</loc><changefreq>daily</changefreq><priority>0.3</priority></url>",
		"<url><loc>https://static.test/other</loc></url>",
	} {
		if !strings.Contains(sm, want) {
			t.Errorf("lacks %s:\n%s", want, sm)
		}
	}
	if strings.Contains(sm, "/app/private/") {
		t.Errorf("lists what robots.txt disallows:\n%s", sm)
	}
	if w := warnings(logs, root); !strings.Contains(w, `robots.txt disallows it path="TMP/etc/shop.urls:2"`) {
		t.Errorf("warnings:\n%s", w)
	}
	os.WriteFile(filepath.Join(root, "robots.txt"), []byte("User-agent: *\nDisallow: /nothing/\n"), 0o644)
	mustBuild(t, e)
	if sm := read(t, filepath.Join(root, "sitemap-urls-shop.xml")); !strings.Contains(sm, "/app/private/b") {
		t.Errorf("robots.txt allows it now:\n%s", sm)
	}
	xsdtest.Validate(t, filepath.Join(root, "sitemap-urls-shop.xml"))
}
