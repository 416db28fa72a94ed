package main

import (
	"sync/atomic"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/ping"
	"github.com/sitemapd/sitemapd/internal/status"
)

// pingHistory records the requests `sitemapd ping` makes in the site's
// status history (status.History, in state_dir), as the daemon records
// its own, so that the status page shows them once the daemon runs
// again. The history is opened only once the notifier holds the state
// directory: a ping beside a running daemon stops at ping.ErrLocked
// before that, and never touches (or moves aside) the history the daemon
// writes. A history that cannot be opened or saved is a warning: the
// requests go all the same.
type pingHistory struct {
	log    *zap.Logger
	h      atomic.Pointer[status.History]
	failed atomic.Bool
}

// observe is the notifier's observer (ping.WithObserver).
func (p *pingHistory) observe(a ping.Attempt) {
	h := p.h.Load()
	if h == nil {
		return
	}
	if err := h.RecordSubmission(status.SubmissionOf(a)); err != nil && !p.failed.Swap(true) {
		p.log.Warn("cannot save the status page's history: the status page will not show these requests", zap.Error(err))
	}
}

// open opens the history in dir, the site's state directory.
func (p *pingHistory) open(dir string) {
	h, err := status.Open(dir, p.log)
	if err != nil {
		p.log.Warn("the status page's history cannot be opened: the status page will not show these requests", zap.Error(err))
		return
	}
	p.h.Store(h)
}

func (p *pingHistory) close() {
	if h := p.h.Swap(nil); h != nil {
		h.Close()
	}
}
