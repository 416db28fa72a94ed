package fleet

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/fleet/etcdtest"
)

// leaderRun is what a server runs while it leads: it counts the servers
// running at once.
type leaderRun struct {
	running *atomic.Int32
	most    *atomic.Int32
	on      atomic.Bool
}

func (r *leaderRun) run(ctx context.Context) error {
	n := r.running.Add(1)
	for m := r.most.Load(); n > m && !r.most.CompareAndSwap(m, n); m = r.most.Load() {
	}
	r.on.Store(true)
	<-ctx.Done()
	r.on.Store(false)
	r.running.Add(-1)
	return nil
}

// One leader at a time: the second server runs only once the first
// stops (it resigns: at once), and a leader cut off from etcd stops
// within the lease; when etcd returns, a leader is elected again.
func TestLead(t *testing.T) {
	c := etcdtest.Start(t, 3)
	const prefix = "/lead/"
	a, b := server(t, c, prefix), server(t, c, prefix)
	var running, most atomic.Int32
	ra, rb := &leaderRun{running: &running, most: &most}, &leaderRun{running: &running, most: &most}
	ctxA, stopA := context.WithCancel(context.Background())
	doneA := make(chan error, 1)
	go func() { doneA <- a.Lead(ctxA, "web-a", ra.run) }()
	eventually(t, "a leads", ra.on.Load)
	ctxB, stopB := context.WithCancel(context.Background())
	doneB := make(chan error, 1)
	go func() { doneB <- b.Lead(ctxB, "web-b", rb.run) }()
	defer func() { stopB(); <-doneB }()
	if name, err := b.Leader(context.Background()); name != "web-a" || err != nil {
		t.Fatalf("leader %q %v, want web-a", name, err)
	}
	time.Sleep(500 * time.Millisecond) // b campaigns meanwhile, and must wait
	if rb.on.Load() || b.Leading() || !a.Leading() {
		t.Fatal("b runs while a leads")
	}
	stopA()
	if err := <-doneA; err != nil {
		t.Fatal(err)
	}
	// It resigned: its key is gone now, not a lease later.
	for k, v := range records(t, c, prefix+leaderDir) {
		if string(v) == "web-a" {
			t.Errorf("a stopped, and its election key %s is still there", k)
		}
	}
	eventually(t, "b leads once a resigned", rb.on.Load)
	if name, _ := a.Leader(context.Background()); name != "web-b" {
		t.Errorf("leader %q, want web-b", name)
	}
	c.KillAll()
	eventually(t, "b stops leading without etcd", func() bool { return !rb.on.Load() && !b.Leading() })
	c.RestartAll()
	eventually(t, "b leads again", rb.on.Load)
	if m := most.Load(); m != 1 {
		t.Errorf("%d servers ran at once", m)
	}
}
