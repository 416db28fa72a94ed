package build

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestBusyHardLink: a file with two names edited through one of them, the
// batch cut while it is still being written (busy), is seen under both
// names once it is quiet: keeping it as known while busy keeps the stamp
// by which its other name is found.
func TestBusyHardLink(t *testing.T) {
	root := site(t, "a/x.html", "b/other.html")
	if err := os.Link(filepath.Join(root, "a/x.html"), filepath.Join(root, "b/y.html")); err != nil {
		t.Fatal(err)
	}
	cfg := loadConfig(t, baseConfig, root, "")
	e, _ := newEngine(t, cfg, WithChanges())
	mustBuild(t, e)

	mustWrite(t, filepath.Join(root, "b/y.html"), defaultMTime.Add(time.Hour)) // in place: both names
	names := map[string][]string{"b": {"y.html"}}
	rep, err := e.Update(context.Background(), []string{"b"}, names, WithBusy(names))
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Changes.Counts(); c.Added+c.Changed+c.Removed != 0 {
		t.Errorf("while busy: changes %+v, want none", rep.Changes)
	}
	rep, err = e.Update(context.Background(), []string{"b"}, names)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"https://static.test/a/x.html", "https://static.test/b/y.html"}
	if got := slices.Sorted(slices.Values(rep.Changes.Changed)); !slices.Equal(got, want) {
		t.Errorf("once quiet: changed %v, want %v (the file under both its names)", got, want)
	}
}

// TestBusyUnannounced: in the daemon's publish of a watcher's batch, a
// page whose file changed after the batch was made (less watch.settle) is
// not taken as a version of the page (its events are still to come), nor
// is an empty page, named by the batch or not (cp truncating it: the
// kernel shows the new size before the new times; a writer held up
// longer than watch.settle between truncating and writing); once a batch
// made after it names it, quiet and written, it is.
func TestBusyUnannounced(t *testing.T) {
	root := site(t, "docs/a.html", "docs/b.html")
	cfg := loadConfig(t, baseConfig, root, "watch: {settle: 50ms, max_delay: 1s}\n")
	e, _ := newEngine(t, cfg, WithChanges())
	mustBuild(t, e)
	update := func(what string, at time.Time, names map[string][]string, want ...string) {
		t.Helper()
		rep, err := e.Update(context.Background(), []string{"docs"}, names, WithBatchTime(at))
		if err != nil {
			t.Fatal(err)
		}
		for i, u := range want {
			want[i] = "https://static.test/docs/" + u
		}
		if got := slices.Sorted(slices.Values(rep.Changes.Changed)); !slices.Equal(got, want) {
			t.Errorf("%s: changed %v, want %v", what, got, want)
		}
	}

	made := time.Now() // a batch made, then a.html written
	time.Sleep(cfg.Watch.Settle)
	mustWrite(t, filepath.Join(root, "docs/a.html"), defaultMTime.Add(time.Hour))
	update("written after the batch was made, its directory read whole", made, nil)
	update("written after the batch was made, named", made, map[string][]string{"docs": {"a.html"}})
	time.Sleep(cfg.Watch.Settle)
	update("a batch made once it was quiet", time.Now(), map[string][]string{"docs": {"a.html"}}, "a.html")

	if err := os.Truncate(filepath.Join(root, "docs/b.html"), 0); err != nil {
		t.Fatal(err)
	}
	time.Sleep(cfg.Watch.Settle)
	update("empty, its directory read whole", time.Now(), nil)
	update("empty, named by the watcher", time.Now(), map[string][]string{"docs": {"b.html"}})
	mustWrite(t, filepath.Join(root, "docs/b.html"), defaultMTime.Add(2*time.Hour))
	time.Sleep(cfg.Watch.Settle)
	update("written at last, named by the watcher", time.Now(), map[string][]string{"docs": {"b.html"}}, "b.html")
}

// TestBusyRescan: the daemon's full build of a batch whose events were
// lost (a deploy's cp -r overflowing inotify's queue) while the deploy
// still writes: a known page written since the batch was made, or empty
// (cp truncating it), keeps its version, and the same bytes written
// whole move no lastmod; a page the deploy wrote before the batch is
// read. Without the batch's time, the rescan took the empty page as a
// version of it, and the whole page written back as another.
func TestBusyRescan(t *testing.T) {
	root := site(t, "docs/a.html", "docs/b.html", "docs/c.html")
	cfg := loadConfig(t, baseConfig, root, "watch: {settle: 50ms, max_delay: 1s}\n")
	e, _ := newEngine(t, cfg, WithChanges())
	mustBuild(t, e)
	a := filepath.Join(root, "docs/a.html")
	whole, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(root, "docs/c.html"), defaultMTime.Add(time.Hour)) // before the batch
	time.Sleep(cfg.Watch.Settle)
	made := time.Now()
	time.Sleep(cfg.Watch.Settle)
	if err := os.Truncate(a, 0); err != nil { // cp, mid-copy
		t.Fatal(err)
	}
	changed := func(what string, rep *Report, err error, want ...string) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		for i, u := range want {
			want[i] = "https://static.test/docs/" + u
		}
		if got := slices.Sorted(slices.Values(rep.Changes.Changed)); !slices.Equal(got, want) {
			t.Errorf("%s: changed %v, want %v", what, got, want)
		}
	}
	rep, err := e.Build(context.Background(), WithBatchTime(made))
	changed("the rescan, a.html empty", rep, err, "c.html")
	if err := os.WriteFile(a, whole, 0o644); err != nil { // cp done
		t.Fatal(err)
	}
	time.Sleep(cfg.Watch.Settle)
	rep, err = e.Update(context.Background(), []string{"docs"}, map[string][]string{"docs": {"a.html"}}, WithBatchTime(time.Now()))
	changed("a.html written whole, the same bytes", rep, err)
}
