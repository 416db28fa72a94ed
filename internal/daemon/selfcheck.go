package daemon

// The site's self-check while a configuration is served (selfcheck in
// the configuration): a reach.Monitor running its own loop, told of each
// publish that landed.

import (
	"context"
	"sync"

	"github.com/sitemapd/sitemapd/internal/reach"
)

// startSelfCheck starts the self-check when the configuration turns it
// on; close stops it (a check under way canceled).
func (ss *session) startSelfCheck(ctx context.Context) {
	if !ss.cfg.SelfCheck.Enabled {
		return
	}
	m := reach.NewMonitor(ss.cfg, ss.s.log, "sitemapd/"+ss.d.opts.Version+" (self-check)")
	ss.selfcheck = m
	cctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { m.Run(cctx) })
	ss.onClose(func() {
		stop()
		wg.Wait()
	})
}

// selfCheckStatus is the self-check's last view, nil when it is off;
// safe from any goroutine.
func (ss *session) selfCheckStatus() *reach.Status {
	if ss.selfcheck == nil {
		return nil
	}
	st := ss.selfcheck.Status()
	return &st
}
