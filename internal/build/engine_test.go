package build

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/changeset"
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

// TestRebuildEqualsFullBuild changes the tree, rebuilds only the touched
// groups, and checks that a full build of the final tree would write
// nothing different.
func TestRebuildEqualsFullBuild(t *testing.T) {
	root := site(t, "index.html", "blog/a.html", "blog/2024/b.html", "docs/c.html", "old/d.html")
	cfg := loadConfig(t, baseConfig, root, "")
	e, _ := newEngine(t, cfg)
	mustBuild(t, e)

	later := defaultMTime.Add(time.Hour)
	mustWrite(t, filepath.Join(root, "blog/2024/new.html"), later) // add in a folded dir
	mustWrite(t, filepath.Join(root, "docs/c.html"), later)        // change
	os.RemoveAll(filepath.Join(root, "old"))                       // a group disappears
	mustWrite(t, filepath.Join(root, "fresh/e.html"), later)       // a group appears
	os.Remove(filepath.Join(root, "index.html"))                   // root group changes

	var dirs []string
	for _, d := range []string{"blog/2024", "docs", "old", "fresh", ""} {
		dirs = append(dirs, e.opts.depth.GroupOf(d))
	}
	rep, err := e.Rebuild(context.Background(), dirs)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Written) == 0 || len(rep.Removed) == 0 {
		t.Errorf("rebuild wrote %v, removed %v", rep.Written, rep.Removed)
	}
	if exists(filepath.Join(root, "old/sitemap.xml")) {
		t.Error("sitemap of the vanished group is still there")
	}
	before := outputs(t, cfg, root)
	fresh, _ := newEngine(t, cfg)
	if rep := mustBuild(t, fresh); len(rep.Written) != 0 || len(rep.Removed) != 0 {
		t.Errorf("full build after rebuild wrote %v, removed %v", rep.Written, rep.Removed)
	}
	after := outputs(t, cfg, root)
	for name, b := range before {
		if !bytes.Equal(b, after[name]) {
			t.Errorf("%s differs from a full build", name)
		}
	}
	if len(before) != len(after) {
		t.Errorf("%d outputs after rebuild, %d after full build", len(before), len(after))
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

// TestUpdateFromMemory changes a tree and calls Update with the changed
// directories (as the watcher reports them): only those are re-read, and a
// full build of the final tree afterwards writes nothing. The change lists
// name exactly the URLs added, changed and removed.
func TestUpdateFromMemory(t *testing.T) {
	root := site(t, "index.html", "blog/a.html", "blog/2024/b.html", "blog/2024/old/c.html", "docs/d.html")
	cfg := loadConfig(t, baseConfig, root, "")
	e, _ := newEngine(t, cfg, WithChanges())
	mustBuild(t, e)

	later := defaultMTime.Add(time.Hour)
	mustWrite(t, filepath.Join(root, "blog/2024/new/deeper/n.html"), later) // a new subtree
	mustWrite(t, filepath.Join(root, "blog/a.html"), later)                 // a change
	os.RemoveAll(filepath.Join(root, "blog/2024/old"))                      // a removed subtree
	// What the watcher reports: the parents of what changed, the new and
	// the removed directories.
	rep, err := e.Update(context.Background(), []string{"blog", "blog/2024", "blog/2024/new", "blog/2024/new/deeper", "blog/2024/old"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Changes
	want := changeset.Changes{
		Added:   []string{"https://static.test/blog/2024/new/deeper/n.html"},
		Changed: []string{"https://static.test/blog/a.html"},
		Removed: []string{"https://static.test/blog/2024/old/c.html"},
	}
	if !slices.Equal(c.Added, want.Added) || !slices.Equal(c.Changed, want.Changed) || !slices.Equal(c.Removed, want.Removed) {
		t.Errorf("changes = %+v, want %+v", c, want)
	}
	fresh, _ := newEngine(t, cfg)
	if rep := mustBuild(t, fresh); len(rep.Written) != 0 || len(rep.Removed) != 0 {
		t.Errorf("full build after Update wrote %v, removed %v", rep.Written, rep.Removed)
	}
}

// TestUpdateReadsOnlyDirtyDirectories proves Update works from memory: a
// change in a directory it is not told about stays unseen until that
// directory (or one above it, which is re-read down to the bottom) is
// reported, or a full build runs.
func TestUpdateReadsOnlyDirtyDirectories(t *testing.T) {
	root := site(t, "blog/x/a.html", "blog/side/s.html")
	cfg := loadConfig(t, baseConfig, root, "")
	e, _ := newEngine(t, cfg, WithChanges())
	mustBuild(t, e)
	mustWrite(t, filepath.Join(root, "blog/side/s.html"), defaultMTime.Add(time.Hour)) // not reported
	mustWrite(t, filepath.Join(root, "blog/x/b.html"), defaultMTime)                   // reported
	if _, err := e.Update(context.Background(), []string{"blog/x"}, nil); err != nil {
		t.Fatal(err)
	}
	sm := read(t, filepath.Join(root, "blog/sitemap.xml"))
	if !strings.Contains(sm, "blog/x/b.html") || strings.Contains(sm, "08:08:09Z") {
		t.Errorf("Update re-read more than the dirty directory:\n%s", sm)
	}
	if _, err := e.Update(context.Background(), []string{"blog/side"}, nil); err != nil {
		t.Fatal(err)
	}
	if sm := read(t, filepath.Join(root, "blog/sitemap.xml")); !strings.Contains(sm, "08:08:09Z") {
		t.Errorf("the reported change is missing:\n%s", sm)
	}
}

// TestUpdateByName refreshes single entries of a remembered directory:
// named entries are looked at and nothing else; a directory moved away
// with names pending for it is found gone, not kept from memory.
func TestUpdateByName(t *testing.T) {
	root := site(t, "bulk/p1.html", "bulk/p2.html", "bulk/p3.html", "bulk/sub/q.html")
	// The whole site moves away at the end: the guard would hold it.
	cfg := loadConfig(t, baseConfig, root, "shrink_guard: false\n")
	e, _ := newEngine(t, cfg, WithChanges())
	mustBuild(t, e)
	later := defaultMTime.Add(time.Hour)
	os.Remove(filepath.Join(root, "bulk/p1.html"))
	mustWrite(t, filepath.Join(root, "bulk/p3.html"), later)
	mustWrite(t, filepath.Join(root, "bulk/p4.html"), defaultMTime)
	mustWrite(t, filepath.Join(root, "bulk/p2.html"), later) // not named: stays as remembered
	rep, err := e.Update(context.Background(), []string{"bulk"}, map[string][]string{"bulk": {"p1.html", "p3.html", "p4.html"}})
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Changes
	if !slices.Equal(c.Added, []string{"https://static.test/bulk/p4.html"}) ||
		!slices.Equal(c.Changed, []string{"https://static.test/bulk/p3.html"}) ||
		!slices.Equal(c.Removed, []string{"https://static.test/bulk/p1.html"}) {
		t.Errorf("changes = %+v", c)
	}
	sm := read(t, filepath.Join(root, "bulk/sitemap.xml"))
	if !strings.Contains(sm, "/bulk/sub/q.html") || strings.Count(sm, "08:08:09Z") != 1 {
		t.Errorf("sitemap after a by-name update:\n%s", sm)
	}

	// The directory moves away; its file events arrive with the move.
	if err := os.Rename(filepath.Join(root, "bulk"), filepath.Join(filepath.Dir(root), "away")); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Update(context.Background(), []string{"", "bulk"}, map[string][]string{"": {"bulk"}, "bulk": {"p2.html"}}); err != nil {
		t.Fatal(err)
	}
	fresh, _ := newEngine(t, cfg)
	if rep := mustBuild(t, fresh); len(rep.Written) != 0 || len(rep.Removed) != 0 {
		t.Errorf("after the move, a full build would write %v and remove %v", rep.Written, rep.Removed)
	}
}

// TestDirectoryMovedWhilePublishing moves group directories away in the
// middle of an update, as a deploy can: one after its sitemap was staged
// (the rename into place fails), one while it is being read (the temp file
// cannot be created). Neither is an error nor comes back as a directory;
// every other group lands with its changes reported; the moved groups are
// marked for retry, and the retry leaves exactly what a full build writes.
func TestDirectoryMovedWhilePublishing(t *testing.T) {
	root := site(t, "index.html", "a/p.html", "b/q.html", "c/r.html", "d/s.html")
	outside := filepath.Join(filepath.Dir(root), "outside")
	os.Mkdir(outside, 0o755)
	cfg := loadConfig(t, baseConfig, root, "")
	e, _ := newEngine(t, cfg, WithChanges())
	mustBuild(t, e)

	later := defaultMTime.Add(time.Hour)
	for _, f := range []string{"a/p2.html", "b/q2.html", "c/r2.html", "d/s2.html"} {
		mustWrite(t, filepath.Join(root, f), later)
	}
	// Groups are published in order: a is staged when b is read, and c is
	// moved just after it was opened for reading.
	move := map[string]string{filepath.Join(root, "b"): "a", filepath.Join(root, "c"): "c"}
	e.opts.openDir = func(p string) (*os.File, error) {
		f, err := os.Open(p)
		if d, ok := move[p]; ok {
			delete(move, p)
			if err := os.Rename(filepath.Join(root, d), filepath.Join(outside, d)); err != nil {
				t.Fatal(err)
			}
		}
		return f, err
	}
	rep, err := e.Update(context.Background(), []string{"a", "b", "c", "d"}, nil)
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	for _, d := range []string{"a", "c"} {
		if exists(filepath.Join(root, d)) {
			t.Errorf("the moved directory %s came back", d)
		}
	}
	for _, f := range []string{"b/sitemap.xml", "d/sitemap.xml"} {
		if !strings.Contains(read(t, filepath.Join(root, f)), "2.html") {
			t.Errorf("%s was not updated", f)
		}
	}
	wantAdded := []string{"https://static.test/b/q2.html", "https://static.test/d/s2.html"}
	if !slices.Equal(rep.Changes.Added, wantAdded) || len(rep.Changes.Removed) != 0 {
		t.Errorf("changes = %+v, want only %v added: the moved groups published nothing", rep.Changes, wantAdded)
	}
	if got := e.Failed(); !slices.Equal(got, []string{"a", "c"}) {
		t.Fatalf("Failed() = %v, want [a c]", got)
	}
	e.opts.openDir = os.Open
	rep, err = e.Rebuild(context.Background(), e.Failed())
	if err != nil {
		t.Fatalf("retry: %v", err)
	}
	wantRemoved := []string{"https://static.test/a/p.html", "https://static.test/c/r.html"}
	if slices.Sort(rep.Changes.Removed); !slices.Equal(rep.Changes.Removed, wantRemoved) {
		t.Errorf("retry removed %v, want %v", rep.Changes.Removed, wantRemoved)
	}
	if got := e.Failed(); len(got) != 0 {
		t.Errorf("Failed() after retry = %v", got)
	}
	fresh, _ := newEngine(t, cfg)
	if rep := mustBuild(t, fresh); len(rep.Written) != 0 || len(rep.Removed) != 0 {
		t.Errorf("full build after the retry wrote %v, removed %v", rep.Written, rep.Removed)
	}
}

// TestMovedInDirectoryBringsOldSitemaps moves in a directory that holds
// sitemapd files from another life, for pages it no longer has: its own
// sitemap, and one in a subdirectory the fold depth now puts in its group.
// Updating it removes both, as a full build would.
func TestMovedInDirectoryBringsOldSitemaps(t *testing.T) {
	root := site(t, "index.html")
	cfg := loadConfig(t, baseConfig, root, "")
	e, _ := newEngine(t, cfg, WithChanges())
	mustBuild(t, e)

	// Make the old files with a build of the directory as a root of its own.
	src := filepath.Join(filepath.Dir(root), "src")
	mustWrite(t, filepath.Join(src, "x/gone.html"), defaultMTime)
	mustWrite(t, filepath.Join(src, "x/sub/gone.html"), defaultMTime)
	deep := loadConfig(t, baseConfig, src, "depth: 3\n")
	old, _ := newEngine(t, deep)
	mustBuild(t, old)
	os.Remove(filepath.Join(src, "x/gone.html"))
	os.Remove(filepath.Join(src, "x/sub/gone.html"))
	for _, f := range []string{"x/sitemap.xml", "x/sub/sitemap.xml"} {
		if !exists(filepath.Join(src, f)) {
			t.Fatalf("setup: %s missing", f)
		}
	}
	if err := os.Rename(filepath.Join(src, "x"), filepath.Join(root, "x")); err != nil {
		t.Fatal(err)
	}
	rep, err := e.Update(context.Background(), []string{"x", "x/sub"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"x/sitemap.xml", "x/sub/sitemap.xml"} {
		if exists(filepath.Join(root, f)) {
			t.Errorf("the old %s is still there (removed %v)", f, rep.Removed)
		}
	}
	fresh, _ := newEngine(t, cfg)
	if rep := mustBuild(t, fresh); len(rep.Written) != 0 || len(rep.Removed) != 0 {
		t.Errorf("full build after the update wrote %v, removed %v", rep.Written, rep.Removed)
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
