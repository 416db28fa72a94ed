package fleet

import (
	"context"
	"fmt"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/fleet/etcdtest"
)

// server starts an Agreement against the cluster, as one sitemapd would.
func server(t *testing.T, c *etcdtest.Cluster, prefix string) *Agreement {
	t.Helper()
	a, err := New(&config.Fleet{Etcd: config.Etcd{Endpoints: c.Endpoints()}, Prefix: prefix}, zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done; a.Close() })
	wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
	defer wcancel()
	if err := a.WaitLoaded(wctx); err != nil {
		t.Fatal(err)
	}
	return a
}

// eventually polls cond (the fleet works in the background).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// records reads, from etcd itself, the records under prefix.
func records(t *testing.T, c *etcdtest.Cluster, prefix string) map[string][]byte {
	t.Helper()
	cli, err := clientv3.New(clientv3.Config{Endpoints: c.Endpoints(), DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	resp, err := cli.Get(context.Background(), prefix, clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, kv := range resp.Kvs {
		out[string(kv.Key)] = kv.Value
	}
	return out
}

func TestAgree(t *testing.T) {
	c := etcdtest.Start(t, 3)
	const prefix = "/sitemapd/test/"
	a := server(t, c, prefix)

	// The first server to see a version records its time.
	if got := a.Agree("blog/a.html", 11, 0, 100); got != 100 {
		t.Fatalf("first: %d", got)
	}
	eventually(t, "a's record sent", func() bool { return a.Pending() == 0 })
	recs := records(t, c, prefix)
	if len(recs) != 1 {
		t.Fatalf("records %v", recs)
	}
	for k, v := range recs {
		if tm, err := decodeTime(v); err != nil || tm != 100 || len(k) != len(prefix)+keyLen {
			t.Fatalf("record %q=%x: %d %v", k, v, tm, err)
		}
	}

	// A server started later adopts it, whatever its own time, without
	// a request: its mirror was loaded before.
	b := server(t, c, prefix)
	// Transactions only: a watch the client opens again (a member's
	// leader changed under a busy machine) is no request of the change.
	before := b.stats.Txns.Load()
	if got := b.Agree("blog/a.html", 11, 0, 900); got != 100 {
		t.Fatalf("late server: %d, want the fleet's 100", got)
	}
	// Another version of the same page is another record, and its
	// creator deletes the version it replaces.
	if got := b.Agree("blog/a.html", 22, 11, 200); got != 200 {
		t.Fatalf("new version: %d", got)
	}
	eventually(t, "b's record sent", func() bool { return b.Pending() == 0 })
	if n := b.stats.Txns.Load() - before; n != 1 {
		t.Errorf("transactions for one change: %d, want 1", n)
	}
	eventually(t, "a sees b's version", func() bool { return a.Agree("blog/a.html", 22, 11, 300) == 200 })
	if recs := records(t, c, prefix); len(recs) != 1 {
		t.Errorf("after a new version: %d records, want 1 (the old one deleted)", len(recs))
	}
	if p, idx := a.Take(); len(p) != 0 || idx {
		t.Errorf("nothing settled otherwise, yet %v %v", p, idx)
	}

	// Files too: the same bytes under the same name, the same time.
	if got := a.AgreeFile("blog/sitemap.xml", 5, 1000); got != 1000 {
		t.Fatal(got)
	}
	eventually(t, "a's file record sent", func() bool { return a.Pending() == 0 })
	eventually(t, "b adopts a's file time", func() bool { return b.AgreeFile("blog/sitemap.xml", 5, 2000) == 1000 })
}

// Two servers that publish the same new version at once: one record
// wins, and the other server is told to publish again what it published
// with its own time.
func TestAgreeRace(t *testing.T) {
	c := etcdtest.Start(t, 3)
	const prefix = "/race/"
	a, b := server(t, c, prefix), server(t, c, prefix)
	const n = 300
	for i := 0; i < n; i++ {
		rel := fmt.Sprintf("d%d/p%d.html", i%7, i)
		a.Agree(rel, uint64(i+1), 0, 1000)
		b.Agree(rel, uint64(i+1), 0, 2000)
	}
	eventually(t, "both queues sent", func() bool { return a.Pending() == 0 && b.Pending() == 0 })
	redo := 0
	for _, s := range []*Agreement{a, b} {
		pages, _ := s.Take()
		for _, names := range pages {
			redo += len(names)
		}
	}
	agreed := 0
	for i := 0; i < n; i++ {
		rel := fmt.Sprintf("d%d/p%d.html", i%7, i)
		ta, tb := a.Agree(rel, uint64(i+1), 0, -1), b.Agree(rel, uint64(i+1), 0, -2)
		if ta == tb && (ta == 1000 || ta == 2000) {
			agreed++
		}
	}
	if agreed != n {
		t.Errorf("%d of %d pages agreed", agreed, n)
	}
	if redo != n {
		t.Errorf("%d pages to publish again, want %d: each page's loser publishes once more", redo, n)
	}
	if recs := records(t, c, prefix); len(recs) != n {
		t.Errorf("%d records, want %d", len(recs), n)
	}
}

// etcd lost whole: each server publishes its own time and says it is
// degraded; when etcd returns, the queue is recorded and the servers
// converge on one time.
func TestAgreeOutage(t *testing.T) {
	c := etcdtest.Start(t, 3)
	const prefix = "/outage/"
	a, b := server(t, c, prefix), server(t, c, prefix)
	c.Kill(0)
	if got := a.Agree("x.html", 1, 0, 10); got != 10 {
		t.Fatal(got)
	}
	eventually(t, "one member lost: no effect", func() bool { return a.Pending() == 0 })
	if ok, _, why := a.Health(); !ok {
		t.Errorf("degraded with one member lost: %s", why)
	}
	c.KillAll()
	if ta, tb := a.Agree("y.html", 2, 0, 20), b.Agree("y.html", 2, 0, 30); ta != 20 || tb != 30 {
		t.Fatalf("during the outage: %d %d, want each its own", ta, tb)
	}
	eventually(t, "degraded", func() bool { ok, _, why := a.Health(); return !ok && why != "" })
	c.RestartAll()
	eventually(t, "healthy again", func() bool { ok, _, _ := a.Health(); return ok })
	eventually(t, "queues sent", func() bool { return a.Pending() == 0 && b.Pending() == 0 })
	eventually(t, "converged", func() bool { return a.Agree("y.html", 2, 0, -1) == b.Agree("y.html", 2, 0, -2) })
	pa, _ := a.Take()
	pb, _ := b.Take()
	if len(pa)+len(pb) != 1 {
		t.Errorf("pages to publish again: %v and %v, want y.html on the server that lost", pa, pb)
	}
}
