package daemon

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// alives returns the times of the keep-alives among es.
func alives(es []event) []time.Time {
	var out []time.Time
	for _, e := range es {
		if e.what == "ALIVE" {
			out = append(out, e.at)
		}
	}
	return out
}

// TestKeeperFollowsProgress: keep-alives flow while the progress count
// grows, however long that lasts, with no gap longer than half the
// watchdog time; they stop within half of it once the count stalls (as
// when nothing beats), and come back with progress. While starting, each
// also extends the start timeout; once ready, none does.
func TestKeeperFollowsProgress(t *testing.T) {
	// In a synctest bubble: time is the bubble's, so the gaps measured are
	// the keeper's, not a loaded machine's scheduling delays.
	synctest.Test(t, func(t *testing.T) {
		const wd = 400 * time.Millisecond
		rec := newRecorder()
		k := newKeeper(rec, wd)
		var entries atomic.Int64
		src := progressSource(func() (int64, int64) { return entries.Load(), 0 })
		k.progress.Store(&src)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go k.run(ctx)

		// Progress for 4 watchdog periods.
		start := time.Now()
		for time.Since(start) < 4*wd {
			entries.Add(10)
			time.Sleep(wd / 10)
		}
		progressEnd := time.Now()
		// A stall of 3 periods.
		time.Sleep(3 * wd)
		stallEnd := time.Now()
		k.setStarting(false)
		for time.Since(stallEnd) < 2*wd {
			entries.Add(10)
			time.Sleep(wd / 10)
		}
		es := rec.snapshot()
		at := alives(es)
		prev := start
		for _, a := range at {
			if a.After(progressEnd) {
				break
			}
			if gap := a.Sub(prev); gap > wd/2 {
				t.Errorf("gap of %v between keep-alives while progressing (limit %v)", gap, wd/2)
			}
			prev = a
		}
		for _, a := range at {
			if a.After(progressEnd.Add(wd/2+wd/4+50*time.Millisecond)) && a.Before(stallEnd) {
				t.Errorf("keep-alive %v into a stall", a.Sub(progressEnd))
			}
		}
		if last := at[len(at)-1]; last.Before(stallEnd) {
			t.Error("keep-alives did not come back with progress")
		}
		var extendsBefore, extendsAfter int
		for _, e := range es {
			if e.what == "EXTEND" {
				if e.at.Before(stallEnd) {
					extendsBefore++
				} else {
					extendsAfter++
				}
			}
		}
		if extendsBefore == 0 || extendsAfter > 1 {
			t.Errorf("%d timeout extensions while starting, %d after", extendsBefore, extendsAfter)
		}
	})
}

// TestKeeperBeats: an idle main loop's beats keep it alive, and nothing
// else does. In a synctest bubble, as TestKeeperFollowsProgress: on a
// loaded machine a real ticker drops ticks (fewer than 10 keep-alives) or
// delivers one late, after the beats stopped (a keep-alive counted as
// "without beats").
func TestKeeperBeats(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const wd = 200 * time.Millisecond
		rec := newRecorder()
		k := newKeeper(rec, wd)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go k.run(ctx)
		stop := time.Now().Add(5 * wd)
		for time.Now().Before(stop) {
			k.beat()
			time.Sleep(wd / 4)
		}
		n := len(alives(rec.snapshot()))
		if n < 10 {
			t.Errorf("%d keep-alives in 5 periods of beats", n)
		}
		time.Sleep(wd)
		n = len(alives(rec.snapshot()))
		time.Sleep(3 * wd)
		if m := len(alives(rec.snapshot())); m != n {
			t.Errorf("%d keep-alives without beats", m-n)
		}
	})
}

// TestKeeperScanStatus: while a full walk runs the status follows its
// entries, as the walk's own count; set ends it.
func TestKeeperScanStatus(t *testing.T) {
	rec := newRecorder()
	k := newKeeper(rec, 200*time.Millisecond)
	var entries atomic.Int64
	entries.Store(1000) // an earlier walk's
	src := progressSource(func() (int64, int64) { return entries.Load(), 7 })
	k.progress.Store(&src)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go k.run(ctx)
	k.scan()
	entries.Add(412000)
	rec.wait(t, "the entries", has("STATUS=scanning: 412,000 entries"))
	k.set("published 1,203 groups, 52,340 URLs; waiting for changes")
	entries.Add(5)
	time.Sleep(200 * time.Millisecond)
	s := rec.statuses()
	if s[0] != "STATUS=scanning: 0 entries" || s[len(s)-1] != "STATUS=published 1,203 groups, 52,340 URLs; waiting for changes" {
		t.Errorf("told %q", s)
	}
}

func TestOneLineAndCommas(t *testing.T) {
	for in, want := range map[string]string{
		"a\nb":                   "a; b",
		"  x   y ":               "x y",
		strings.Repeat("é", 200): strings.Repeat("é", 150) + "…",
	} {
		if got := oneLine(in); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", in, got, want)
		}
	}
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 412000: "412,000", 1234567: "1,234,567", -1234: "-1,234"} {
		if got := commas(n); got != want {
			t.Errorf("commas(%d) = %q", n, got)
		}
	}
}
