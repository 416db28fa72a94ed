// Package ctxtime holds the one way sitemapd waits for a while: a sleep
// that ends early when its context is done, so that a shutdown or a
// reload never waits out a retry's back-off.
package ctxtime

import (
	"context"
	"time"
)

// Sleep waits d, or until ctx is done: then it returns ctx.Err(). Its
// timer is stopped either way.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
