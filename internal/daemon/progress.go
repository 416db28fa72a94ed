package daemon

import (
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/sitemapd/sitemapd/internal/build"
)

// progressSource reports how far the engine's publishes have got:
// directory entries its walks have read and steps its publisher has taken
// (files written, renamed, removed, synced). Both only grow, and may be
// read from any goroutine while a publish runs.
type progressSource func() (entries, steps int64)

// progressReporter is the accessor build.Engine offers for it.
type progressReporter interface {
	Progress() (entries, steps int64)
}

// engineHasProgress says whether build.Engine reports its progress.
var _, engineHasProgress = any((*build.Engine)(nil)).(progressReporter)

// engineProgress is how the daemon follows an engine's progress. An
// engine with a Progress method is asked directly. Otherwise (a seam,
// until build.Engine has one) progress is read from the engine's own
// progress log: WithProgress makes its full walks log "scanning" with the
// walk's entries every period, and the logger given the engine reads those
// lines, passing on to the log one per progressLogEvery as before. Only
// full walks report so, which are the long ones.
type engineProgress struct {
	log   *zap.Logger    // for the engine
	opts  []build.Option // for the engine
	walks *walkLog       // nil when the engine reports itself
}

func newEngineProgress(log *zap.Logger, period time.Duration) *engineProgress {
	if engineHasProgress {
		return &engineProgress{log: log}
	}
	w := &walkLog{}
	return &engineProgress{
		log:   log.WithOptions(zap.WrapCore(func(c zapcore.Core) zapcore.Core { return walkCore{c, w} })),
		opts:  []build.Option{build.WithProgress(min(period, progressLogEvery))},
		walks: w,
	}
}

// source is the progress of e, built with p's log and options.
func (p *engineProgress) source(e *build.Engine) progressSource {
	if p.walks != nil {
		return p.walks.progress
	}
	return any(e).(progressReporter).Progress
}

// walkStarts notes that a full walk starts: its progress lines count from 0.
func (p *engineProgress) walkStarts() {
	if p.walks != nil {
		p.walks.mu.Lock()
		p.walks.last = 0
		p.walks.mu.Unlock()
	}
}

// progressLogEvery is how often a walk's progress is logged.
const progressLogEvery = 5 * time.Second

// walkLog follows the entries of the engine's walks through its progress
// log lines.
type walkLog struct {
	mu     sync.Mutex
	total  int64     // entries of every walk so far
	last   int64     // entries of the walk in progress, as last logged
	logged time.Time // when a progress line last went to the log
}

func (w *walkLog) progress() (int64, int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.total, 0
}

// observe notes the entries of the walk in progress.
func (w *walkLog) observe(n int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if n < w.last {
		w.last = 0 // another walk
	}
	w.total += n - w.last
	w.last = n
}

// pass reports whether a progress line logged at t goes on to the log.
func (w *walkLog) pass(t time.Time) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if t.Sub(w.logged) < progressLogEvery {
		return false
	}
	w.logged = t
	return true
}

// walkCore is the engine's log core: it hands the engine's "scanning"
// lines to a walkLog.
type walkCore struct {
	zapcore.Core
	w *walkLog
}

func isScanLine(e zapcore.Entry) bool {
	return e.Message == "scanning" && (e.LoggerName == "build" || strings.HasSuffix(e.LoggerName, ".build"))
}

func (c walkCore) With(fields []zapcore.Field) zapcore.Core {
	return walkCore{c.Core.With(fields), c.w}
}

func (c walkCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if isScanLine(e) {
		ce = ce.AddCore(e, scanHook{c.w})
		if !c.w.pass(e.Time) {
			return ce
		}
	}
	return c.Core.Check(e, ce)
}

// scanHook reads the entries of a "scanning" line.
type scanHook struct{ w *walkLog }

func (h scanHook) Enabled(zapcore.Level) bool        { return true }
func (h scanHook) With([]zapcore.Field) zapcore.Core { return h }
func (h scanHook) Sync() error                       { return nil }
func (h scanHook) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	return ce.AddCore(e, h)
}

func (h scanHook) Write(_ zapcore.Entry, fields []zapcore.Field) error {
	for _, f := range fields {
		if f.Key == "entries" && f.Type == zapcore.Int64Type {
			h.w.observe(f.Integer)
		}
	}
	return nil
}
