package fleet

import (
	"context"
	"errors"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	"go.uber.org/zap"
)

// LeaseTTL is the lease of a fleet's leader, in seconds: a leader that
// dies (kill -9, its host lost) is replaced this long after its last
// keep-alive; one that stops cleanly resigns at once.
const LeaseTTL = 10

// leaderDir is where the election is, below the site's prefix.
const leaderDir = "leader/"

// Lead runs run while this server (name) is the fleet's leader, and only
// then: it campaigns in an election on a lease (etcd's concurrency
// package), calls run with a context canceled when the leadership is
// lost (the lease expired: etcd unreachable for LeaseTTL), and campaigns
// again. It returns when ctx is done, resigning if it leads, with the
// error of run's last call, if ctx ended it.
func (a *Agreement) Lead(ctx context.Context, name string, run func(context.Context) error) error {
	backoff := time.Second
	for ctx.Err() == nil {
		err := a.leadOnce(ctx, name, run)
		switch {
		case ctx.Err() != nil:
			if errors.Is(err, context.Canceled) {
				err = nil
			}
			return err
		case err != nil:
			a.log.Warn("fleet: not leading: notifications wait for a leader", zap.Error(err))
		default:
			backoff = time.Second
		}
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 10*time.Second)
	}
	return nil
}

// leadOnce campaigns, and once elected runs run until the session ends.
func (a *Agreement) leadOnce(ctx context.Context, name string, run func(context.Context) error) error {
	// The lease is granted under ctx (etcd down: the grant waits, and
	// ends with ctx); the session outlives ctx, so that its Close can
	// revoke the lease when ctx is done: another server is elected at
	// once, not a lease later.
	lease, err := a.cli.Grant(ctx, LeaseTTL)
	if err != nil {
		return fmt.Errorf("grant a lease: %w", err)
	}
	s, err := concurrency.NewSession(a.cli, concurrency.WithLease(lease.ID), concurrency.WithContext(context.WithoutCancel(ctx)))
	if err != nil {
		return fmt.Errorf("open a session: %w", err)
	}
	defer s.Close()
	// Every server, leading or not, writes its digest on the session's
	// lease: the key goes with the session.
	actx, stopAnnounce := context.WithCancel(ctx)
	announced := make(chan struct{})
	go func() { a.announce(actx, s, name); close(announced) }()
	defer func() { stopAnnounce(); <-announced }()
	e := concurrency.NewElection(s, a.prefix+leaderDir)
	if err := e.Campaign(ctx, name); err != nil {
		return fmt.Errorf("campaign: %w", err)
	}
	a.setLeading(true)
	defer a.setLeading(false)
	a.log.Info("fleet: this server leads: it sends the fleet's notifications", zap.String("server", name))
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-s.Done():
			a.log.Warn("fleet: leadership lost (etcd unreachable past the lease): notifications stop here")
			cancel()
		case <-lctx.Done():
		}
	}()
	err = run(lctx)
	if ctx.Err() == nil && lctx.Err() != nil {
		return nil // lost: campaign again
	}
	return err
}

func (a *Agreement) setLeading(on bool) {
	a.mu.Lock()
	a.leading = on
	a.mu.Unlock()
}

// Leading reports whether this server leads the fleet now.
func (a *Agreement) Leading() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.leading
}

// Leader is the name of the fleet's leader, or "" when there is none.
func (a *Agreement) Leader(ctx context.Context) (string, error) {
	rctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	resp, err := a.cli.Get(rctx, a.prefix+leaderDir, clientv3.WithFirstCreate()...)
	if err != nil {
		return "", err
	}
	if len(resp.Kvs) == 0 {
		return "", nil
	}
	return string(resp.Kvs[0].Value), nil
}
