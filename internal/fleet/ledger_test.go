package fleet

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/fleet/etcdtest"
	"github.com/sitemapd/sitemapd/internal/indexnowtest"
	"github.com/sitemapd/sitemapd/internal/ping"
)

// counts returns how many URLs the receiver accepted, and how many of
// them more than once (the repeats).
func counts(r *indexnowtest.Receiver) (urls, repeats int) {
	for _, n := range r.Counts(0) {
		urls++
		repeats += n - 1
	}
	return urls, repeats
}

// switchable is the ledger a notifier is given, which a test points at a
// server's ledger, or at one whose server dies after the endpoint's
// answer.
type switchable struct {
	mu sync.Mutex
	l  ping.Ledger
}

func (s *switchable) set(l ping.Ledger) { s.mu.Lock(); s.l = l; s.mu.Unlock() }
func (s *switchable) get() ping.Ledger  { s.mu.Lock(); defer s.mu.Unlock(); return s.l }
func (s *switchable) Sending(ctx context.Context, ep string, urls []string) error {
	return s.get().Sending(ctx, ep, urls)
}
func (s *switchable) Sent(ctx context.Context, ep string, urls []string) error {
	return s.get().Sent(ctx, ep, urls)
}

// diesAfterAnswer is a leader that dies once the endpoint accepted a
// batch, before it marks it: what reaches etcd is the in-flight record.
type diesAfterAnswer struct{ *Ledger }

func (diesAfterAnswer) Sent(context.Context, string, []string) error { return nil }

// notifier is a server's real notifier, owing to one IndexNow endpoint
// at url, recording its sends in l.
func notifier(t *testing.T, url string, l ping.Ledger) *ping.Notifier {
	t.Helper()
	root, state := t.TempDir(), t.TempDir()
	yml := fmt.Sprintf("root: %q\nbase_url: https://static.test/\nstate_dir: %q\nnotify:\n  attempts: 1\n  endpoints: [{name: engine, kind: indexnow, url: %q, key: 0123456789abcdef}]\n",
		root, state, url)
	cfg, err := config.Load([]byte(yml), filepath.Join(root, "test.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	n, err := ping.New(cfg, zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel)), ping.WithLedger(l))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

func pageURLs(from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("https://static.test/p%04d.html", i))
	}
	return out
}

func owed(n *ping.Notifier) int { return n.Stats()[0].Owed }

func watch(t *testing.T, l *Ledger, n *ping.Notifier) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { l.Watch(ctx, n.Forget); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

// A follower forgets what the leader's endpoint accepted, and only that:
// what it owes that the leader did not send stays owed.
func TestLedgerFollowerForgets(t *testing.T) {
	c := etcdtest.Start(t, 3)
	const prefix = "/ledger/"
	a, b := server(t, c, prefix), server(t, c, prefix)
	recv := indexnowtest.Start(t)
	la, lb := a.Ledger("web-a"), b.Ledger("web-b")
	na, nb := notifier(t, recv.URL, la), notifier(t, recv.URL, lb)
	watch(t, la, na)
	watch(t, lb, nb)
	if err := na.Note(pageURLs(0, 250), nil, false, false); err != nil {
		t.Fatal(err)
	}
	// b saw the same 250 changes, and 50 the leader has not seen yet.
	if err := nb.Note(pageURLs(0, 300), nil, false, false); err != nil {
		t.Fatal(err)
	}
	if got := owed(nb); got != 300 {
		t.Fatalf("follower owes %d before any send, want 300", got)
	}
	for _, r := range na.Flush(context.Background()) {
		if r.Err != nil || r.Sent != 250 {
			t.Fatalf("leader's flush: %+v", r)
		}
	}
	// (Counted just after the notifier forgot.)
	eventually(t, "the follower forgets what the leader sent, and counts it", func() bool { return owed(nb) == 50 && lb.Forgotten.Load() == 250 })
	// The 50 still owed are those the leader did not send.
	plan := nb.Plan()
	if len(plan) != 1 || len(plan[0].URLs) != 50 || plan[0].URLs[0] != pageURLs(250, 251)[0] {
		t.Errorf("follower would send %+v, want p0250..p0299", plan)
	}
	// The mark cleared the batch from flight, and lives on a lease.
	for k := range records(t, c, prefix+flightDir) {
		t.Errorf("in flight after the mark: %s", k)
	}
	if n := len(records(t, c, prefix+sentDir)); n != 1 {
		t.Errorf("%d marks, want 1", n)
	}
}

// A leader that dies between the endpoint's answer and the mark: the
// next sends only what was not marked, which includes the batch in
// flight (sent twice, and counted), and nothing else twice.
func TestLedgerHandover(t *testing.T) {
	c := etcdtest.Start(t, 3)
	const prefix = "/handover/"
	a, b := server(t, c, prefix), server(t, c, prefix)
	recv := indexnowtest.Start(t)
	la, lb := a.Ledger("web-a"), b.Ledger("web-b")
	sa := &switchable{l: la}
	na, nb := notifier(t, recv.URL, sa), notifier(t, recv.URL, lb)
	watch(t, lb, nb)
	if err := nb.Note(pageURLs(0, 400), nil, false, false); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// a sends 300 changes, marked.
	na.Note(pageURLs(0, 300), nil, false, false)
	if r := na.Flush(ctx)[0]; r.Err != nil || r.Sent != 300 {
		t.Fatalf("first flush: %+v", r)
	}
	eventually(t, "the follower forgets the marked batch", func() bool { return owed(nb) == 100 })
	// Then 60 more, accepted, and a dies before marking them.
	sa.set(diesAfterAnswer{la})
	na.Note(pageURLs(300, 360), nil, false, false)
	if r := na.Flush(ctx)[0]; r.Err != nil || r.Sent != 60 {
		t.Fatalf("second flush: %+v", r)
	}
	if n := len(records(t, c, prefix+flightDir)); n != 1 {
		t.Fatalf("%d batches in flight after the death, want 1", n)
	}
	// b takes over: it finds the batch in flight, counts it, and sends
	// what it still owes.
	if err := lb.TakeOver(ctx); err != nil {
		t.Fatal(err)
	}
	if lb.Resent.Load() != 1 || lb.ResentURLs.Load() != 60 {
		t.Errorf("counted %d batches, %d URLs possibly sent twice; want 1, 60", lb.Resent.Load(), lb.ResentURLs.Load())
	}
	if n := len(records(t, c, prefix+flightDir)); n != 0 {
		t.Errorf("%d batches in flight after the takeover, want 0", n)
	}
	if r := nb.Flush(ctx)[0]; r.Err != nil || r.Sent != 100 {
		t.Fatalf("new leader's flush: %+v, want the 100 not marked", r)
	}
	urls, repeats := counts(recv)
	if urls != 400 || repeats != 60 {
		t.Errorf("receiver got %d URLs, %d repeats; want all 400, the 60 in flight repeated", urls, repeats)
	}
}
