package ping

// When each endpoint is sent. Every endpoint has a loop of its own (Run),
// so a slow or held endpoint never delays another, and a run of one
// endpoint never overlaps another run of it.
//
// An endpoint sent after a delay (config.Endpoint.SendDelay: IndexNow by
// default) opens a window when a publish first owes it something; when
// the delay has passed, one run sends all it is owed, the changes owed
// during the window included, in POSTs of at most IndexNowBatch URLs.
// The window closes when that run ends: what it left owed (changes owed
// while it went that it did not take, or a failure) opens the next. (It
// closed when the run began, once: a change owed between that moment and
// the run's read of what is owed went with the run, and left behind a
// window open on nothing owed, which no later change would reopen, so
// the endpoint's loop waited for nothing, for good.) A scheduled
// endpoint (ping, or an IndexNow endpoint with a schedule of its own) is
// sent at each turn of its cron schedule that finds something owed; a
// turn that comes while its run goes is skipped.
//
// A hold keeps an endpoint from being called before a time, while what
// it is owed keeps growing; the first run after it sends it all. A 429 or
// 503 with Retry-After holds it as long as it asked (hold.go), saved with
// what it is owed, so that a restart within the hold still waits; a run
// that fails otherwise holds a delayed endpoint until its schedule's next
// turn (notify.schedule), so that a failing engine is not called at every
// publish.

import (
	"context"
	"fmt"
	"time"

	"github.com/robfig/cron/v3"
	"go.uber.org/zap"
)

// timing is when an endpoint is sent next. Guarded by Notifier.mu.
type timing struct {
	delay   time.Duration // after the change that opened the window
	delayed bool          // sent after delay, not at turns of sched
	sched   cron.Schedule // while Run runs: its turns, or a delayed endpoint's retries
	job     cron.EntryID  // a scheduled endpoint's job while Run runs
	// window is when the oldest change not yet taken by a run was owed
	// (a delayed endpoint); zero for none.
	window time.Time
	// pending is when a turn of the schedule found something owed (a
	// scheduled endpoint); zero for none.
	pending time.Time
	running bool          // a run is under way
	hold    hold          // no call before hold.until
	wake    chan struct{} // capacity 1: when it is due may have changed
}

func newTiming(delay time.Duration, delayed bool) timing {
	return timing{delay: delay, delayed: delayed, wake: make(chan struct{}, 1)}
}

// poke tells the endpoint's loop that when it is due may have changed.
func (t *timing) poke() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// owedLocked notes that a publish owed the endpoint something now: it
// opens a window if none is open. n.mu must be held.
func (ep *endpoint) owedLocked(now time.Time) {
	if ep.t.delayed && ep.t.window.IsZero() {
		ep.t.window = now
		ep.t.poke()
	}
}

// dueLocked returns when the endpoint's next run is to start, and whether
// one is to start at all: a delayed endpoint's window plus its delay, a
// scheduled one's pending turn, neither before its hold ends. n.mu must
// be held.
func (ep *endpoint) dueLocked() (time.Time, bool) {
	if ep.gone != "" || len(ep.owed) == 0 || ep.t.running {
		return time.Time{}, false
	}
	var at time.Time
	switch {
	case ep.t.delayed && !ep.t.window.IsZero():
		at = ep.t.window.Add(ep.t.delay)
	case !ep.t.delayed && !ep.t.pending.IsZero():
		at = ep.t.pending
	default:
		return time.Time{}, false
	}
	return later(at, ep.t.hold.until), true
}

// turn is a scheduled endpoint's turn: it is due now if something is
// owed and no run is under way (which then skips this turn).
func (n *Notifier) turn(ep *endpoint) {
	n.mu.Lock()
	if !ep.t.running && len(ep.owed) > 0 && ep.gone == "" && ep.t.pending.IsZero() {
		ep.t.pending = time.Now()
		ep.t.poke()
	}
	n.mu.Unlock()
}

// Run sends what is owed, each endpoint when it is due, until ctx is done;
// then it waits for runs under way (their requests are canceled with ctx)
// and returns.
func (n *Notifier) Run(ctx context.Context) error {
	if len(n.eps) == 0 {
		<-ctx.Done()
		return nil
	}
	cl := cronLogger{n.log.Sugar()}
	c := cron.New(cron.WithLogger(cl))
	n.mu.Lock()
	for _, ep := range n.eps {
		sched, err := parseSchedule(n.cfg.Notify.ScheduleOf(ep.cfg))
		if err != nil {
			n.mu.Unlock()
			return err
		}
		ep.t.sched = sched
		switch {
		case !ep.t.delayed:
			ep.t.job = c.Schedule(sched, cron.FuncJob(func() { n.turn(ep) }))
		case len(ep.owed) > 0:
			// Owed before this start (a restart, an outage): sent a
			// delay from now, or when the hold saved with it ends.
			ep.owedLocked(time.Now())
		}
	}
	n.cron = c
	n.mu.Unlock()
	c.Start()
	done := make(chan struct{}, len(n.eps))
	for _, ep := range n.eps {
		go func() { n.loop(ctx, ep); done <- struct{}{} }()
	}
	for range n.eps {
		<-done
	}
	<-c.Stop().Done()
	n.mu.Lock()
	n.cron = nil
	n.mu.Unlock()
	return nil
}

// loop runs one endpoint whenever it is due, until ctx is done.
func (n *Notifier) loop(ctx context.Context, ep *endpoint) {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		n.mu.Lock()
		at, ok := ep.dueLocked()
		n.mu.Unlock()
		var fire <-chan time.Time
		if ok {
			timer.Reset(time.Until(at))
			fire = timer.C
		}
		select {
		case <-ctx.Done():
			return
		case <-ep.t.wake:
			timer.Stop()
		case <-fire:
			n.run(ctx, ep)
		}
	}
}

// run sends what the endpoint is owed: the turn it serves closes now,
// the window when it ends (settle), so that what is owed meanwhile and
// not sent opens the next.
func (n *Notifier) run(ctx context.Context, ep *endpoint) {
	n.mu.Lock()
	ep.t.pending, ep.t.running = time.Time{}, true
	n.mu.Unlock()
	res := n.sendRecovered(ctx, ep)
	n.settle(ctx, ep, res, true)
}

// sendRecovered is send, a panic logged and taken for a failed run
// rather than the end of the process.
func (n *Notifier) sendRecovered(ctx context.Context, ep *endpoint) (res Result) {
	defer func() {
		if r := recover(); r != nil {
			n.log.Error("notification run panicked; what it owed stays owed", zap.String("endpoint", ep.cfg.Name), zap.Any("panic", r), zap.StackSkip("stack", 1))
			res = Result{Endpoint: ep.cfg.Name, Err: fmt.Errorf("endpoint %s: panic: %v", ep.cfg.Name, r)}
		}
	}()
	return n.send(ctx, ep, true)
}

// nextTryLocked is Stats' NextTry but for a scheduled endpoint that waits
// for its turn, which cron knows (next reports so, and the job to ask
// about). n.mu must be held.
func (ep *endpoint) nextTryLocked() (at time.Time, next bool) {
	if at, ok := ep.dueLocked(); ok {
		return at, false
	}
	return time.Time{}, !ep.t.delayed && !ep.t.running && ep.gone == "" && len(ep.owed) > 0
}

// parseSchedule parses a spec that config validation accepted; the recover
// is for the library's panics on specs validation let through.
func parseSchedule(spec string) (s cron.Schedule, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("notify.schedule %q: not a valid cron spec", spec)
		}
	}()
	return cron.ParseStandard(spec)
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// cronLogger routes the cron library's messages to zap.
type cronLogger struct{ s *zap.SugaredLogger }

func (l cronLogger) Info(msg string, kv ...any) { l.s.Debugw("cron: "+msg, kv...) }
func (l cronLogger) Error(err error, msg string, kv ...any) {
	l.s.Errorw("cron: "+msg, append([]any{"error", err}, kv...)...)
}
