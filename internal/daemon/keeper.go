package daemon

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// keeper tells systemd the daemon is alive (WATCHDOG=1) only while it
// shows signs of life, and what it is doing (STATUS=).
//
// A sign of life is a count that grew: the main loop's beats, which it
// gives while it waits for work, or, while it runs a publish, the
// engine's progress (entries read, files written). A bare ticker beside
// the main loop would keep a stuck daemon alive forever; a ticker inside
// it (as before) starved the watchdog during any build longer than
// WatchdogSec. Here a build making progress is kept alive however long it
// takes, and one that stalls, like a loop that is stuck, stops the
// keep-alives within half of WatchdogSec: systemd then does its job.
//
// Before READY=1, and while a reload is being applied, each keep-alive
// also extends systemd's start timeout (EXTEND_TIMEOUT_USEC), so that a
// first build of millions of files is not killed by TimeoutStartSec while
// it makes progress, and one that stalls still is.
type keeper struct {
	lc       Lifecycle
	watchdog bool          // send WATCHDOG=1 (WatchdogSec is set)
	tick     time.Duration // how often signs of life are looked for, and keep-alives sent
	window   time.Duration // a sign older than this is none: no keep-alive
	extend   time.Duration // EXTEND_TIMEOUT_USEC sent with each keep-alive while starting

	beats    atomic.Int64
	lifeAt   atomic.Int64 // when the last sign of life was seen (Unix ns)
	starting atomic.Bool
	progress atomic.Pointer[progressSource] // the engine's, while one serves

	mu       sync.Mutex // orders STATUS= messages
	status   string     // the last sent
	scanning bool       // a full walk runs: the status follows its entries
	base     int64      // entries at the walk's start
}

// Without a watchdog, keep-alives only extend the start timeout, looked
// for this often.
const extendTick = 5 * time.Second

func newKeeper(lc Lifecycle, watchdog time.Duration) *keeper {
	k := &keeper{lc: lc, watchdog: watchdog > 0, tick: watchdog / 4, window: watchdog / 2, extend: watchdog}
	if watchdog <= 0 {
		k.tick, k.window, k.extend = extendTick, 2*extendTick, 3*extendTick
	}
	k.starting.Store(true)
	return k
}

// beat is a sign of life from the main loop.
func (k *keeper) beat() {
	if k != nil {
		k.beats.Add(1)
	}
}

// sample sums every count that grows with a sign of life.
func (k *keeper) sample() int64 {
	n := k.beats.Load()
	if p := k.progress.Load(); p != nil {
		entries, steps := (*p)()
		n += entries + steps
	}
	return n
}

func (k *keeper) entries() int64 {
	if p := k.progress.Load(); p != nil {
		e, _ := (*p)()
		return e
	}
	return 0
}

// run sends keep-alives until ctx is done.
func (k *keeper) run(ctx context.Context) {
	t := time.NewTicker(k.tick)
	defer t.Stop()
	last, lastLife := k.sample(), time.Now()
	k.lifeAt.Store(lastLife.UnixNano())
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			if n := k.sample(); n != last {
				last, lastLife = n, now
				k.lifeAt.Store(now.UnixNano())
			}
			if now.Sub(lastLife) > k.window {
				continue // stuck: let systemd see it
			}
			if k.watchdog {
				k.lc.Alive()
			}
			if k.starting.Load() {
				k.lc.ExtendTimeout(k.extend)
			}
			k.followScan()
		}
	}
}

// stalled says, for /healthz, why the daemon shows no sign of life: the
// main loop neither waiting for work nor a publish making progress for
// longer than the watchdog allows (a read that never returns, a lock
// held). "" while it lives, and without a keeper.
func (k *keeper) stalled(now time.Time) string {
	if k == nil {
		return ""
	}
	at := k.lifeAt.Load()
	if at == 0 {
		return ""
	}
	if d := now.Sub(time.Unix(0, at)); d > k.window {
		return fmt.Sprintf("no sign of life for %v: the main loop is stuck or a publish makes no progress (see the log; a read or a write that does not return?)", d.Round(100*time.Millisecond))
	}
	return ""
}

// ready notes READY=1 sent (starting false) or RELOADING=1 (true).
func (k *keeper) setStarting(b bool) {
	if k != nil {
		k.starting.Store(b)
	}
}

// scan sets the status to a full walk's progress until the next set.
func (k *keeper) scan() {
	if k == nil {
		return
	}
	k.mu.Lock()
	k.scanning, k.base = true, k.entries()
	k.mu.Unlock()
	k.followScan()
}

func (k *keeper) followScan() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.scanning {
		k.sendLocked("scanning: " + commas(k.entries()-k.base) + " entries")
	}
}

// set sets the status.
func (k *keeper) set(status string) {
	if k == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.scanning = false
	k.sendLocked(status)
}

func (k *keeper) sendLocked(status string) {
	status = oneLine(status)
	if status != k.status {
		k.status = status
		k.lc.Status(status)
	}
}

// oneLine makes s fit a STATUS= line: sd_notify separates assignments
// with newlines, and `systemctl status` shows one line.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " ")
	const max = 300
	if len(s) > max {
		cut := max
		for cut > 0 && s[cut]&0xc0 == 0x80 { // not inside a UTF-8 sequence
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// commas writes n with thousands separators: 412,000.
func commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
