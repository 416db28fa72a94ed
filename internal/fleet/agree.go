package fleet

import (
	"context"
	"path"
	"sync"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/config"
)

// Agreement is one site's agreement with its fleet: the mirror of the
// records, the versions this server is to record, and the pages and
// files whose time the fleet settled otherwise after they were published.
// Agree and AgreeFile are safe for concurrent use (a walk's goroutines).
type Agreement struct {
	cli    *clientv3.Client
	prefix string
	log    *zap.Logger

	mu     sync.Mutex
	mirror map[vkey]int64      // the fleet's records: version -> time
	queue  map[vkey]claim      // versions to record, this server's times
	files  map[string]vkey     // each sitemap file's last version asked for
	redo   map[string][]string // pages to read again: dir -> names
	index  bool                // a file's time changed: the index again
	// orphans are versions this server had in its mirror whose record
	// another server deleted (it moved on): this server may still publish
	// them, with the time they had. One created again with another time
	// (its server came back to those bytes: a rollback, a page added and
	// removed) has every page read again (reread): which pages hold it
	// is not known, only its hash.
	orphans map[vkey]int64
	reread  bool
	health  health
	// compacted is the revision of this server's last compaction;
	// written, the keys it wrote since.
	compacted, written int64
	leading            bool // Lead: this server leads now
	// Late copies (late.go): the marks of others, the revisions of
	// recent versions, the URLs published that were sent already.
	marks          map[string]map[string]markRec // URL hash -> endpoint -> its latest mark
	fresh          map[vkey]int64
	floor, lastRev int64
	swept          int64 // lastRev at the last sweep
	nextPrune      time.Time
	sent           map[string]map[string]bool // endpoint -> URLs
	adopted        map[string]bool            // URLs
	pageURL        func(rel string) string
	digest         Digest    // of this server's sitemaps (digest.go)
	dg             *digester // Published's; its goroutine only

	loaded  chan struct{} // closed at the first load
	once    sync.Once
	wake    chan struct{} // the queue grew
	changed chan struct{} // redo or index set
	// digestWake: the digest changed (announce writes it)
	digestWake chan struct{}
	stats      Stats
}

// claim is a version this server published its own time for, not yet
// recorded.
type claim struct {
	rel     string
	local   int64
	prev    vkey // the version it replaces, whose record is deleted with its creation
	hasPrev bool
	same    bool // the page's bytes are those this server knew (late.go)
}

// Stats count the requests made to etcd, for the metrics and measures
// (bench/README.md).
type Stats struct {
	Txns, Ranges, Compactions, Watches atomic.Int64
	Created, Adopted                   atomic.Int64 // versions recorded, taken from others
}

// New connects to the fleet's etcd (lazily: an unreachable cluster is
// no error here). Start must run for anything to be recorded.
func New(cfg *config.Fleet, log *zap.Logger) (*Agreement, error) {
	tlsc, err := cfg.Etcd.TLS()
	if err != nil {
		return nil, err
	}
	pw, err := cfg.Etcd.Password()
	if err != nil {
		return nil, err
	}
	cli, err := clientv3.New(clientv3.Config{
		Endpoints: cfg.Etcd.Endpoints, TLS: tlsc, Username: cfg.Etcd.Username, Password: pw,
		DialTimeout: 5 * time.Second, DialKeepAliveTime: 10 * time.Second, DialKeepAliveTimeout: 5 * time.Second,
		// The client's own logs are its retries, at info level: ours say
		// what they mean for the site.
		Logger: log.Named("etcd").WithOptions(zap.IncreaseLevel(zap.ErrorLevel)),
	})
	if err != nil {
		return nil, err
	}
	return newAgreement(cli, cfg.Prefix, log), nil
}

func newAgreement(cli *clientv3.Client, prefix string, log *zap.Logger) *Agreement {
	return &Agreement{
		cli: cli, prefix: prefix, log: log,
		mirror: map[vkey]int64{}, queue: map[vkey]claim{}, marks: map[string]map[string]markRec{}, fresh: map[vkey]int64{}, sent: map[string]map[string]bool{}, adopted: map[string]bool{}, files: map[string]vkey{}, redo: map[string][]string{}, orphans: map[vkey]int64{},
		loaded: make(chan struct{}), wake: make(chan struct{}, 1), changed: make(chan struct{}, 1), digestWake: make(chan struct{}, 1),
		health: health{since: time.Now(), reason: "not connected yet"},
	}
}

// Close closes the connection to etcd.
func (a *Agreement) Close() error { return a.cli.Close() }

// Agree returns the time to publish for the page at rel (root-relative)
// whose bytes hash to sum: the fleet's, if a server recorded this
// version, else local, the time this server decided, which is queued to
// be recorded. prev is the hash of the bytes this server knew of it
// before (0: none), whose record goes when this one is created.
func (a *Agreement) Agree(rel string, sum, prev uint64, local int64) int64 {
	k := versionOf(rel, sum)
	var pk vkey
	if prev != 0 && prev != sum {
		pk = versionOf(rel, prev)
	}
	return a.agree(k, claim{rel: rel, local: local, prev: pk, hasPrev: prev != 0 && prev != sum, same: prev != 0 && prev == sum})
}

// AgreeFile returns the time to publish in the index for the sitemap file
// name (relative to the output root) whose bytes hash to sum: the
// fleet's for these bytes, or local, queued to be recorded.
func (a *Agreement) AgreeFile(name string, sum uint64, local int64) int64 {
	k := versionOf(fileMark+name, sum)
	a.mu.Lock()
	pk, had := a.files[name]
	a.files[name] = k
	a.mu.Unlock()
	return a.agree(k, claim{rel: fileMark + name, local: local, prev: pk, hasPrev: had && pk != k})
}

func (a *Agreement) agree(k vkey, c claim) int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	if t, ok := a.mirror[k]; ok {
		a.checkOwed(k, c, t)
		return t
	}
	if q, ok := a.queue[k]; ok {
		return q.local
	}
	delete(a.orphans, k) // this server creates it: its own time
	a.queue[k] = c
	select {
	case a.wake <- struct{}{}:
	default:
	}
	return c.local
}

// Changed is signalled when the fleet settled a time otherwise than this
// server published it: Take says what to publish again.
func (a *Agreement) Changed() <-chan struct{} { return a.changed }

// Take returns, and forgets, the pages to read again (directory ->
// names) and whether the index is to be written again (a sitemap file's
// time changed).
func (a *Agreement) Take() (pages map[string][]string, index bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	pages, index = a.redo, a.index
	a.redo, a.index = map[string][]string{}, false
	return pages, index
}

// Reread returns, and forgets, whether every page is to be read again:
// a version this server may publish came back with another time (orphan).
func (a *Agreement) Reread() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	r := a.reread
	a.reread = false
	return r
}

// maxOrphans bounds the orphans remembered (some 40 bytes each): past it
// they are forgotten, and a rollback on one server of a version deleted
// before then is agreed at the next full walk (watch.rescan).
const maxOrphans = 1 << 16

// orphan notes that another server deleted the record of version k,
// which had time t here; a.mu is held.
func (a *Agreement) orphan(k vkey, t int64) {
	if len(a.orphans) >= maxOrphans {
		clear(a.orphans)
	}
	a.orphans[k] = t
}

// recreated notes that orphan k was recorded again, with the mirror's
// time now: if it differs from the one published, the sitemap file that
// has it takes it into the index, or, a page's, every page is read
// again; a.mu is held.
func (a *Agreement) recreated(k vkey, was int64) {
	delete(a.orphans, k)
	if a.mirror[k] == was {
		return
	}
	a.index, a.reread = true, true
	for _, f := range a.files {
		if f == k { // a sitemap file's: the index is enough
			a.reread = false
		}
	}
	select {
	case a.changed <- struct{}{}:
	default:
	}
}

// settled notes that version k of c, published with c.local, is recorded
// with time t; a.mu is held.
func (a *Agreement) settled(c claim, t int64) {
	if t == c.local {
		return
	}
	a.stats.Adopted.Add(1)
	if len(c.rel) > 0 && c.rel[0] == fileMark[0] {
		a.index = true
	} else {
		dir, name := path.Split(c.rel)
		dir = path.Clean(dir)
		if dir == "." {
			dir = ""
		}
		a.redo[dir] = append(a.redo[dir], name)
	}
	select {
	case a.changed <- struct{}{}:
	default:
	}
}

// WaitLoaded waits until the fleet's records were read once (so that a
// server's first publish adopts the fleet's times), or ctx is done.
func (a *Agreement) WaitLoaded(ctx context.Context) error {
	select {
	case <-a.loaded:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Pending is how many versions wait to be recorded.
func (a *Agreement) Pending() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.queue)
}

// Requests is the number of requests made to etcd so far (transactions,
// range reads, compactions, watches opened).
func (a *Agreement) Requests() int64 {
	s := &a.stats
	return s.Txns.Load() + s.Ranges.Load() + s.Compactions.Load() + s.Watches.Load()
}

// Adopted is how many versions this server published with its own time
// whose time another server had recorded first.
func (a *Agreement) Adopted() int64 { return a.stats.Adopted.Load() }
