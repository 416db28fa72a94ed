package daemon

import (
	"runtime/debug"
	"slices"
	"time"

	"github.com/sitemapd/sitemapd/internal/build"
	"github.com/sitemapd/sitemapd/internal/changeset"
	"github.com/sitemapd/sitemapd/internal/ping"
)

// ledger records what search engines are owed by a publish before its
// files land (build.WithWriteAhead): a crash right after a sitemap's rename
// would otherwise lose the notification for good, as the restart finds the
// sitemap already listing the page. A crash may repeat a notification;
// none is lost.
type ledger struct {
	eng      *build.Engine
	notifier *ping.Notifier // nil until the notifier is up
	observed bool           // a Notifier observes the publishes' changes
	initial  bool           // the publish is the first build of this run
	indexes  []string       // index URLs a ping was recorded for, this publish
	// timesOnly: the publish only adopts the fleet's times (fleet.go's
	// agreed), so the pages it changes are owed nothing.
	timesOnly bool
	// unowed, in a fleet, takes what of a publish's changes this server
	// does not owe (fleet.Agreement.TakeOwed): the URLs whose only change
	// is a time adopted from the fleet, and those another server sent
	// already, by endpoint (its copy changed after the leader's mark).
	unowed func() (adopted map[string]bool, sent map[string]map[string]bool)
}

// wantsURLs reports whether the publish beginning is to keep the URLs of
// its changes (build.WithChangeURLs): for the notifier to record, or an
// observer. A first build of a site never notified, or one with no
// IndexNow endpoint, only counts them.
func (l *ledger) wantsURLs() bool {
	return l.observed || (l.notifier != nil && l.notifier.WantsPages(l.initial))
}

func (l *ledger) owe(c changeset.Changes, files bool) error {
	var adopted map[string]bool
	var sent map[string]map[string]bool
	if l.unowed != nil {
		adopted, sent = l.unowed()
	}
	if l.notifier == nil {
		return nil
	}
	if files {
		l.indexes = l.eng.IndexURLs() // as published so far; checked after
	}
	changed := c.Changed
	switch {
	case l.timesOnly:
		changed = nil
	case len(adopted) > 0:
		changed = slices.DeleteFunc(slices.Clone(changed), func(u string) bool { return adopted[u] })
	}
	err := l.notifier.Note(slices.Concat(c.Added, changed, c.Removed), l.indexes, files, l.initial)
	for ep, urls := range sent {
		l.notifier.Forget(ep, func(u string) bool { return urls[u] })
	}
	return err
}

// Retries of failed groups start after retryMin and double while they keep
// failing, up to retryMax: a full disk or a foreign file in the way is
// picked up soon after it is fixed, without flooding the log meanwhile.
const (
	retryMin = 5 * time.Second
	retryMax = 5 * time.Minute
)

// backoff is the retry timer; c is nil while no retry is due.
type backoff struct {
	timer *time.Timer
	c     <-chan time.Time
	delay time.Duration // of the last retry armed; 0 after a success
}

// arm schedules a retry unless one is pending, returning its delay.
func (b *backoff) arm() (time.Duration, bool) {
	if b.c != nil {
		return 0, false
	}
	b.delay = min(max(2*b.delay, retryMin), retryMax)
	b.timer = time.NewTimer(b.delay)
	b.c = b.timer.C
	return b.delay, true
}

// fired notes that the retry is running.
func (b *backoff) fired() { b.c = nil }

// reset cancels any retry and starts the next failure from retryMin.
func (b *backoff) reset() {
	b.stop()
	b.delay = 0
}

func (b *backoff) stop() {
	if b.timer != nil {
		b.timer.Stop()
	}
	b.c = nil
}

// dueTimer fires when the first page still to come is due; c is nil while
// none is.
type dueTimer struct {
	timer *time.Timer
	c     <-chan time.Time
	at    time.Time
}

// dueSlack is how long after a page's time its group is rebuilt: a little,
// so that the clock has passed it for sure.
const dueSlack = 50 * time.Millisecond

// set arms the timer for at (the zero time: none).
func (t *dueTimer) set(at time.Time) {
	if at.Equal(t.at) && (t.c != nil || at.IsZero()) {
		return
	}
	t.stop()
	t.at = at
	if at.IsZero() {
		return
	}
	t.timer = time.NewTimer(max(time.Until(at)+dueSlack, dueSlack))
	t.c = t.timer.C
}

// fired notes that the timer's publish is running.
func (t *dueTimer) fired() { t.c, t.at = nil, time.Time{} }

func (t *dueTimer) stop() {
	if t.timer != nil {
		t.timer.Stop()
	}
	t.c = nil
}

// quietAfter is how long the daemon waits without a publish before it
// gives back to the system what its changes' garbage grew the heap to. A
// change leaves a few MB behind, and the heap grows to twice what the
// daemon keeps before the runtime collects it, then returns it only
// slowly: at 1M files, 97 MiB resident after 100 changes where 81 MiB is
// kept. A forced collection costs some 8 ms of CPU marking a 43 MB heap
// at 1M files (GODEBUG=gctrace=1) and the pages returned: a site that
// changes all the time pays nothing, a site at rest is its steady size
// a few seconds after its last change (it was a minute: at 1M files 121
// MiB 10 s after the last change, 100 MiB a minute after), and one that
// changes every few seconds at most one collection a quiet, some 0.2% of
// a core at 1M files.
const quietAfter = 5 * time.Second

// quietTimer fires once publishes have stopped for quietAfter; c is nil
// while it is not armed.
type quietTimer struct {
	timer *time.Timer
	c     <-chan time.Time
	after time.Duration // quietAfter; tests shorten it
}

// published rearms the timer after a publish. A full walk gave its memory
// back already (runner.publish): the timer waits for the next change.
func (t *quietTimer) published(full bool) {
	t.stop()
	if full {
		return
	}
	if t.after == 0 {
		t.after = quietAfter
	}
	t.timer = time.NewTimer(t.after)
	t.c = t.timer.C
}

// fired notes that the quiet came, and gives the memory back.
func (t *quietTimer) fired() {
	t.c = nil
	debug.FreeOSMemory()
}

func (t *quietTimer) stop() {
	if t.timer != nil {
		t.timer.Stop()
	}
	t.c = nil
}
