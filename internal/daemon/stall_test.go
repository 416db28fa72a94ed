package daemon

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestStallIsReported: a keeper that sees no sign of life for longer than
// its window says so (what /healthz shows), and stops saying so once a
// sign of life comes. The times are the keeper's own, read from its
// record of the last sign, so that a slow machine only delays the test.
func TestStallIsReported(t *testing.T) {
	k := newKeeper(newRecorder(), 40*time.Millisecond) // tick 10 ms, window 20 ms
	var entries int64
	src := progressSource(func() (int64, int64) { return entries, 0 })
	k.progress.Store(&src)
	if got := k.stalled(time.Now()); got != "" {
		t.Errorf("before the keeper runs: %q", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go k.run(ctx)
	waitUntil(t, "the keeper's first look", func() bool { return k.lifeAt.Load() != 0 })
	at := time.Unix(0, k.lifeAt.Load())
	if got := k.stalled(at.Add(k.window)); got != "" {
		t.Errorf("within the window: %q", got)
	}
	if got := k.stalled(at.Add(k.window + time.Second)); !strings.Contains(got, "no sign of life for 1s") {
		t.Errorf("past the window: %q", got)
	}
	k.beat()
	waitUntil(t, "the beat to be seen", func() bool { return k.lifeAt.Load() != at.UnixNano() })
	if got := k.stalled(time.Unix(0, k.lifeAt.Load())); got != "" {
		t.Errorf("after a beat: %q", got)
	}
	if got := (*keeper)(nil).stalled(time.Now()); got != "" {
		t.Errorf("no keeper: %q", got)
	}
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
