package build

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPartsAreLocal: a group of 3,000 pages in parts of about 100 URLs.
// Adding, editing or removing one page rewrites at most two parts and the
// index (a crawler fetches those again, not the group); the index lists
// every part; a full build afterwards writes nothing.
func TestPartsAreLocal(t *testing.T) {
	root := site(t)
	for i := range 3000 {
		mustWrite(t, filepath.Join(root, "docs", fmt.Sprintf("p%04d.html", i)), defaultMTime)
	}
	cfg := loadConfig(t, baseConfig, root, "part_size: 100\n")
	e, _ := newEngine(t, cfg, WithChanges())
	rep := mustBuild(t, e)
	parts := 0
	for _, p := range rep.Written {
		if strings.Contains(p, "/docs/sitemap") {
			parts++
		}
	}
	if parts < 15 || parts > 60 {
		t.Fatalf("%d parts for 3,000 URLs at part_size 100", parts)
	}
	index := read(t, filepath.Join(root, "sitemap_index.xml"))
	if n := strings.Count(index, "/docs/sitemap"); n != parts {
		t.Errorf("the index lists %d docs parts, want %d", n, parts)
	}
	later := defaultMTime.Add(time.Hour)
	for step, change := range []func(){
		func() { mustWrite(t, filepath.Join(root, "docs", "p1500x.html"), later) },
		func() { mustWrite(t, filepath.Join(root, "docs", "p0777.html"), later) },
		func() { os.Remove(filepath.Join(root, "docs", "p2222.html")) },
	} {
		change()
		rep, err := e.Update(context.Background(), []string{"docs"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var written []string
		for _, p := range rep.Written {
			if !strings.HasSuffix(p, "/sitemap_index.xml") {
				written = append(written, p)
			}
		}
		if len(written) < 1 || len(written)+len(rep.Removed) > 3 {
			t.Errorf("step %d: wrote %v and removed %v, want one or two parts", step, written, rep.Removed)
		}
	}
	fresh, _ := newEngine(t, cfg)
	if rep := mustBuild(t, fresh); len(rep.Written) != 0 || len(rep.Removed) != 0 {
		t.Errorf("a full build after the changes wrote %v, removed %v", rep.Written, rep.Removed)
	}

	// Back to one file a group: the keyed parts go, the group's sitemap
	// holds every URL.
	whole := loadConfig(t, baseConfig, root, "part_size: 0\n")
	e2, _ := newEngine(t, whole)
	rep = mustBuild(t, e2)
	if len(rep.Removed) != parts-1 {
		t.Errorf("part_size 0 removed %d files, want %d", len(rep.Removed), parts-1)
	}
	if n := strings.Count(read(t, filepath.Join(root, "docs/sitemap.xml")), "<url>"); n != 3000 {
		t.Errorf("docs/sitemap.xml lists %d URLs, want 3000", n)
	}
}
