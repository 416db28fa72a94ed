package daemon

import (
	"runtime"
	"testing"
	"time"
)

// TestQuietTimer: the memory is given back (a forced collection) once
// after a change's publish and the quiet after it, not after a full
// walk's publish (which gave it back already), and a later publish
// restarts the wait.
func TestQuietTimer(t *testing.T) {
	forced := func() uint32 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.NumForcedGC
	}
	q := quietTimer{after: 20 * time.Millisecond}
	defer q.stop()
	q.published(true)
	if q.c != nil {
		t.Fatal("armed after a full walk")
	}
	q.published(false)
	first := q.c
	q.published(false) // a second change: the wait starts again
	if q.c == nil || q.c == first {
		t.Fatal("not rearmed by a later publish")
	}
	before := forced()
	select {
	case <-q.c:
		q.fired()
	case <-time.After(time.Minute):
		t.Fatal("the quiet never came")
	}
	if q.c != nil {
		t.Error("still armed after it fired")
	}
	if forced() == before {
		t.Error("no collection was forced")
	}
	select {
	case <-first:
		t.Error("the first wait fired although a publish came after it")
	case <-time.After(100 * time.Millisecond):
	}
}
