package build

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/benchpage"
)

// denseNames are the odd characters of a page-dense tree's names
// (bench/gentree -pages dense): a percent-encoded URL sorts otherwise
// than its name.
var denseNames = []string{"", " notes", " & co", "%20", "#1", "-été", "-日本", "-한국", "-🚀"}

// writeDenseGroup writes one group, sec, of n real-looking pages
// (internal/benchpage, with hreflang alternates) in dirs directories up to
// three deep, one of them holding a tenth of the pages, with odd names as
// bench/gentree -pages dense writes them; and ten small groups beside it.
// It returns the pages of sec, relative to root.
func writeDenseGroup(b *testing.B, root string, n, dirs int) []string {
	b.Helper()
	r := rand.New(rand.NewPCG(13, 13))
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var all []string
	dir := make([]string, dirs)
	for i := range dir {
		d := "sec"
		for range 1 + r.IntN(3) {
			d += fmt.Sprintf("/d%d%s", r.IntN(dirs), denseNames[r.IntN(len(denseNames))])
		}
		dir[i] = d
	}
	for i := range n {
		d := dir[r.IntN(dirs)]
		if i%10 == 0 {
			d = dir[0]
		}
		name := fmt.Sprintf("p%d%s.html", i, denseNames[r.IntN(len(denseNames))])
		rel := d + "/" + name
		mt := base.Add(time.Duration(r.IntN(300*24*3600)) * time.Second)
		writeFile(b, filepath.Join(root, rel), benchpage.Page(name, r.IntN(100)), mt)
		all = append(all, rel)
	}
	for g := range 10 {
		for p := range 100 {
			name := fmt.Sprintf("p%d.html", p)
			writeFile(b, filepath.Join(root, fmt.Sprintf("g%d", g), name), benchpage.Page(name, 50), base)
		}
	}
	return all
}

// BenchmarkUpdateDense measures the daemon's cost of one change in a large
// group of real-looking pages: one page rewritten with new bytes, named as
// the watcher names it, at random places in the group. parts=N sets
// part_size. Besides time it reports the bytes the update wrote
// (written-B/op) and the index's size (index-B).
func BenchmarkUpdateDense(b *testing.B) {
	root := filepath.Join(b.TempDir(), "root")
	pages := writeDenseGroup(b, root, 20_000, 200)
	i := 0 // across sub-benchmarks: every rewrite has new bytes and a new mtime
	for _, size := range []int{1000, 250, 500, 2000, 5000} {
		b.Run("parts="+strconv.Itoa(size), func(b *testing.B) {
			cfg := loadConfig(b, baseConfig, root, "output_dir: "+strconv.Quote(b.TempDir())+"\npart_size: "+strconv.Itoa(size)+"\n")
			e, _ := newEngine(b, cfg, WithChanges())
			if _, err := e.Build(context.Background()); err != nil {
				b.Fatal(err)
			}
			r := rand.New(rand.NewPCG(1, 2))
			var written int64
			for b.Loop() {
				i++
				rel := pages[r.IntN(len(pages))]
				mt := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second)
				d, name := filepath.Split(rel)
				writeFile(b, filepath.Join(root, rel), benchpage.Page(name, 50)+"<!-- "+strconv.Itoa(i)+" -->\n", mt)
				d = filepath.Clean(d)
				rep, err := e.Update(context.Background(), []string{d}, map[string][]string{d: {name}})
				if err != nil {
					b.Fatal(err)
				}
				for _, w := range rep.Written {
					if st, err := os.Stat(w); err == nil {
						written += st.Size()
					}
				}
			}
			b.StopTimer()
			// The changes published what a full build writes.
			fresh, _ := newEngine(b, cfg)
			if rep, err := fresh.Build(context.Background()); err != nil || len(rep.Written)+len(rep.Removed) > 0 {
				b.Fatalf("a full build after the changes wrote %v, removed %v (%v)", rep.Written, rep.Removed, err)
			}
			b.ReportMetric(float64(written)/float64(b.N), "written-B/op")
			if st, err := os.Stat(filepath.Join(cfg.OutputRoot(), cfg.IndexName)); err == nil {
				b.ReportMetric(float64(st.Size()), "index-B")
			}
		})
	}
}
