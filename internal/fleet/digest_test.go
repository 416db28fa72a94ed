package fleet

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/fleet/etcdtest"
)

// wantDigest is the digest of files as docs/fleet.md defines it, from
// sha256 of each file.
func wantDigest(t *testing.T, dir string, names []string) string {
	t.Helper()
	h := sha256.New()
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "%s\x00%x\n", n, sha256.Sum256(b))
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// TestDigestKey: a server's digest is one key, on its election session's
// lease, written when the digest changes and only then (a rewrite of the
// same bytes writes nothing), and gone when the server stops.
func TestDigestKey(t *testing.T) {
	c := etcdtest.Start(t, 1)
	const prefix = "/digest/"
	a := server(t, c, prefix)
	cli, err := clientv3.New(clientv3.Config{Endpoints: c.Endpoints(), DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	key := prefix + serversDir + "web-a"
	get := func() (Digest, int64, clientv3.LeaseID) {
		resp, err := cli.Get(context.Background(), key)
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Kvs) == 0 {
			return Digest{}, 0, 0
		}
		var d Digest
		if err := json.Unmarshal(resp.Kvs[0].Value, &d); err != nil {
			t.Fatal(err)
		}
		return d, resp.Kvs[0].ModRevision, clientv3.LeaseID(resp.Kvs[0].Lease)
	}

	dir := t.TempDir()
	names := []string{"docs/sitemap.xml", "sitemap_index.xml"}
	write := func(name, body string) {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("docs/sitemap.xml", "<urlset>one</urlset>\n")
	write("sitemap_index.xml", "<sitemapindex>docs</sitemapindex>\n")
	if err := a.Published(dir, names); err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Lead(ctx, "web-a", func(ctx context.Context) error { <-ctx.Done(); return nil }) }()
	eventually(t, "the digest key", func() bool { d, _, _ := get(); return d.Sum != "" })
	d, rev, lease := get()
	if want := wantDigest(t, dir, names); d.Sum != want || d.Files != 2 || lease == 0 {
		t.Fatalf("digest %+v on lease %x, want %s of 2 files on a lease", d, lease, want)
	}

	// The same bytes written again (a new inode, a new mtime): no write.
	time.Sleep(10 * time.Millisecond)
	write("docs/sitemap.xml", "<urlset>one</urlset>\n")
	if err := a.Published(dir, names); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // a write would have landed
	if _, again, _ := get(); again != rev {
		t.Errorf("the same bytes rewrote the key (revision %d, then %d)", rev, again)
	}
	// Other bytes: written once.
	write("docs/sitemap.xml", "<urlset>two</urlset>\n")
	if err := a.Published(dir, names); err != nil {
		t.Fatal(err)
	}
	want := wantDigest(t, dir, names)
	eventually(t, "the new digest", func() bool { d, _, _ := get(); return d.Sum == want })
	v, err := a.Inspect(context.Background())
	if err != nil || len(v.Peers) != 1 || v.Peers[0].Name != "web-a" || v.Peers[0].Sum != want {
		t.Errorf("Inspect: %+v %v", v.Peers, err)
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if d, _, _ := get(); d.Sum != "" {
		t.Errorf("the server stopped, and its digest key is still there: %+v", d)
	}
}
