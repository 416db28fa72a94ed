package build

import (
	"context"
	"os"
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
//
// The daemon's engine defers the prints (WithDeferredPrints): its first
// publish is daemon=first-publish, and daemon=with-prints adds the full
// build that follows it at once and prints every page, which is what a
// daemon's first start costs in all.
//
// SITEMAPD_BENCH_ROOT names a real tree to build instead (read only: the
// outputs go to a temporary output_dir), such as Debian's
// /usr/share/doc/postgresql-doc-15/html.
func BenchmarkFreshBuild(b *testing.B) {
	root := os.Getenv("SITEMAPD_BENCH_ROOT")
	if root == "" {
		root = filepath.Join(b.TempDir(), "root")
		writeSite(b, root, 1)
	}
	run := func(name, mode string, opts []Option, builds int) {
		b.Run(name, func(b *testing.B) {
			out := b.TempDir()
			start := cpuTime(b)
			for b.Loop() {
				cfg := loadConfig(b, baseConfig, root, "pages: {lastmod: "+mode+"}\noutput_dir: "+out+"\nstate_dir: "+b.TempDir()+"\n")
				e, _ := newEngine(b, cfg, opts...)
				for range builds {
					if _, err := e.Build(context.Background()); err != nil {
						b.Fatal(err)
					}
				}
				e.Close()
			}
			b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N), "cpu-ns/op")
		})
	}
	for _, mode := range lastmodModes {
		run("lastmod="+mode, mode, nil, 1)
	}
	daemon := []Option{WithChanges(), WithDeferredPrints()}
	run("lastmod=content/daemon=first-publish", "content", daemon, 1)
	run("lastmod=significant/daemon=first-publish", "significant", daemon, 1)
	run("lastmod=significant/daemon=with-prints", "significant", daemon, 2)
}
