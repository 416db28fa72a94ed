package build

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkUpdate measures one incremental update after a single page
// changed, in a site of 100 groups of 1,000 pages: the daemon's cost per
// change. The full-build sub-benchmark, on the same tree, is its baseline.
func BenchmarkUpdate(b *testing.B) {
	root := filepath.Join(b.TempDir(), "root")
	for g := range 100 {
		for d := range 10 {
			for p := range 100 {
				mustWrite(b, filepath.Join(root, fmt.Sprintf("g%d/d%d/p%d.html", g, d, p)), defaultMTime)
			}
		}
	}
	cfg := loadConfig(b, baseConfig, root, "")
	e, _ := newEngine(b, cfg, WithChanges())
	if _, err := e.Build(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Run("full-build", func(b *testing.B) {
		for b.Loop() {
			if _, err := e.Build(context.Background()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("update-one-page", func(b *testing.B) {
		page := filepath.Join(root, "g7/d3/p5.html")
		i := 0
		for b.Loop() {
			i++
			mt := defaultMTime.Add(time.Duration(i) * time.Second)
			os.Chtimes(page, mt, mt)
			if _, err := e.Update(context.Background(), []string{"g7/d3"}, map[string][]string{"g7/d3": {"p5.html"}}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
