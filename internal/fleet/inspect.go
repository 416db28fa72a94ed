package fleet

import (
	"context"
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
}

// Inspect reads the fleet's view from etcd, in two range reads at one
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
	return v, nil
}
