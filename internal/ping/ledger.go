package ping

import (
	"context"
	"fmt"

	"go.uber.org/zap"
)

// Ledger is a record of what was sent shared beyond this server (a
// fleet's, in etcd: internal/fleet), told of each request's URLs around
// it: Sending before (an error keeps them owed, unsent), Sent once the
// endpoint accepted them.
type Ledger interface {
	Sending(ctx context.Context, endpoint string, urls []string) error
	Sent(ctx context.Context, endpoint string, urls []string) error
}

// WithLedger has every request recorded in l around it.
func WithLedger(l Ledger) Option { return func(n *Notifier) { n.ledger = l } }

// sending records URLs about to go to ep in the ledger, if any.
func (n *Notifier) sending(ctx context.Context, ep *endpoint, urls []string) error {
	if n.ledger == nil {
		return nil
	}
	if err := n.ledger.Sending(ctx, ep.cfg.Name, urls); err != nil {
		return fmt.Errorf("endpoint %s: %w", ep.cfg.Name, err)
	}
	return nil
}

// sent marks URLs ep accepted in the ledger, if any. A mark that fails
// is logged: the others still owe them, and send them again if they
// lead.
func (n *Notifier) sent(ctx context.Context, ep *endpoint, urls []string) {
	if n.ledger == nil {
		return
	}
	if err := n.ledger.Sent(ctx, ep.cfg.Name, urls); err != nil {
		n.log.Warn("cannot mark sent URLs in the shared ledger: another server may send them again", zap.String("endpoint", ep.cfg.Name), zap.Int("urls", len(urls)), zap.Error(err))
	}
}

// Forget forgets what endpoint (its name) is owed among the URLs another
// server sent (sent reports which), and saves; it returns how many it
// forgot. A URL owed again after this server learnt of the send is owed
// once more by whoever sees its next change.
func (n *Notifier) Forget(endpoint string, sent func(url string) bool) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	forgot := 0
	for _, ep := range n.eps {
		if ep.cfg.Name != endpoint {
			continue
		}
		for u := range ep.owed {
			if sent(u) {
				delete(ep.owed, u)
				forgot++
			}
		}
	}
	if forgot == 0 {
		return 0
	}
	if err := n.saveLocked(); err != nil {
		n.log.Error("cannot save notification state", zap.Error(err))
	}
	return forgot
}
