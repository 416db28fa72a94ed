package fleet

// Each server's digest of its published sitemaps, so that `sitemapd
// fleet` can say whether the servers publish the same bytes: one small
// key per server (<prefix>servers/<name>), on the lease of its election
// session (gone when the server stops or loses etcd), written when the
// digest changes, never otherwise.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	"go.uber.org/zap"
)

// serversDir is where the servers' digests are, below the site's prefix.
const serversDir = "servers/"

// Digest is what a server publishes of its sitemaps.
type Digest struct {
	// Sum is the SHA-256 (its first 16 bytes, in hex) of the names and
	// SHA-256 sums of the index files and every file they list.
	Sum   string    `json:"sha256"`
	Files int       `json:"files"`
	Since time.Time `json:"since"` // when this server first published these bytes
}

// digester sums the files of a server's sitemaps, reading again only the
// files whose stat changed since it last read them.
type digester struct {
	dir   string
	files map[string]fileSum
}

type fileSum struct {
	ino, size, mtime, ctime int64
	sum                     [sha256.Size]byte
}

// sum is the digest of the files names (relative to d.dir, sorted).
func (d *digester) sum(names []string) (string, error) {
	root, err := os.OpenRoot(d.dir)
	if err != nil {
		return "", err
	}
	defer root.Close()
	seen := make(map[string]fileSum, len(names))
	h := sha256.New()
	for _, n := range names {
		fs, err := d.file(root, n)
		if err != nil {
			return "", fmt.Errorf("sum %s: %w", n, err)
		}
		seen[n] = fs
		fmt.Fprintf(h, "%s\x00%x\n", n, fs.sum)
	}
	d.files = seen // files no longer listed are forgotten
	return hex.EncodeToString(h.Sum(nil)[:16]), nil
}

func (d *digester) file(root *os.Root, name string) (fileSum, error) {
	f, err := root.Open(name)
	if err != nil {
		return fileSum{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fileSum{}, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || !fi.Mode().IsRegular() {
		return fileSum{}, fmt.Errorf("not a regular file")
	}
	fs := fileSum{ino: int64(st.Ino), size: fi.Size(), mtime: fi.ModTime().UnixNano(), ctime: st.Ctim.Nano()}
	if old, ok := d.files[name]; ok && old.ino == fs.ino && old.size == fs.size && old.mtime == fs.mtime && old.ctime == fs.ctime {
		return old, nil
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return fileSum{}, err
	}
	copy(fs.sum[:], h.Sum(nil))
	return fs, nil
}

// Published tells the fleet which files this server's sitemaps are now
// (relative to dir, the output directory, sorted: the index files and
// the files they list), after a publish. Their digest is written to etcd
// if it changed, by the election session (Lead). Call it from one
// goroutine; it reads only the files whose stat changed.
func (a *Agreement) Published(dir string, names []string) error {
	if a.dg == nil || a.dg.dir != dir {
		a.dg = &digester{dir: dir}
	}
	sum, err := a.dg.sum(names)
	if err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.digest.Sum == sum {
		return nil
	}
	a.digest = Digest{Sum: sum, Files: len(names), Since: time.Now().UTC().Truncate(time.Second)}
	select {
	case a.digestWake <- struct{}{}:
	default:
	}
	return nil
}

// announce writes this server's digest under its name on the session's
// lease, at once and whenever it changes, until ctx is done or the
// session ends (its lease gone, and the key with it).
func (a *Agreement) announce(ctx context.Context, s *concurrency.Session, name string) {
	key := a.prefix + serversDir + name
	var put Digest
	retry := time.NewTimer(0)
	defer retry.Stop()
	for {
		a.mu.Lock()
		d := a.digest
		a.mu.Unlock()
		if d.Sum != "" && d != put {
			v, _ := json.Marshal(d)
			rctx, cancel := context.WithTimeout(ctx, requestTimeout)
			_, err := a.cli.Put(rctx, key, string(v), clientv3.WithLease(s.Lease()))
			cancel()
			a.stats.Txns.Add(1)
			if err == nil {
				put = d
			} else {
				a.log.Debug("fleet: write this server's digest", zap.Error(err))
				retry.Reset(time.Second)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-s.Done():
			return
		case <-a.digestWake:
		case <-retry.C:
		}
	}
}

// Peer is a server's digest as etcd holds it.
type Peer struct {
	Name string
	Digest
}

// peers reads the servers' digests, at rev, sorted by name.
func (a *Agreement) peers(ctx context.Context, rev int64) ([]Peer, error) {
	resp, err := a.cli.Get(ctx, a.prefix+serversDir, clientv3.WithPrefix(), clientv3.WithRev(rev))
	if err != nil {
		return nil, fmt.Errorf("read the servers' digests: %w", err)
	}
	var out []Peer
	for _, kv := range resp.Kvs {
		p := Peer{Name: string(kv.Key[len(a.prefix)+len(serversDir):])}
		if json.Unmarshal(kv.Value, &p.Digest) == nil {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(x, y Peer) int { return strings.Compare(x.Name, y.Name) })
	return out, nil
}
