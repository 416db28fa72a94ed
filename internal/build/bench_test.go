package build

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/benchpage"
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

// BenchmarkHeads measures a full build of 10,000 real-looking pages (each
// naming itself canonical) with
// the head rules off (the baseline) and on, as `sitemapd build` runs it:
// reading every head, and with the head store of the build before (a new
// engine each time, as a new process); and on in the daemon, which
// remembers the heads it read (target: on at most 2× off on a warm cache).
func BenchmarkHeads(b *testing.B) {
	root := filepath.Join(b.TempDir(), "root")
	for d := range 20 {
		for p := range 500 {
			name := fmt.Sprintf("p%d.html", p)
			writeFile(b, filepath.Join(root, fmt.Sprintf("d%d", d), name), benchpage.Page(name, 99), defaultMTime)
		}
	}
	for _, bc := range []struct {
		name  string
		pages string
		opts  []Option
	}{
		{"off", "{noindex: false, canonical: false, hreflang: false, redirects: false}", nil},
		{"on", "{}", nil},
		{"on-daemon", "{}", []Option{WithChanges()}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			cfg := loadConfig(b, baseConfig, root, "pages: "+bc.pages+"\n")
			e, _ := newEngine(b, cfg, bc.opts...)
			if _, err := e.Build(context.Background()); err != nil { // warm: files written, heads remembered
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := e.Build(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("on-stored", func(b *testing.B) {
		cfg := loadConfig(b, baseConfig, root, "state_dir: "+b.TempDir()+"\n")
		e, _ := newEngine(b, cfg)
		if _, err := e.Build(context.Background()); err != nil { // writes the store
			b.Fatal(err)
		}
		e.Close()
		for b.Loop() {
			e, _ := newEngine(b, cfg)
			if _, err := e.Build(context.Background()); err != nil {
				b.Fatal(err)
			}
			e.Close()
		}
	})
}

// BenchmarkDeploy measures `sitemapd build` after a deploy that rewrote
// every file (new mtimes: every sitemap changes), as a new process each
// time, with the shrink guard on (which reads each changed group's old
// sitemap back) and off (the baseline).
func BenchmarkDeploy(b *testing.B) {
	root := filepath.Join(b.TempDir(), "root")
	var pages []string
	for g := range 20 {
		for p := range 500 {
			pages = append(pages, filepath.Join(root, fmt.Sprintf("g%d/p%d.html", g, p)))
		}
	}
	for _, p := range pages {
		mustWrite(b, p, defaultMTime)
	}
	for _, bc := range []struct{ name, extra string }{{"guard-off", "shrink_guard: false\n"}, {"guard-on", ""}} {
		b.Run(bc.name, func(b *testing.B) {
			cfg := loadConfig(b, baseConfig, root, bc.extra)
			i := 0
			for b.Loop() {
				b.StopTimer()
				i++
				mt := defaultMTime.Add(time.Duration(i) * time.Second)
				for _, p := range pages {
					os.Chtimes(p, mt, mt)
				}
				e, _ := newEngine(b, cfg)
				b.StartTimer()
				if _, err := e.Build(context.Background()); err != nil {
					b.Fatal(err)
				}
				e.Close()
			}
		})
	}
}
