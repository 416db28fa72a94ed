package build

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/tree"
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

// TestTouchedByIndexIsByName: for listings of the same pages in the same
// order (an edit), the pages a change touched, found index by index, are
// those found by name: a page listed before or after whose time or head
// differs, or that is listed on one side only.
func TestTouchedByIndexIsByName(t *testing.T) {
	e, _ := newEngine(t, loadConfig(t, baseConfig, site(t), ""))
	r := rand.New(rand.NewPCG(5, 6))
	heads := []tree.Head{{}, {Out: tree.NoIndex}, {Out: tree.Canonical}, {Alts: "de\x00https://static.test/de/\x00"}, {Images: "https://static.test/i.png\x00"}}
	for round := range 300 {
		var was, now []tree.Page
		for i := range r.IntN(12) {
			p := tree.Page{Name: fmt.Sprintf("p%d.html", i), Time: int64(r.IntN(3)), Head: heads[r.IntN(len(heads))]}
			was = append(was, p)
			if r.IntN(3) == 0 {
				p.Time, p.Head = int64(r.IntN(3)), heads[r.IntN(len(heads))]
			}
			now = append(now, p)
		}
		old := map[string]*tree.Listing{"d": tree.NewListing(was, 0, nil, tree.DirID{})}
		cur := map[string]*tree.Listing{"d": tree.NewListing(now, 0, nil, tree.DirID{})}
		var want []string
		for i := range was {
			a, b := was[i], now[i]
			if (!a.Head.Hidden() || !b.Head.Hidden()) && (a.Head.Hidden() != b.Head.Hidden() || a.Time != b.Time || a.Head != b.Head) {
				want = append(want, e.scan.PageLoc("d", a.Name))
			}
		}
		slices.Sort(want)
		if got := e.touched(old, cur); !slices.Equal(got, want) {
			t.Fatalf("round %d: touched %q, want %q", round, got, want)
		}
		// The same answer by name: the pages in another order.
		slices.Reverse(now)
		cur["d"] = tree.NewListing(now, 0, nil, tree.DirID{})
		if got := e.touched(old, cur); !slices.Equal(got, want) {
			t.Fatalf("round %d, by name: touched %q, want %q", round, got, want)
		}
	}
}
