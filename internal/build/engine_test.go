package build

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/outname"
	"github.com/sitemapd/sitemapd/internal/publish"
	"github.com/sitemapd/sitemapd/internal/xsdtest"
)

const baseConfig = "testdata/base.yaml"

// site makes a small tree and returns its root.
func site(t *testing.T, files ...string) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "root")
	for _, f := range files {
		mustWrite(t, filepath.Join(root, f), defaultMTime)
	}
	os.MkdirAll(root, 0o755)
	return root
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func TestForeignSitemapIsNeverTouched(t *testing.T) {
	root := site(t, "index.html", "blog/a.html", "docs/b.html")
	hand := filepath.Join(root, "blog", "sitemap.xml")
	os.WriteFile(hand, []byte("<urlset>written by hand</urlset>"), 0o644)
	cfg := loadConfig(t, baseConfig, root, "")
	e, _ := newEngine(t, cfg)
	_, err := e.Build(context.Background())
	var fe *publish.ForeignError
	if !errors.As(err, &fe) || fe.Path != hand {
		t.Fatalf("Build error = %v, want a ForeignError naming %s", err, hand)
	}
	if got := read(t, hand); got != "<urlset>written by hand</urlset>" {
		t.Errorf("foreign sitemap changed: %q", got)
	}
	// Every other group and the index are written; the index does not claim
	// the foreign file.
	for _, p := range []string{"sitemap.xml", "docs/sitemap.xml", "sitemap_index.xml"} {
		if !exists(filepath.Join(root, p)) {
			t.Errorf("%s not written", p)
		}
	}
	if idx := read(t, filepath.Join(root, "sitemap_index.xml")); strings.Contains(idx, "blog/") {
		t.Errorf("index lists the foreign sitemap:\n%s", idx)
	}
}

func TestStaleOutputsAreRemoved(t *testing.T) {
	root := site(t, "index.html", "blog/2024/a.html", "blog/b.html", "docs/c.html")
	cfg := loadConfig(t, baseConfig, root, "depth: 2\n")
	e, _ := newEngine(t, cfg)
	mustBuild(t, e)
	if !exists(filepath.Join(root, "blog/2024/sitemap.xml")) {
		t.Fatal("depth 2 wrote no blog/2024/sitemap.xml")
	}
	// A foreign file with an output name, not in the way of any group.
	foreign := filepath.Join(root, "docs/old/sitemap.xml")
	os.MkdirAll(filepath.Dir(foreign), 0o755)
	os.WriteFile(foreign, []byte("not ours"), 0o644)

	// Fold to depth 1, empty docs/, switch to gzip.
	os.Remove(filepath.Join(root, "docs/c.html"))
	cfg = loadConfig(t, baseConfig, root, "depth: 1\ngzip: true\n")
	e2, _ := newEngine(t, cfg)
	rep := mustBuild(t, e2)
	for _, p := range []string{"blog/2024/sitemap.xml", "docs/sitemap.xml", "sitemap.xml", "blog/sitemap.xml", "sitemap_index.xml"} {
		if exists(filepath.Join(root, p)) {
			t.Errorf("stale %s not removed", p)
		}
	}
	for _, p := range []string{"blog/sitemap.xml.gz", "sitemap.xml.gz", "sitemap_index.xml.gz"} {
		if !exists(filepath.Join(root, p)) {
			t.Errorf("%s not written", p)
		}
	}
	if read(t, foreign) != "not ours" {
		t.Error("a foreign file with an output name was touched")
	}
	if len(rep.Removed) != 5 {
		t.Errorf("removed %v, want 5 files", rep.Removed)
	}
}

func TestEmptySiteWritesNoIndex(t *testing.T) {
	root := site(t, "index.html")
	// A site emptied on purpose: the guard would hold its sitemaps.
	cfg := loadConfig(t, baseConfig, root, "shrink_guard: false\n")
	e, _ := newEngine(t, cfg)
	mustBuild(t, e)
	os.Remove(filepath.Join(root, "index.html"))
	os.WriteFile(filepath.Join(root, "style.css"), nil, 0o644)
	mustBuild(t, e)
	for _, p := range []string{"sitemap.xml", "sitemap_index.xml"} {
		if exists(filepath.Join(root, p)) {
			t.Errorf("%s still there: an empty urlset or index is invalid", p)
		}
	}
}

func TestOutputDir(t *testing.T) {
	root := site(t, "index.html", "blog/a.html")
	out := filepath.Join(filepath.Dir(root), "out")
	os.Mkdir(out, 0o755)
	cfg := loadConfig(t, baseConfig, root, "output_dir: "+out+"\n")
	e, _ := newEngine(t, cfg)
	mustBuild(t, e)
	for _, p := range []string{"sitemap.xml", "blog/sitemap.xml", "sitemap_index.xml"} {
		if !exists(filepath.Join(out, p)) {
			t.Errorf("%s not in output_dir", p)
		}
		if exists(filepath.Join(root, p)) {
			t.Errorf("%s written into the document root", p)
		}
	}
	if idx := read(t, filepath.Join(out, "sitemap_index.xml")); !strings.Contains(idx, "<loc>https://static.test/blog/sitemap.xml</loc>") {
		t.Errorf("index:\n%s", idx)
	}
	// Stale files in the output directory go too.
	os.RemoveAll(filepath.Join(root, "blog"))
	mustBuild(t, e)
	if exists(filepath.Join(out, "blog/sitemap.xml")) {
		t.Error("stale blog/sitemap.xml not removed from output_dir")
	}
}

// TestLocLengthBoundary lists a URL of 2,047 characters and skips one of
// 2,048 (sitemaps.org: "less than 2,048 characters").
func TestLocLengthBoundary(t *testing.T) {
	const base = "https://static.test/" // 20 characters
	path := func(total int) string {
		n := total - len(base) - len(".html")
		var segs []string
		for n > 200 {
			segs = append(segs, strings.Repeat("d", 199))
			n -= 200
		}
		return strings.Join(append(segs, strings.Repeat("f", n)), "/") + ".html"
	}
	ok, long := path(2047), path(2048)
	root := site(t, ok, long)
	cfg := loadConfig(t, baseConfig, root, "depth: 0\n")
	e, logs := newEngine(t, cfg)
	mustBuild(t, e)
	sm := read(t, filepath.Join(root, "sitemap.xml"))
	if !strings.Contains(sm, "<loc>"+base+ok+"</loc>") {
		t.Error("the 2,047-character URL is missing")
	}
	if strings.Contains(sm, long) {
		t.Error("the 2,048-character URL is listed")
	}
	if w := logs.FilterMessageSnippet("longer than").All(); len(w) != 1 || w[0].ContextMap()["path"] != filepath.Join(root, long) {
		t.Errorf("warnings = %v, want one naming the file", w)
	}
}

func TestFutureMTime(t *testing.T) {
	root := site(t, "a.html")
	future := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	os.Chtimes(filepath.Join(root, "a.html"), future, future)
	cfg := loadConfig(t, baseConfig, root, "")
	e, logs := newEngine(t, cfg, withClock(func() time.Time { return time.Date(2029, 12, 31, 0, 0, 0, 0, time.UTC) }))
	mustBuild(t, e)
	if sm := read(t, filepath.Join(root, "sitemap.xml")); strings.Contains(sm, "<lastmod>2030") || !strings.Contains(sm, "a.html</loc></url>") {
		t.Errorf("future mtime listed as lastmod:\n%s", sm)
	}
	if logs.FilterMessageSnippet("future").Len() != 1 {
		t.Error("no warning for the future mtime")
	}
}

func TestCanceledBuildPublishesNothing(t *testing.T) {
	root := site(t, "index.html", "a/b.html")
	cfg := loadConfig(t, baseConfig, root, "")
	e, _ := newEngine(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Build(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if outs := outputs(t, cfg, root); len(outs) != 0 {
		t.Errorf("canceled build published %d files", len(outs))
	}
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && publish.IsTemp(d.Name()) {
			t.Errorf("temp file left: %s", p)
		}
		return nil
	})
}

// TestUnreadableGroupKeepsItsSitemap injects EACCES on one directory: the
// build fails naming it, its published sitemap stays as it was and stays in
// the index, and every other group is updated.
func TestUnreadableGroupKeepsItsSitemap(t *testing.T) {
	root := site(t, "index.html", "blog/a.html", "blog/deep/b.html", "docs/c.html")
	cfg := loadConfig(t, baseConfig, root, "")
	e, _ := newEngine(t, cfg)
	mustBuild(t, e)
	blogBefore := read(t, filepath.Join(root, "blog/sitemap.xml"))

	os.Remove(filepath.Join(root, "blog/a.html"))
	mustWrite(t, filepath.Join(root, "docs/new.html"), defaultMTime)
	deny := filepath.Join(root, "blog/deep")
	for _, eng := range []*Engine{e, nil} {
		if eng == nil { // and after a restart, with no memory of the last build
			eng, _ = newEngine(t, cfg)
		}
		eng.opts.openDir = func(p string) (*os.File, error) {
			if p == deny {
				return nil, &os.PathError{Op: "open", Path: p, Err: os.ErrPermission}
			}
			return os.Open(p)
		}
		_, err := eng.Build(context.Background())
		if err == nil || !strings.Contains(err.Error(), deny) || !errors.Is(err, os.ErrPermission) {
			t.Fatalf("Build error = %v, want a permission error naming %s", err, deny)
		}
		if got := read(t, filepath.Join(root, "blog/sitemap.xml")); got != blogBefore {
			t.Errorf("the unreadable group's sitemap changed:\n%s", got)
		}
		if !strings.Contains(read(t, filepath.Join(root, "docs/sitemap.xml")), "new.html") {
			t.Error("the other groups were not updated")
		}
		if !strings.Contains(read(t, filepath.Join(root, "sitemap_index.xml")), "/blog/sitemap.xml") {
			t.Error("the unreadable group's sitemap was dropped from the index")
		}
	}
}

// TestIndexNowKeyFile: a build publishes <key>.txt holding the key at the
// root of the output, readable by the web server; a file of that name with
// other content is someone else's and is refused by path.
func TestIndexNowKeyFile(t *testing.T) {
	const key = "0123456789abcdef"
	extra := "state_dir: " + strconv.Quote(t.TempDir()) + "\nnotify: {endpoints: [{name: in, kind: indexnow, url: \"https://api.indexnow.org/indexnow\", key: " + key + "}]}\n"
	root := site(t, "index.html")
	cfg := loadConfig(t, baseConfig, root, extra)
	e, _ := newEngine(t, cfg)
	mustBuild(t, e)
	p := filepath.Join(root, key+".txt")
	if got := read(t, p); got != key {
		t.Errorf("key file holds %q, want %q", got, key)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o644 {
		t.Errorf("key file mode %v", st.Mode().Perm())
	}
	if rep := mustBuild(t, e); len(rep.Written) != 0 {
		t.Errorf("second build wrote %v", rep.Written)
	}

	os.WriteFile(p, []byte("someone else's"), 0o644)
	_, err := e.Build(context.Background())
	var fe *publish.ForeignError
	if !errors.As(err, &fe) || fe.Path != p {
		t.Errorf("err = %v, want a refusal naming %s", err, p)
	}
	if got := read(t, p); got != "someone else's" {
		t.Errorf("the foreign key file was replaced: %q", got)
	}
}

// TestStylesheet: with `stylesheet: builtin` every sitemap and the index
// name sitemapd's own stylesheet, written at the root; they stay valid,
// and applied by a real XSLT processor the stylesheet gives a table of the
// pages.
func TestStylesheet(t *testing.T) {
	root := site(t, "index.html", "blog/a & b.html", "blog/c.html")
	cfg := loadConfig(t, baseConfig, root, "stylesheet: builtin\n")
	e, _ := newEngine(t, cfg)
	mustBuild(t, e)
	const pi = `<?xml-stylesheet type="text/xsl" href="https://static.test/sitemap.xsl"?>`
	for _, f := range []string{"sitemap_index.xml", "sitemap.xml", "blog/sitemap.xml"} {
		if !strings.Contains(read(t, filepath.Join(root, f)), pi) {
			t.Errorf("%s does not name the stylesheet", f)
		}
	}
	xsdtest.Validate(t, filepath.Join(root, "sitemap.xml"), filepath.Join(root, "blog/sitemap.xml"))
	if !exists(filepath.Join(root, outname.StylesheetName)) {
		t.Fatal("no stylesheet written")
	}
	if rep := mustBuild(t, e); len(rep.Written) != 0 {
		t.Errorf("second build wrote %v", rep.Written)
	}
	xsltproc, err := exec.LookPath("xsltproc")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("xsltproc is needed (apt-get install xsltproc)")
		}
		t.Skip("xsltproc not installed")
	}
	out, err := exec.Command(xsltproc, filepath.Join(root, outname.StylesheetName), filepath.Join(root, "blog/sitemap.xml")).CombinedOutput()
	if err != nil {
		t.Fatalf("xsltproc: %v\n%s", err, out)
	}
	for _, want := range []string{"<table>", "2 pages", `href="https://static.test/blog/a%20&amp;%20b.html"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the rendered page lacks %s:\n%s", want, out)
		}
	}
}
