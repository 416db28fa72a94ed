package build

import (
	"context"
	"path/filepath"
	"testing"
)

// BenchmarkFreshBuild measures what pages.lastmod costs a build that
// reads every page: `sitemapd build` as a new process with an empty
// state_dir (a first start), on the site of BenchmarkNoOpBuild, for each
// mode; content is the baseline (significant reads each HTML page whole
// for what it says, and learns the template from a sample first). It
// reports the process's CPU time per build (cpu-ns/op) besides the wall
// time. Target (issue 22): significant within 1.3× of content.
func BenchmarkFreshBuild(b *testing.B) {
	root := filepath.Join(b.TempDir(), "root")
	writeSite(b, root, 1)
	for _, mode := range lastmodModes {
		b.Run("lastmod="+mode, func(b *testing.B) {
			out := b.TempDir()
			start := cpuTime(b)
			for b.Loop() {
				cfg := loadConfig(b, baseConfig, root, "pages: {lastmod: "+mode+"}\noutput_dir: "+out+"\nstate_dir: "+b.TempDir()+"\n")
				e, _ := newEngine(b, cfg)
				if _, err := e.Build(context.Background()); err != nil {
					b.Fatal(err)
				}
				e.Close()
			}
			b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N), "cpu-ns/op")
		})
	}
}
