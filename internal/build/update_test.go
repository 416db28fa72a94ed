package build

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/changeset"
)

// Incremental publishes (Rebuild, Update, Update by name), while the tree
// changes under them too: each leaves exactly what a full build of the
// final tree writes.

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
