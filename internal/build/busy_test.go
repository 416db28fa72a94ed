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
