package fleet

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/fleet/etcdtest"
)

// TestFootprint measures what a site costs etcd, as etcd reports it: the
// bytes of its records (keys and values), its database's size in use
// after the history is compacted and defragmented, and the requests per
// change. A million pages must fit etcd's default 2 GiB quota with a wide
// margin: their records under a tenth of it (214 bytes a page), the
// database file after every page changed at once, its history compacted
// by sitemapd but not defragmented, under a quarter (536 bytes a page).
func TestFootprint(t *testing.T) {
	c := etcdtest.Start(t, 3)
	const prefix = "/sitemapd/www.example.com/"
	cli, err := clientv3.New(clientv3.Config{Endpoints: c.Endpoints(), DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	ctx := context.Background()
	size := func() (db, inUse int64) {
		t.Helper()
		st, err := cli.Status(ctx, c.Endpoints()[0])
		if err != nil {
			t.Fatal(err)
		}
		return st.DbSize, st.DbSizeInUse
	}
	settle := func() {
		t.Helper()
		g, err := cli.Get(ctx, "/", clientv3.WithCountOnly())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cli.Compact(ctx, g.Header.Revision, clientv3.WithCompactPhysical()); err != nil {
			t.Fatal(err)
		}
		if _, err := cli.Defragment(ctx, c.Endpoints()[0]); err != nil {
			t.Fatal(err)
		}
	}
	settle()
	_, before := size()

	a := server(t, c, prefix)
	n := 50000
	if testing.Short() {
		n = 5000
	}
	if v, err := strconv.Atoi(os.Getenv("SITEMAPD_FLEET_PAGES")); err == nil && v > 0 {
		n = v // bench/README.md's figures: 100,000
	}
	start, txns := a.Requests(), a.stats.Txns.Load()
	for i := 0; i < n; i++ {
		// Paths as a site has them; their length does not matter, only
		// their hash is stored.
		a.Agree(fmt.Sprintf("blog/2024/%02d/a-post-about-topic-%d.html", i%12+1, i), uint64(i)*2654435761+1, 0, time.Now().UnixNano())
	}
	eventually(t, "every version recorded", func() bool { return a.Pending() == 0 })
	created, createTxns := a.Requests()-start, a.stats.Txns.Load()-txns

	// A server joining: what it reads before its first publish.
	joinStart := time.Now()
	j := server(t, c, prefix)
	t.Logf("a server joining read %d records in %s (%d range reads)", n, time.Since(joinStart).Round(time.Millisecond), j.stats.Ranges.Load())

	resp, err := cli.Get(ctx, prefix, clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) != n {
		t.Fatalf("%d records, want %d", len(resp.Kvs), n)
	}
	var kv int
	for _, r := range resp.Kvs {
		kv += len(r.Key) + len(r.Value)
	}
	settle()
	db, after := size()
	perPage := float64(after-before) / float64(n)
	t.Logf("%d pages: keys+values %d bytes (%.1f a page); db in use %d -> %d bytes (%.1f a page; db file %d); %d requests (%.4f a page, %d versions a transaction)",
		n, kv, float64(kv)/float64(n), before, after, perPage, db, created, float64(created)/float64(n), maxTxnOps)
	t.Logf("1,000,000 pages: about %.0f MiB of the 2 GiB quota", perPage*1e6/(1<<20))
	if perPage > 214 {
		t.Errorf("%.1f bytes a page in etcd: a million pages would take over a tenth of the 2 GiB quota", perPage)
	}
	// A change of every page (a site-wide template change): each page's
	// new version replaces its old one, whose record goes; sitemapd's
	// own compaction keeps the history from growing the database.
	start, txns = a.Requests(), a.stats.Txns.Load()
	for i := 0; i < n; i++ {
		old := uint64(i)*2654435761 + 1
		a.Agree(fmt.Sprintf("blog/2024/%02d/a-post-about-topic-%d.html", i%12+1, i), old+7, old, time.Now().UnixNano())
	}
	eventually(t, "every new version recorded", func() bool { return a.Pending() == 0 })
	changed, changeTxns := a.Requests()-start, a.stats.Txns.Load()-txns
	eventually(t, "sitemapd compacts etcd's history", func() bool {
		_, err := cli.Get(ctx, prefix, clientv3.WithPrefix(), clientv3.WithRev(2), clientv3.WithCountOnly())
		return err != nil && strings.Contains(err.Error(), "compacted")
	})
	g, err := cli.Get(ctx, prefix, clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil || g.Count != int64(n) {
		t.Fatalf("after the change: %v records (%v), want %d", g.Count, err, n)
	}
	// What the quota counts is the database file, which grows to hold
	// the old versions until they are compacted, and whose freed pages
	// are used again without shrinking it (etcd's defragmentation does).
	changedDB, _ := size()
	perPageChanged := float64(changedDB) / float64(n)
	t.Logf("every page changed: %d requests (%d new versions, %d old deleted, 64 pages a transaction); db file, not defragmented, %d bytes (%.1f a page; 1,000,000 pages: %.0f MiB)",
		changed, n, n, changedDB, perPageChanged, perPageChanged*1e6/(1<<20))
	if perPageChanged > 536 {
		t.Errorf("%.1f bytes a page after a site-wide change: a million pages would take over a quarter of the 2 GiB quota", perPageChanged)
	}
	// A transaction per 64 pages (a create and a delete each); the other
	// requests are compactions and reloads.
	if max := int64(n/(maxTxnOps/2) + 2); changeTxns > max {
		t.Errorf("%d transactions to change %d pages, want at most %d", changeTxns, n, max)
	}

	// One transaction per batch of 128 new versions, and the range read
	// and watch of the start: no request a page.
	if max := int64(n/maxTxnOps + 2); createTxns > max {
		t.Errorf("%d transactions to record %d versions, want at most %d", createTxns, n, max)
	}
}
