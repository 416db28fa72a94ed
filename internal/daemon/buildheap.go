package daemon

import (
	"math"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// buildHeap bounds the daemon's memory while its full builds run, by a
// soft memory limit (runtime/debug.SetMemoryLimit) that follows the
// largest live heap seen since the builds began, and restores the limit
// it found once the last of them ends.
//
// Why: a full build's live heap grows to about twice what the daemon
// holds at rest (the largest group's URLs being encoded, the listings
// repacked beside their originals), and with the garbage a walk makes the
// runtime kept far more than that resident: at 1M files a peak of some
// 200 MiB where at most some 105 MB were live (GODEBUG=gctrace=1). A limit
// makes the runtime return freed memory at once and collect sooner, but
// only where the heap nears its largest. GOGC=25 for a whole build cut the
// peak by 30 MiB at 1.7 times the collections; GOMEMLIMIT=140MiB by 45
// MiB with as many as without, but a fixed limit fits one tree and
// thrashes on a larger one. This limit is a factor of the build's own
// largest live heap, so it never leaves the heap less room than that
// factor (no thrashing, whatever the tree), and it holds only while a
// full build runs: a change's publish is not touched. At 1M files, in
// one session (bench/README.md): peak 188-216 -> 161-174 MiB
// (significant), 186-189 -> 162-181 MiB (content), at rest unchanged.
type buildHeap struct {
	every time.Duration // how often the live heap is sampled
	live  func() uint64 // the live heap as of the last collection

	mu     sync.Mutex
	builds int           // full builds running
	prev   int64         // the limit before the first of them
	last   uint64        // the largest live heap the last builds saw
	stop   chan struct{} // stops the sampler
	done   chan struct{} // closed once the sampler has stopped
}

// newBuildHeap returns a buildHeap that samples the runtime's live heap.
func newBuildHeap() *buildHeap {
	return &buildHeap{every: 10 * time.Millisecond, live: liveHeap}
}

// Of the largest live heap a build reached, the limit allows heapRoom
// times it plus heapSlack (the runtime's own memory, goroutine stacks, the
// heap's fragmentation): about GOGC=40 at the build's largest, and the
// daemon's GOGC=50 wherever the live heap is well below it. 1.5 cut the
// peak at 1M by some 10 MiB only; 1.25 by 45 MiB, for 40% more
// collections.
const (
	heapRoom  = 1.4
	heapSlack = 16 << 20
)

// limitFor is the memory limit for a build whose largest live heap so far
// is live.
func limitFor(live uint64) int64 {
	return int64(float64(live)*heapRoom) + heapSlack
}

// begin bounds the heap until the returned func is called (once a full
// build is over). Builds may overlap (sites); the limit found is restored
// when the last ends. A nil buildHeap bounds nothing.
func (b *buildHeap) begin() (end func()) {
	if b == nil {
		return func() {}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.builds++
	if b.builds == 1 {
		b.prev = debug.SetMemoryLimit(-1)
		b.stop, b.done = make(chan struct{}), make(chan struct{})
		go b.sample(b.prev, b.stop, b.done)
	}
	var once sync.Once
	return func() { once.Do(b.end) }
}

func (b *buildHeap) end() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.builds--
	if b.builds > 0 {
		return
	}
	close(b.stop)
	<-b.done
	debug.SetMemoryLimit(b.prev)
}

// sample sets the limit from the largest live heap seen, never above
// ceiling (the limit before the builds), until stop. It starts from the
// largest the builds before saw: a build's heap grows as the one before
// it did (the page prints build after the first, a rescan), and a limit
// that starts low and follows the heap up collects more often all the
// way (at 1M, the page prints build's collections: 40 without a limit,
// 59-66 following its own heap alone). What this period saw is the
// next one's start, so a tree that shrank lowers it again.
func (b *buildHeap) sample(ceiling int64, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(b.every)
	defer t.Stop()
	largest, seen := b.last, uint64(0)
	set := int64(math.MaxInt64)
	apply := func() {
		// Set anew only when it grows by a sixteenth: each setting costs
		// the runtime a moment's stop.
		if lim := min(limitFor(largest), ceiling); set == math.MaxInt64 || lim > set+set/16 {
			debug.SetMemoryLimit(lim)
			set = lim
		}
	}
	if largest > 0 {
		apply()
	}
	for {
		l := b.live()
		seen = max(seen, l)
		if l > largest {
			largest = l
			apply()
		}
		select {
		case <-stop:
			b.last = seen // read by the next begin, after done
			return
		case <-t.C:
		}
	}
}

// liveHeap is the heap the last collection found live.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
