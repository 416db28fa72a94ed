package build

import (
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/scan"
)

// progress counts the entries the engine's walks read, for Progress,
// which other goroutines call while a publish runs (the daemon's
// watchdog): the only state of the engine they read, so the only state
// behind a lock. It also logs a long walk's progress.
type progress struct {
	every time.Duration // how often a long walk logs (0: never)
	log   *zap.Logger

	mu      sync.Mutex
	walking *scan.Walk // the walk in progress
	walked  int64      // entries of the walks done
}

// entries counts the entries read since New, the walk in progress's too.
func (p *progress) entries() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := p.walked
	if p.walking != nil {
		n += p.walking.Entries()
	}
	return n
}

// add counts n entries read outside a walk (the template's sample).
func (p *progress) add(n int) {
	p.mu.Lock()
	p.walked += int64(n)
	p.mu.Unlock()
}

// track makes w the walk entries counts, until the returned func.
func (p *progress) track(w *scan.Walk) func() {
	p.mu.Lock()
	p.walking = w
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		p.walked += w.Entries()
		p.walking = nil
		p.mu.Unlock()
	}
}

// report logs the walk's progress every p.every until stopped.
func (p *progress) report(w *scan.Walk) (stop func()) {
	if p.every <= 0 {
		return func() {}
	}
	done := make(chan struct{})
	start := time.Now()
	go func() {
		t := time.NewTicker(p.every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				n := w.Entries()
				el := time.Since(start).Seconds()
				p.log.Info("scanning", zap.Int64("entries", n), zap.Float64("entries_per_second", float64(n)/el))
			}
		}
	}()
	return func() { close(done) }
}
