package ping

// Holds: an endpoint that answered 429 or 503 with Retry-After is not
// called again before the time it asked for, across runs and restarts.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"go.uber.org/zap"
)

// MaxHold caps the hold a Retry-After asks for: honoured in full up to a
// day, so that an endpoint's mistake (a Retry-After of a year) cannot stop
// notifications for good; /healthz reports the endpoint failing meanwhile.
const MaxHold = 24 * time.Hour

// holdReason is why an endpoint is held.
type holdReason int

const (
	notHeld     holdReason = iota
	askedToWait            // the endpoint asked (429 or 503 with Retry-After): saved
	failing                // a run failed: wait for the schedule's next turn
)

// hold keeps an endpoint from being called before until.
type hold struct {
	until time.Time
	why   holdReason
}

// heldError is a 429 or 503 answer with a Retry-After: the endpoint is
// not to be called before until.
type heldError struct {
	status int
	until  time.Time
}

func (e *heldError) Error() string {
	return fmt.Sprintf("HTTP %d: it asked not to be called before %s (Retry-After)", e.status, e.until.UTC().Format(time.RFC3339))
}

// holds reports whether a response asks, with its Retry-After, for a
// hold: 429 and 503 do; a Retry-After on other statuses is taken as a
// hint for the next attempt only.
func holds(status int, wait time.Duration) bool {
	return wait > 0 && (status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable)
}

// held returns the hold a response asked for, capped at MaxHold.
func (n *Notifier) held(ep *endpoint, status int, wait time.Duration) *heldError {
	if wait > MaxHold {
		n.log.Warn("capping the hold the endpoint asked for", zap.String("endpoint", ep.cfg.Name),
			zap.Duration("asked", wait), zap.Duration("cap", MaxHold))
		wait = MaxHold
	}
	until := time.Now().Add(wait)
	n.log.Warn("endpoint asked to wait: holding what it is owed until then, changes keep adding to it",
		zap.String("endpoint", ep.cfg.Name), zap.Int("status", status), zap.Time("until", until), zap.Duration("for", wait))
	return &heldError{status: status, until: until}
}

// settle records what a run's result means for when the endpoint is
// called next: a Retry-After holds it (saved), a success ends any hold,
// and, in Run's loop (loop), another failure holds a delayed endpoint
// until its schedule's next turn, and what it still owes opens a window.
func (n *Notifier) settle(ctx context.Context, ep *endpoint, res Result, loop bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	ep.t.running = false
	if ctx.Err() != nil {
		return // canceled: nothing was learnt of the endpoint
	}
	was := ep.t.hold
	var he *heldError
	switch {
	case errors.As(res.Err, &he):
		ep.t.hold = hold{until: he.until, why: askedToWait}
	case res.Err == nil:
		ep.t.hold = hold{}
	case loop && ep.t.delayed && ep.t.sched != nil:
		// A scheduled endpoint waits for its next turn anyway.
		ep.t.hold = hold{until: ep.t.sched.Next(time.Now()), why: failing}
	}
	if loop {
		// The run served its window; what it left owed opens the next.
		ep.t.window = time.Time{}
		if len(ep.owed) > 0 {
			ep.owedLocked(time.Now())
		}
	}
	if was != ep.t.hold && (was.why == askedToWait || ep.t.hold.why == askedToWait) {
		if err := n.saveLocked(); err != nil {
			n.log.Error("cannot save notification state; a restart may call the endpoint before its Retry-After", zap.Error(err))
		}
	}
}

// heldNowLocked returns the error a run started now would meet at once: the
// endpoint's Retry-After has not passed. n.mu must be held.
func (ep *endpoint) heldNowLocked(now time.Time) error {
	if ep.t.hold.why == askedToWait && ep.t.hold.until.After(now) {
		return fmt.Errorf("endpoint %s: held until %s, as its Retry-After asked", ep.cfg.Name, ep.t.hold.until.UTC().Format(time.RFC3339))
	}
	return nil
}
