package fleet

// The fleet's ledger of notifications: what its leader sent, so that the
// others forget it and a new leader sends only what nobody sent.
//
// Before a batch goes to an endpoint, the leader records it as in flight
// (<prefix>inflight/<endpoint>: the writer and the batch's URL hashes).
// Once the endpoint accepted it, one transaction marks it sent
// (<prefix>sent/<endpoint>/<lease>, the same value, on a lease of
// SentTTL, so that the marks go by themselves) and deletes the in-flight
// record. The other servers watch the marks and forget the URLs they owed
// that endpoint (ping.Notifier.Forget). A leader that dies between the
// endpoint's answer and the mark leaves the in-flight record: the next
// leader counts it (the batch may be sent twice, as the others still owe
// it) and deletes it. So a change is sent twice at most once per
// endpoint and handover, in one batch (at most ping.IndexNowBatch URLs).

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

const (
	sentDir   = "sent/"
	flightDir = "inflight/"
	// SentTTL is how long a mark stays in etcd, in seconds: long enough
	// for a follower cut off from etcd a while to read it when it is back;
	// what it misses stays owed, and is sent again if it leads (a
	// duplicate, never a loss).
	SentTTL = 3600
	hashLen = 12
)

// urlHash is what a mark holds of a URL: the first 12 bytes of its
// SHA-256 (two URLs share one with a chance of about 1 in 10^28).
func urlHash(u string) string {
	s := sha256.Sum256([]byte(u))
	return string(s[:hashLen])
}

// Ledger is a server's view of the fleet's ledger (ping.Ledger, for the
// leader's notifier; Watch, for every server's).
type Ledger struct {
	a    *Agreement
	name string // this server's

	Resent     atomic.Int64 // in-flight batches found by a new leader: sent twice, maybe
	ResentURLs atomic.Int64 // their URLs
	Forgotten  atomic.Int64 // URLs this server forgot as another server sent them
}

// Ledger returns the ledger's view for this server (name).
func (a *Agreement) Ledger(name string) *Ledger { return &Ledger{a: a, name: name} }

func (l *Ledger) endpointKey(endpoint string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(endpoint))
}

// encodeBatch is a record's value: the writer's name, a NUL, the URLs'
// hashes.
func (l *Ledger) encodeBatch(urls []string) string {
	var b strings.Builder
	b.Grow(len(l.name) + 1 + hashLen*len(urls))
	b.WriteString(l.name)
	b.WriteByte(0)
	for _, u := range urls {
		b.WriteString(urlHash(u))
	}
	return b.String()
}

func decodeBatch(v []byte) (writer string, hashes map[string]bool, err error) {
	i := strings.IndexByte(string(v), 0)
	if i < 0 || (len(v)-i-1)%hashLen != 0 {
		return "", nil, errors.New("not a ledger record")
	}
	hashes = make(map[string]bool, (len(v)-i-1)/hashLen)
	for p := i + 1; p < len(v); p += hashLen {
		hashes[string(v[p:p+hashLen])] = true
	}
	return string(v[:i]), hashes, nil
}

// Sending records a batch as in flight to endpoint, before its request.
// An error keeps the batch owed: without the record, a death after the
// endpoint's answer would go uncounted.
func (l *Ledger) Sending(ctx context.Context, endpoint string, urls []string) error {
	rctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	l.a.stats.Txns.Add(1)
	if _, err := l.a.cli.Put(rctx, l.a.prefix+flightDir+l.endpointKey(endpoint), l.encodeBatch(urls)); err != nil {
		return fmt.Errorf("record the batch in flight in the fleet's ledger: %w", err)
	}
	return nil
}

// Sent marks a batch the endpoint accepted, and clears it from flight.
// It goes on when the leadership is being lost: a mark is only ever
// information for the others.
func (l *Ledger) Sent(ctx context.Context, endpoint string, urls []string) error {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), requestTimeout)
	defer cancel()
	l.a.stats.Txns.Add(2)
	lease, err := l.a.cli.Grant(rctx, SentTTL)
	if err != nil {
		return fmt.Errorf("mark the batch sent in the fleet's ledger: grant a lease: %w", err)
	}
	ek := l.endpointKey(endpoint)
	key := l.a.prefix + sentDir + ek + "/" + strconv.FormatInt(int64(lease.ID), 16)
	_, err = l.a.cli.Txn(rctx).Then(
		clientv3.OpPut(key, l.encodeBatch(urls), clientv3.WithLease(lease.ID)),
		clientv3.OpDelete(l.a.prefix+flightDir+ek),
	).Commit()
	if err != nil {
		return fmt.Errorf("mark the batch sent in the fleet's ledger: %w", err)
	}
	return nil
}

// TakeOver is a new leader's first step: the batches found in flight were
// sent by a leader that died (or lost etcd) before it could mark them,
// or were not accepted; either way this server may send them again. They
// are counted (Resent, ResentURLs) and cleared.
func (l *Ledger) TakeOver(ctx context.Context) error {
	rctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	l.a.stats.Ranges.Add(1)
	resp, err := l.a.cli.Get(rctx, l.a.prefix+flightDir, clientv3.WithPrefix())
	if err != nil {
		return fmt.Errorf("read the fleet's batches in flight: %w", err)
	}
	for _, kv := range resp.Kvs {
		writer, hashes, derr := decodeBatch(kv.Value)
		if derr != nil {
			continue
		}
		l.Resent.Add(1)
		l.ResentURLs.Add(int64(len(hashes)))
		l.a.log.Warn("fleet: a batch was in flight when the last leader stopped: its URLs may be sent twice",
			zap.String("previous", writer), zap.Int("urls", len(hashes)))
		l.a.stats.Txns.Add(1)
		// Only if unchanged since read: another leader's newer batch stays.
		if _, err := l.a.cli.Txn(rctx).If(clientv3.Compare(clientv3.ModRevision(string(kv.Key)), "=", kv.ModRevision)).
			Then(clientv3.OpDelete(string(kv.Key))).Commit(); err != nil {
			return fmt.Errorf("clear a batch in flight: %w", err)
		}
	}
	return nil
}

// Forgetter forgets, of what endpoint is owed, the URLs sent reports
// (ping.Notifier.Forget).
type Forgetter func(endpoint string, sent func(url string) bool) int

// Watch reads the marks, then watches them, until ctx is done, and has
// forget drop from this server's record what another server sent. It
// reads them again after a failure (with backoff): a mark applied twice
// forgets nothing more.
func (l *Ledger) Watch(ctx context.Context, forget Forgetter) {
	backoff := time.Second
	for ctx.Err() == nil {
		err := l.watchOnce(ctx, forget)
		if ctx.Err() != nil {
			return
		}
		l.a.log.Debug("fleet: watching the ledger", zap.Error(err))
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 10*time.Second)
	}
}

func (l *Ledger) watchOnce(ctx context.Context, forget Forgetter) error {
	rctx, cancel := context.WithTimeout(ctx, requestTimeout)
	l.a.stats.Ranges.Add(1)
	resp, err := l.a.cli.Get(rctx, l.a.prefix+sentDir, clientv3.WithPrefix())
	cancel()
	if err != nil {
		return err
	}
	for _, kv := range resp.Kvs {
		l.apply(kv.Key, kv.Value, kv.ModRevision, forget)
	}
	wctx, wcancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	defer wcancel()
	l.a.stats.Watches.Add(1)
	wch := l.a.cli.Watch(wctx, l.a.prefix+sentDir, clientv3.WithPrefix(), clientv3.WithRev(resp.Header.Revision+1))
	for wr := range wch {
		if err := wr.Err(); err != nil {
			return err
		}
		for _, ev := range wr.Events {
			if ev.Type == clientv3.EventTypePut {
				l.apply(ev.Kv.Key, ev.Kv.Value, ev.Kv.ModRevision, forget)
			}
		}
	}
	return errors.New("watch closed")
}

// apply has forget drop a mark's URLs, unless this server wrote it: its
// notifier forgot them when they were accepted, and owes them again only
// if they changed since.
func (l *Ledger) apply(key, value []byte, rev int64, forget Forgetter) {
	rest := strings.TrimPrefix(string(key), l.a.prefix+sentDir)
	i := strings.IndexByte(rest, '/')
	if i < 0 {
		return
	}
	ep, err := base64.RawURLEncoding.DecodeString(rest[:i])
	writer, hashes, derr := decodeBatch(value)
	if err != nil || derr != nil || writer == l.name {
		return
	}
	l.a.noteMark(string(ep), hashes, rev)
	n := forget(string(ep), func(u string) bool { return hashes[urlHash(u)] })
	l.Forgotten.Add(int64(n))
}
