package reach

import (
	"context"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/config"
)

// Status is a Monitor's last check, for /healthz and the metrics.
type Status struct {
	// Checked is when the last check ended; zero before the first.
	Checked time.Time
	Checks  int64 // checks run
	URLs    int   // URLs the last check fetched
	// Problems are the last check's, in the order checked.
	Problems []Result
}

// Monitor is the daemon's self-check of one site (selfcheck in the
// configuration): a check AfterPublish after the last publish and every
// Interval after the last check, its problems logged when they appear
// and when they clear, never at every check.
type Monitor struct {
	cfg  *config.Config
	log  *zap.Logger
	opts Options
	kick chan struct{}

	mu     sync.Mutex
	status Status
}

// NewMonitor returns the self-check of cfg's site (cfg.SelfCheck), whose
// requests say userAgent.
func NewMonitor(cfg *config.Config, log *zap.Logger, userAgent string) *Monitor {
	sc := cfg.SelfCheck
	return &Monitor{cfg: cfg, log: log, kick: make(chan struct{}, 1), opts: Options{
		Timeout: sc.Timeout, UserAgent: userAgent, Connect: sc.Connect, Strict: true,
		Sitemaps: sc.Sitemaps, Pages: sc.Pages,
	}}
}

// Published says a publish landed: a check follows AfterPublish after
// the last of a burst of them. It never blocks; a nil Monitor (the
// self-check off) does nothing.
func (m *Monitor) Published() {
	if m == nil {
		return
	}
	select {
	case m.kick <- struct{}{}:
	default:
	}
}

// Status is the last check's; safe from any goroutine.
func (m *Monitor) Status() Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.status
	st.Problems = slices.Clone(st.Problems)
	return st
}

// Run checks until ctx is done.
func (m *Monitor) Run(ctx context.Context) {
	sc := m.cfg.SelfCheck
	every := time.NewTimer(sc.Interval)
	defer every.Stop()
	after := time.NewTimer(0)
	after.Stop()
	defer after.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-m.kick:
			after.Reset(sc.AfterPublish)
			continue
		case <-after.C:
		case <-every.C:
		}
		after.Stop()
		m.Check(ctx)
		every.Reset(sc.Interval)
	}
}

// Check runs one check now, recording and logging what changed since
// the last.
func (m *Monitor) Check(ctx context.Context) {
	m.mu.Lock()
	opts, prev := m.opts, m.status.Problems
	opts.Round = int(m.status.Checks)
	m.mu.Unlock()
	opts.Recheck = map[string]bool{}
	for _, r := range prev {
		opts.Recheck[r.URL] = true
		if r.In != "" {
			opts.Recheck[r.In] = true
		}
	}
	results := New(m.cfg, opts).Check(ctx)
	if ctx.Err() != nil {
		return // a check cut short says nothing of the site
	}
	var problems []Result
	for _, r := range results {
		if r.Problem != OK {
			problems = append(problems, r)
		}
	}
	m.report(prev, problems, len(results))
	m.mu.Lock()
	m.status = Status{Checked: time.Now(), Checks: m.status.Checks + 1, URLs: len(results), Problems: problems}
	m.mu.Unlock()
}

// report logs the problems that appeared since the last check (a
// warning each) and those that cleared; the first check that finds
// none says so once.
func (m *Monitor) report(prev, now []Result, urls int) {
	was := map[key]bool{}
	for _, r := range prev {
		was[r.key()] = true
	}
	is := map[key]bool{}
	for _, r := range now {
		is[r.key()] = true
		if !was[r.key()] {
			m.log.Warn("self-check: the public view differs from what sitemapd wrote", zap.Stringer("what", r.What), zap.String("url", r.URL),
				zap.Stringer("problem", r.Problem), zap.String("detail", r.Detail), zap.String("fix", r.Fix))
		}
	}
	for _, r := range prev {
		if !is[r.key()] {
			m.log.Info("self-check: cleared", zap.Stringer("what", r.What), zap.String("url", r.URL), zap.Stringer("problem", r.Problem))
		}
	}
	m.mu.Lock()
	first := m.status.Checks == 0
	m.mu.Unlock()
	if len(now) == 0 && (first || len(prev) > 0) {
		m.log.Info("self-check: the public view serves what sitemapd wrote", zap.Int("urls", urls))
	}
}
