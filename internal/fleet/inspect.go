package fleet

import (
	"context"
	"encoding/base64"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// View is what etcd holds of a fleet, as `sitemapd fleet` prints it.
type View struct {
	// Servers are the names of the servers campaigning in the election,
	// the oldest first: the first leads (and sends the notifications).
	Servers []string
	// Versions is how many versions are recorded.
	Versions int64
	// Revision is etcd's revision the view was read at.
	Revision int64
	// Peers are the digests of the servers' sitemaps, by name.
	Peers []Peer
	// InFlight are the batches a leader sent and has not marked sent
	// yet, by endpoint (at most one an endpoint).
	InFlight []Batch
	// Marks is how many batches were marked sent in the last hour
	// (SentTTL).
	Marks int64
}

// Batch is a batch of the ledger: its endpoint, the server that sent it,
// and how many URLs (or index URLs, for a ping) it holds.
type Batch struct {
	Endpoint, Writer string
	URLs             int
}

// Inspect reads the fleet's view from etcd, in five range reads at one
// revision.
func (a *Agreement) Inspect(ctx context.Context) (View, error) {
	rctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	resp, err := a.cli.Get(rctx, a.prefix+leaderDir, clientv3.WithPrefix(),
		clientv3.WithSort(clientv3.SortByCreateRevision, clientv3.SortAscend))
	if err != nil {
		return View{}, fmt.Errorf("read the fleet's election: %w", err)
	}
	v := View{Revision: resp.Header.Revision}
	for _, kv := range resp.Kvs {
		v.Servers = append(v.Servers, string(kv.Value))
	}
	cnt, err := a.cli.Get(rctx, a.prefix+versionsDir, clientv3.WithPrefix(), clientv3.WithCountOnly(), clientv3.WithRev(v.Revision))
	if err != nil {
		return View{}, fmt.Errorf("count the fleet's records: %w", err)
	}
	v.Versions = cnt.Count
	if v.Peers, err = a.peers(rctx, v.Revision); err != nil {
		return View{}, err
	}
	if v.InFlight, err = a.inFlight(rctx, v.Revision); err != nil {
		return View{}, err
	}
	marks, err := a.cli.Get(rctx, a.prefix+sentDir, clientv3.WithPrefix(), clientv3.WithCountOnly(), clientv3.WithRev(v.Revision))
	if err != nil {
		return View{}, fmt.Errorf("count the ledger's marks: %w", err)
	}
	v.Marks = marks.Count
	return v, nil
}

// inFlight reads the ledger's batches in flight, at rev.
func (a *Agreement) inFlight(ctx context.Context, rev int64) ([]Batch, error) {
	resp, err := a.cli.Get(ctx, a.prefix+flightDir, clientv3.WithPrefix(), clientv3.WithRev(rev))
	if err != nil {
		return nil, fmt.Errorf("read the ledger's batches in flight: %w", err)
	}
	var out []Batch
	for _, kv := range resp.Kvs {
		ep, err := base64.RawURLEncoding.DecodeString(string(kv.Key[len(a.prefix)+len(flightDir):]))
		writer, hashes, derr := decodeBatch(kv.Value)
		if err != nil || derr != nil {
			continue
		}
		out = append(out, Batch{Endpoint: string(ep), Writer: writer, URLs: len(hashes)})
	}
	return out, nil
}
