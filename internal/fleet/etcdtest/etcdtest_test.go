package etcdtest

import (
	"context"
	"errors"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	"go.uber.org/zap"
)

func client(t *testing.T, c *Cluster) *clientv3.Client {
	t.Helper()
	cli, err := clientv3.New(clientv3.Config{Endpoints: c.Endpoints(), DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

// The client this module uses (go.etcd.io/etcd/client/v3) against the
// server Debian ships: reads, compare-and-swap, elections on a lease; a
// member lost keeps quorum, two lost do not, and the cluster comes back
// with its data.
func TestCluster(t *testing.T) {
	c := Start(t, 3)
	cli := client(t, c)
	ctx := context.Background()
	put := func(v string, wantOK bool) {
		t.Helper()
		cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		_, err := cli.Put(cctx, "/k", v)
		if (err == nil) != wantOK {
			t.Fatalf("put %q: err %v, want ok %v", v, err, wantOK)
		}
	}
	put("1", true)

	// Compare-and-swap: a create-only put fails when the key exists.
	resp, err := cli.Txn(ctx).If(clientv3.Compare(clientv3.Version("/k"), "=", 0)).Then(clientv3.OpPut("/k", "x")).Commit()
	if err != nil || resp.Succeeded {
		t.Fatalf("create-only put over an existing key: succeeded %v, err %v", resp != nil && resp.Succeeded, err)
	}

	s, err := concurrency.NewSession(cli, concurrency.WithTTL(5))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	e := concurrency.NewElection(s, "/election")
	if err := e.Campaign(ctx, "me"); err != nil {
		t.Fatal(err)
	}
	lead, err := e.Leader(ctx)
	if err != nil || string(lead.Kvs[0].Value) != "me" {
		t.Fatalf("leader: %v %v", lead, err)
	}

	// A write in flight when the leader is killed may time out while the
	// others elect one: a member lost keeps the cluster writable once
	// they have (seconds, on a loaded machine).
	settled := func(v string) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); ; {
			cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
			_, err := cli.Put(cctx, "/k", v)
			cancel()
			if err == nil {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("put %q: %v", v, err)
			}
		}
	}
	c.Kill(0)
	settled("2")
	c.Kill(1)
	put("3", false)
	c.RestartAll()
	settled("4")
	g, err := cli.Get(ctx, "/k")
	if err != nil || string(g.Kvs[0].Value) != "4" {
		t.Fatalf("after restart: %v %v", g, err)
	}

	c.KillAll()
	cctx, cancel := context.WithTimeout(ctx, time.Second)
	_, err = cli.Get(cctx, "/k")
	cancel()
	if err == nil {
		t.Fatal("read with every member down succeeded")
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Logf("read with every member down: %v", err)
	}
}
