package build

import (
	"path/filepath"
	"runtime"
	"testing"
	"weak"

	"github.com/sitemapd/sitemapd/internal/scan"
)

// TestBuildSample: a build that learns the template (a fresh build, and
// the daemon's full build after its first publish, which deferred the
// prints) prints the pages it learnt from from what the learning read,
// each once; and once the build is done the engine keeps none of them
// (a daemon at rest holds some 100 bytes a file).
func TestBuildSample(t *testing.T) {
	for _, c := range []struct {
		name   string
		opts   []Option
		builds int
	}{
		{"fresh build", nil, 1},
		{"daemon", []Option{WithChanges(), WithDeferredPrints()}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "root")
			writeThemed(t, root, theme{year: "2026", css: "a1", built: "1"}, nil, defaultMTime)
			cfg := loadConfig(t, baseConfig, root, "state_dir: "+t.TempDir()+"\n")

			e, _ := newEngine(t, cfg, c.opts...)
			var kept []*scan.Sample
			e.pages.tmpl.learnt = func(s *scan.Sample) { kept = append(kept, s) }
			for range c.builds {
				mustBuild(t, e)
			}
			if len(kept) != 1 || kept[0].Reused() != len(sitePages) || kept[0].Len() != 0 {
				t.Fatalf("%d samples; want 1, whose %d pages the walk all printed from it", len(kept), len(sitePages))
			}

			cfg = loadConfig(t, baseConfig, root, "state_dir: "+t.TempDir()+"\n")
			e, _ = newEngine(t, cfg, c.opts...)
			var learnt int
			var sample weak.Pointer[scan.Sample]
			e.pages.tmpl.learnt = func(s *scan.Sample) { learnt, sample = s.Len(), weak.Make(s) }
			for range c.builds {
				mustBuild(t, e)
			}
			runtime.GC()
			if learnt != len(sitePages) || sample.Value() != nil {
				t.Errorf("a sample of %d pages, still reachable after the build: %v; want %d, gone", learnt, sample.Value() != nil, len(sitePages))
			}
		})
	}
}
