package build

import (
	"context"
	"path/filepath"
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/config"
)

// BenchmarkDaemonPeak measures the daemon's memory at its highest: during
// a full build, on the site of BenchmarkDaemonMemory. content/first is
// the daemon's first build from an empty state_dir under pages.lastmod:
// content; significant/prints is the page prints build, the full build
// that follows a significant daemon's first publish and reads every page
// (WithDeferredPrints), its published listings alive beside the ones it
// makes. Target (issue 22): the prints build's peak no higher than
// content's first build's. Each reports, per page, the largest live heap
// a collection found during the build (peak-live-B/page: what the heap
// grows to twice of, GOGC=100) and the heap in use after the build
// (rest-B/page), both less the heap before the engine was made.
func BenchmarkDaemonPeak(b *testing.B) {
	root := filepath.Join(b.TempDir(), "root")
	pages, _ := writeSite(b, root, 1)
	// hreflang=true: most of the site's pages name alternates, and their
	// groups are encoded in every full build (their entries depend on
	// other groups' pages); false, as on most sites, none does.
	for _, hreflang := range []string{"true", "false"} {
		for _, c := range []struct {
			name, mode string
			builds     int // the last one measured
		}{
			{"lastmod=content/build=first", "content", 1},
			{"lastmod=significant/build=first", "significant", 1},
			{"lastmod=significant/build=prints", "significant", 2},
		} {
			b.Run("hreflang="+hreflang+"/"+c.name, func(b *testing.B) {
				var peak, rest float64
				for b.Loop() {
					cfg := loadConfig(b, baseConfig, root, "pages: {hreflang: "+hreflang+", lastmod: "+c.mode+"}\noutput_dir: "+b.TempDir()+"\nstate_dir: "+b.TempDir()+"\n")
					p, r := daemonPeak(b, cfg, c.builds)
					peak, rest = peak+p, rest+r
				}
				n := float64(b.N) * float64(len(pages))
				b.ReportMetric(peak/n, "peak-live-B/page")
				b.ReportMetric(rest/n, "rest-B/page")
			})
		}
	}
}

// daemonPeak runs builds full builds on a daemon's engine for cfg and
// returns the largest live heap during the last one and the heap in use
// after it, both less the heap before the engine was made.
func daemonPeak(b *testing.B, cfg *config.Config, builds int) (peak, rest float64) {
	before := liveHeap()
	e, _ := newEngine(b, cfg, WithChanges(), WithDeferredPrints())
	defer e.Close()
	for i := range builds {
		var stop func() uint64
		if i == builds-1 {
			liveHeap() // the build before's garbage is no peak of this one
			stop = sampleLive()
		}
		if _, err := e.Build(context.Background()); err != nil {
			b.Fatal(err)
		}
		if stop != nil {
			peak = float64(stop()) - float64(before)
		}
	}
	return peak, float64(liveHeap()) - float64(before)
}

// sampleLive samples the live heap (as of the last collection) until the
// returned function is called, which returns the largest seen.
func sampleLive() func() uint64 {
	var peak atomic.Uint64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		t := time.NewTicker(200 * time.Microsecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			peak.Store(max(peak.Load(), s[0].Value.Uint64()))
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-stopped
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		metrics.Read(s)
		return max(peak.Load(), s[0].Value.Uint64())
	}
}
