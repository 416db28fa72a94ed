package fleet

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

const (
	// maxTxnOps is etcd's default limit of operations in each branch of
	// a transaction (--max-txn-ops).
	maxTxnOps = 128
	// pageSize is how many records one range read returns.
	pageSize = 10000
	// requestTimeout bounds each request: past it etcd counts as
	// unreachable (no quorum answers no write).
	requestTimeout = 5 * time.Second
	// After compactEvery revisions, or compactWrites keys written (a
	// transaction writes up to 128 in one revision), history older than
	// the last keepRevisions is compacted, so that etcd's database holds
	// about the records themselves: the versions a site-wide change
	// replaced are kept at most that long.
	compactEvery  = 10000
	compactWrites = 100000
	keepRevisions = 100
)

// health is whether etcd answers, since when, and why not.
type health struct {
	ok     bool
	since  time.Time
	reason string
}

// Health reports whether etcd answered the last request, since when it
// has (or has not), and, when not, the error.
func (a *Agreement) Health() (ok bool, since time.Time, reason string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.health.ok, a.health.since, a.health.reason
}

func (a *Agreement) setHealth(err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	ok := err == nil
	if ok != a.health.ok {
		a.health.since = time.Now()
		if ok {
			a.log.Info("etcd reachable: the fleet's times are agreed", zap.Int("queued", len(a.queue)))
		} else {
			a.log.Warn("etcd unreachable: publishing this server's own times until it returns", zap.Error(err))
		}
	}
	a.health.ok = ok
	if err != nil {
		a.health.reason = err.Error()
	} else {
		a.health.reason = ""
	}
}

// Run keeps the mirror and records the queue until ctx is done: it loads
// the records, watches them, and sends the queue in batches, retrying
// with backoff while etcd is unreachable.
//
// A request that fails is tried again at once, as a new session: the
// member it went to may be the one just lost, and the client sends the
// next to another. Only when that fails too is etcd unreachable.
func (a *Agreement) Run(ctx context.Context) {
	var backoff time.Duration
	for ctx.Err() == nil {
		loaded, err := a.session(ctx)
		if ctx.Err() != nil {
			return
		}
		if loaded {
			backoff = 0 // it worked until now: try again at once
		}
		if backoff > 0 {
			a.setHealth(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(max(2*backoff, time.Second), 10*time.Second)
	}
}

// session loads the records and keeps them until the watch or a request
// fails: the caller then loads them again, as history may have been
// compacted past what the watch had seen. loaded says the load worked.
func (a *Agreement) session(ctx context.Context) (loaded bool, err error) {
	rev, err := a.load(ctx)
	if err != nil {
		return false, err
	}
	a.setHealth(nil)
	a.once.Do(func() { close(a.loaded) })
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	defer cancel()
	a.stats.Watches.Add(1)
	wch := a.cli.Watch(wctx, a.prefix+versionsDir, clientv3.WithPrefix(), clientv3.WithRev(rev+1))
	retry := time.NewTicker(time.Second)
	defer retry.Stop()
	for {
		if err := a.flush(ctx); err != nil {
			return true, err
		}
		select {
		case <-ctx.Done():
			return true, nil
		case resp, ok := <-wch:
			if !ok {
				return true, errors.New("watch closed")
			}
			if err := resp.Err(); err != nil {
				return true, fmt.Errorf("watch: %w", err)
			}
			a.apply(resp.Events)
		case <-a.wake:
		case <-retry.C:
		}
	}
}

// load reads every record into the mirror (replacing it) in pages, at
// one revision, and returns that revision. The records created since the
// oldest mark known (in etcd or here) keep their revisions: a late copy
// of a version is then judged against the marks exactly (late.go).
func (a *Agreement) load(ctx context.Context) (int64, error) {
	rev, oldest, err := a.oldestMark(ctx)
	if err != nil {
		return 0, err
	}
	mirror := map[vkey]int64{}
	var recent []revAt
	from, end := a.prefix+versionsDir, clientv3.GetPrefixRangeEnd(a.prefix+versionsDir)
	for {
		rctx, cancel := context.WithTimeout(ctx, requestTimeout)
		resp, err := a.cli.Get(rctx, from, clientv3.WithRange(end), clientv3.WithLimit(pageSize), clientv3.WithRev(rev))
		cancel()
		a.stats.Ranges.Add(1)
		if err != nil {
			return 0, fmt.Errorf("read the fleet's records: %w", err)
		}
		for _, kv := range resp.Kvs {
			if k, ok := a.put(mirror, kv); ok && oldest > 0 && kv.ModRevision >= oldest {
				recent = append(recent, revAt{k, kv.ModRevision})
			}
		}
		if !resp.More || len(resp.Kvs) == 0 {
			break
		}
		from = string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
	}
	a.mu.Lock()
	a.mirror = mirror
	a.loadedAt(rev, oldest, recent)
	a.mu.Unlock()
	a.log.Debug("fleet records loaded", zap.Int("records", len(mirror)), zap.Int64("revision", rev))
	return rev, nil
}

// oldestMark returns the revision the records are to be read at, and
// the revision of the oldest mark at it or kept here (0: none).
func (a *Agreement) oldestMark(ctx context.Context) (rev, oldest int64, err error) {
	rctx, cancel := context.WithTimeout(ctx, requestTimeout)
	resp, err := a.cli.Get(rctx, a.prefix+sentDir, clientv3.WithPrefix(), clientv3.WithKeysOnly(),
		clientv3.WithSort(clientv3.SortByModRevision, clientv3.SortAscend), clientv3.WithLimit(1))
	cancel()
	a.stats.Ranges.Add(1)
	if err != nil {
		return 0, 0, fmt.Errorf("read the fleet's marks: %w", err)
	}
	if len(resp.Kvs) > 0 {
		oldest = resp.Kvs[0].ModRevision
	}
	a.mu.Lock()
	for _, eps := range a.marks {
		for _, m := range eps {
			if oldest == 0 || m.rev < oldest {
				oldest = m.rev
			}
		}
	}
	a.mu.Unlock()
	return resp.Header.Revision, oldest, nil
}

// put adds a record to mirror, returning its version; a key that is not
// one is ignored (false).
func (a *Agreement) put(mirror map[vkey]int64, kv *mvccpb.KeyValue) (vkey, bool) {
	k, ok := parseKey(a.prefix, kv.Key)
	if !ok {
		return k, false
	}
	t, err := decodeTime(kv.Value)
	if err != nil {
		a.log.Warn("fleet: a record sitemapd cannot read; ignored", zap.ByteString("key", kv.Key), zap.Error(err))
		return k, false
	}
	mirror[k] = t
	return k, true
}

// apply applies watched events to the mirror: a version another server
// recorded settles this server's claim on it.
func (a *Agreement) apply(evs []*clientv3.Event) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, ev := range evs {
		k, ok := parseKey(a.prefix, ev.Kv.Key)
		if !ok {
			continue
		}
		if ev.Type == clientv3.EventTypeDelete {
			if t, ok := a.mirror[k]; ok { // another server's: this one's deleted it already
				a.orphan(k, t)
			}
			delete(a.mirror, k)
			continue
		}
		a.put(a.mirror, ev.Kv)
		a.recorded(k, ev.Kv.ModRevision)
		if c, queued := a.queue[k]; queued {
			delete(a.queue, k)
			a.settled(c, a.mirror[k])
		} else if was, ok := a.orphans[k]; ok {
			a.recreated(k, was)
		}
	}
}

// flush records the queue, a batch a transaction, until it is empty.
func (a *Agreement) flush(ctx context.Context) error {
	for {
		batch := a.batch()
		if len(batch) == 0 {
			return nil
		}
		if err := a.create(ctx, batch); err != nil {
			return err
		}
	}
}

type queued struct {
	k vkey
	c claim
}

// batch takes the next versions to record, as many as one transaction
// holds; those the mirror has meanwhile are settled instead.
func (a *Agreement) batch() []queued {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []queued
	ops := 0
	for k, c := range a.queue {
		if t, ok := a.mirror[k]; ok {
			delete(a.queue, k)
			a.settled(c, t)
			continue
		}
		n := 1
		if c.hasPrev {
			n = 2
		}
		if ops+n > maxTxnOps {
			break
		}
		ops += n
		out = append(out, queued{k, c})
	}
	return out
}

// create records a batch with one transaction: each key created if it
// does not exist, and the versions they replace deleted. If any exists
// (another server recorded it first), the transaction reads them all
// instead, and those found are settled with the fleet's time; the others
// stay queued for the next batch.
func (a *Agreement) create(ctx context.Context, batch []queued) error {
	var cmps []clientv3.Cmp
	var puts, gets []clientv3.Op
	for _, q := range batch {
		key := etcdKey(a.prefix, q.k)
		cmps = append(cmps, clientv3.Compare(clientv3.Version(key), "=", 0))
		puts = append(puts, clientv3.OpPut(key, string(encodeTime(q.c.local))))
		if q.c.hasPrev {
			puts = append(puts, clientv3.OpDelete(etcdKey(a.prefix, q.c.prev)))
		}
		gets = append(gets, clientv3.OpGet(key))
	}
	rctx, cancel := context.WithTimeout(ctx, requestTimeout)
	resp, err := a.cli.Txn(rctx).If(cmps...).Then(puts...).Else(gets...).Commit()
	cancel()
	a.stats.Txns.Add(1)
	if err != nil {
		return fmt.Errorf("record %d versions: %w", len(batch), err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if resp.Succeeded {
		for _, q := range batch {
			a.mirror[q.k] = q.c.local
			a.recorded(q.k, resp.Header.Revision)
			if q.c.hasPrev {
				delete(a.mirror, q.c.prev)
			}
			delete(a.queue, q.k)
		}
		a.stats.Created.Add(int64(len(batch)))
		a.written += int64(len(puts))
		a.maybeCompact(resp.Header.Revision)
		return nil
	}
	for _, r := range resp.Responses {
		for _, kv := range r.GetResponseRange().Kvs {
			a.put(a.mirror, kv)
			if k, ok := parseKey(a.prefix, kv.Key); ok {
				a.recorded(k, kv.ModRevision)
			}
		}
	}
	for _, q := range batch {
		if t, ok := a.mirror[q.k]; ok {
			delete(a.queue, q.k)
			a.settled(q.c, t)
		}
	}
	return nil
}

// maybeCompact compacts etcd's history once compactEvery revisions were
// written since the last compaction this server made, keeping the last
// keepRevisions (a watch that lags further loads the records again). a.mu
// is held; the request runs on its own.
func (a *Agreement) maybeCompact(rev int64) {
	if a.compacted == 0 {
		a.compacted = rev
		return
	}
	if rev-a.compacted < compactEvery && a.written < compactWrites {
		return
	}
	a.compacted, a.written = rev, 0
	a.stats.Compactions.Add(1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
		defer cancel()
		// Another server may have compacted past it: that is no error.
		if _, err := a.cli.Compact(ctx, rev-keepRevisions); err != nil {
			a.log.Debug("fleet: compaction", zap.Error(err))
		}
	}()
}
