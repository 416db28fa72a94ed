package daemon

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/fleet/etcdtest"
)

// TestFleetModel is the randomized model test against a fleet of three:
// three daemons, each on its own copy of the site, share one real 3-member
// etcd cluster and one IndexNow receiver on 127.0.0.1. A seeded sequence of
// page operations (add, content edit, template-only edit, remove, rename)
// reaches the three copies in a random order, with different mtimes, some
// of them one copy late (after the others published). At each quiet moment
// after the copies agree, every sitemap file and the index have the same
// bytes on the three, they list the model's URLs, and the receiver got
// exactly the URLs whose substance changed, each once, from the one server
// that leads.
//
// Budget: 2 seeds of 20 operations (SITEMAPD_FLEET_MODEL_SEEDS=n runs n).
func TestFleetModel(t *testing.T) {
	cluster := etcdtest.Start(t, 3)
	seeds := []uint64{1, 2}
	if n, err := strconv.Atoi(os.Getenv("SITEMAPD_FLEET_MODEL_SEEDS")); err == nil && n > 0 {
		seeds = seeds[:0]
		for i := range n {
			seeds = append(seeds, uint64(i+1))
		}
	}
	if testing.Short() {
		seeds = seeds[:1]
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			f := startFleetModel(t, cluster, seed)
			f.play(20)
		})
	}
}

// fleetModel is one sequence: the three servers, the receiver and what
// the site should be.
type fleetModel struct {
	t       *testing.T
	r       *rand.Rand
	servers []*harness
	rcv     *receiver
	pages   map[string]page // the model: each page of the site by path
	n       int             // names given
	syncs   int             // sync pages written
	// notified counts the URLs the receiver should have had, in all.
	notified map[string]int
	// templated is the URLs of this round's template-only edits, named
	// apart when one is sent: under load, a fleet's full republish once
	// read such a page while its writer had it truncated (seed 2, round
	// 4), and the empty file and the write were two changes, the second
	// owed (session.betweenBatches now keeps such a page's version).
	templated map[string]bool
}

// page is what a page of the model says: its name (the path it was
// added at: a rename moves what it says, unchanged), its content version,
// and its template's (a script and a build stamp, which are no content).
type page struct {
	id                string
	content, template int
}

// body is the page's file.
func (p page) body() []byte {
	return []byte(fmt.Sprintf("<!doctype html><html><head><title>%s, version %d</title><script src=\"/app.%d.js\"></script></head>"+
		"<body><main><h1>%s</h1><p>The text of %s in its version %d, which says something of its own.</p></main>"+
		"<!-- built %d --></body></html>\n", p.id, p.content, p.template, p.id, p.id, p.content, p.template))
}

// startFleetModel starts the three servers one after another on copies
// holding only index.html, on a key prefix of their own in the cluster.
func startFleetModel(t *testing.T, cluster *etcdtest.Cluster, seed uint64) *fleetModel {
	f := &fleetModel{t: t, r: rand.New(rand.NewPCG(seed, seed)), rcv: newReceiver(t), notified: map[string]int{},
		pages: map[string]page{"index.html": {id: "index.html"}}}
	for i := range 3 {
		name := fmt.Sprintf("web%d", i+1)
		body := testConfig + "shrink_guard: false\n" +
			fmt.Sprintf("fleet:\n  etcd: {endpoints: [%s]}\n  prefix: /sitemapd/model-%d/\n  name: %s\n",
				strings.Join(cluster.Endpoints(), ", "), seed, name) +
			fmt.Sprintf("notify: {attempts: 1, endpoints: [{name: in, kind: indexnow, url: %q, key: 0123456789abcdef, delay: 1s}]}\n",
				f.rcv.URL+"/"+name)
		h := startNamed(t, name, body)
		f.servers = append(f.servers, h)
	}
	// index.html as the model has it, in every copy.
	for _, h := range f.servers {
		f.writePage(h, "index.html", f.pages["index.html"])
	}
	f.quiet(0, []string{"index.html"})
	return f
}

// play runs rounds of one to four operations, ops in all.
func (f *fleetModel) play(ops int) {
	for round := 1; ops > 0; round++ {
		k := min(ops, 1+f.r.IntN(4))
		ops -= k
		f.round(round, k)
	}
}

// op is one operation of the model, applied to a copy by apply.
type op struct {
	what     string
	rel, to  string // the page, and for a rename its new path
	before   page   // the page before (for a rename, what moves)
	after    page
	notified []string // the site paths whose substance changed
}

// round makes k operations on distinct pages, has them reach the copies
// (some one copy late), and checks the quiet moment that follows.
func (f *fleetModel) round(round, k int) {
	t := f.t
	mark := f.rcv.Mark()
	touched := map[string]bool{}
	var ops []op
	for range k {
		o := f.pick(touched)
		t.Logf("round %d: %s %s %s", round, o.what, o.rel, o.to)
		ops = append(ops, o)
	}
	// Each operation reaches the copies in a random order; one time in
	// three, one copy gets it only after the others published.
	type delivery struct {
		o    op
		copy int
	}
	var now, late []delivery
	for _, o := range ops {
		lateCopy := -1
		if f.r.IntN(3) == 0 {
			lateCopy = f.r.IntN(3)
		}
		for c := range 3 {
			if c == lateCopy {
				late = append(late, delivery{o, c})
			} else {
				now = append(now, delivery{o, c})
			}
		}
	}
	f.r.Shuffle(len(now), func(i, j int) { now[i], now[j] = now[j], now[i] })
	for _, d := range now {
		f.apply(f.servers[d.copy], d.o)
		if f.r.IntN(4) == 0 {
			f.sync() // the copies published midway, some ahead of others
		}
	}
	if len(late) > 0 {
		f.sync()
		for _, d := range late {
			t.Logf("round %d: %s %s reaches web%d late", round, d.o.what, d.o.rel, d.copy+1)
			f.apply(f.servers[d.copy], d.o)
		}
	}
	var want []string
	f.templated = map[string]bool{}
	for _, o := range ops {
		want = append(want, o.notified...)
		if o.what == "template edit" {
			f.templated[pageURL(o.rel)] = true
		}
	}
	f.quiet(mark, want)
}

// pick chooses an operation on a page no other operation of the round
// touches, and applies it to the model.
func (f *fleetModel) pick(touched map[string]bool) op {
	var free []string
	for rel := range f.pages {
		if !touched[rel] {
			free = append(free, rel)
		}
	}
	slices.Sort(free)
	kind := f.r.IntN(5)
	if len(free) < 2 { // keep a page or two to change
		kind = 0
	}
	if kind == 0 {
		rel := f.newName()
		touched[rel] = true
		f.pages[rel] = page{id: rel, content: 1}
		return op{what: "add", rel: rel, after: f.pages[rel], notified: []string{rel}}
	}
	rel := free[f.r.IntN(len(free))]
	touched[rel] = true
	p := f.pages[rel]
	switch kind {
	case 1:
		f.pages[rel] = page{id: p.id, content: p.content + 1, template: p.template}
		return op{what: "content edit", rel: rel, before: p, after: f.pages[rel], notified: []string{rel}}
	case 2:
		f.pages[rel] = page{id: p.id, content: p.content, template: p.template + 1}
		return op{what: "template edit", rel: rel, before: p, after: f.pages[rel]}
	case 3:
		delete(f.pages, rel)
		return op{what: "remove", rel: rel, before: p, notified: []string{rel}}
	default:
		to := f.newName()
		touched[to] = true
		delete(f.pages, rel)
		f.pages[to] = p
		return op{what: "rename", rel: rel, to: to, before: p, after: p, notified: []string{rel, to}}
	}
}

var fleetDirs = []string{"", "a", "a/deep", "b"}

func (f *fleetModel) newName() string {
	f.n++
	return filepath.ToSlash(filepath.Join(fleetDirs[f.r.IntN(len(fleetDirs))], fmt.Sprintf("p%d.html", f.n)))
}

// apply makes an operation in one copy, giving what it writes an mtime of
// the copy's own, up to an hour ago.
func (f *fleetModel) apply(h *harness, o op) {
	switch o.what {
	case "add", "content edit", "template edit":
		f.writePage(h, o.rel, o.after)
	case "remove":
		if err := os.Remove(h.path(o.rel)); err != nil {
			f.t.Fatal(err)
		}
	case "rename":
		if err := os.MkdirAll(filepath.Dir(h.path(o.to)), 0o755); err != nil {
			f.t.Fatal(err)
		}
		if err := os.Rename(h.path(o.rel), h.path(o.to)); err != nil {
			f.t.Fatal(err)
		}
	}
}

// writePage writes a page into one copy, with an mtime of that copy's own.
func (f *fleetModel) writePage(h *harness, rel string, p page) {
	file := h.path(rel)
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(file, p.body(), 0o644); err != nil {
		f.t.Fatal(err)
	}
	mt := time.Now().Add(-time.Duration(1+f.r.IntN(3600)) * time.Second)
	if err := os.Chtimes(file, mt, mt); err != nil {
		f.t.Fatal(err)
	}
}

// quiet waits for the quiet moment after every copy holds the model: each
// daemon has seen its copy's every event (sync), the three publish the
// same bytes, listing the model's URLs, and the leader owes nothing. Then
// the receiver must have had, since the round began (mark), exactly the
// URLs of want, each once, from the leader; a URL twice only if the
// fleet's metrics count it resent.
func (f *fleetModel) quiet(mark int, want []string) {
	t := f.t
	f.sync()
	model := f.modelURLs()
	f.waitUntil("the three copies' sitemaps to agree and list the model's URLs", func() (bool, string) {
		first := fileSums(t, f.servers[0].root)
		for i, h := range f.servers {
			if got := listedURLs(t, h.root); !slices.Equal(got, model) {
				return false, fmt.Sprintf("web%d lists %q, the model %q", i+1, got, model)
			}
			if got := fileSums(t, h.root); i > 0 && !maps.Equal(got, first) {
				k := firstDiff(first, got)
				a, _ := os.ReadFile(filepath.Join(f.servers[0].root, k))
				b, _ := os.ReadFile(filepath.Join(h.root, k))
				return false, fmt.Sprintf("web1 and web%d differ in %s:\n%s\nweb%d:\n%s", i+1, k, a, i+1, b)
			}
		}
		return true, ""
	})
	leader := f.leader()
	for _, u := range want {
		f.notified[pageURL(u)]++
	}
	f.waitUntil("the leader to have sent what it owes", func() (bool, string) {
		owed := f.servers[leader].owedURLs()
		got := f.rcv.pages(mark)
		var missing []string
		for _, u := range want {
			if got[pageURL(u)] == 0 {
				missing = append(missing, pageURL(u))
			}
		}
		return len(owed) == 0 && len(missing) == 0, fmt.Sprintf("web%d owes %q; not received: %q", leader+1, owed, missing)
	})
	f.checkReceived(mark, want, leader)
}

// sync waits until every daemon has seen its copy's every event so far,
// as harness.sync does for one, with a page of the same name and bytes in
// every copy: the copies stay alike (a page added and removed on one copy
// only would bring that copy's sitemap back to bytes whose record another
// server deleted meanwhile: fleet.TestAgreeVersionComesBack).
func (f *fleetModel) sync() {
	f.t.Helper()
	f.syncs++
	name := fmt.Sprintf("zz-sync-fleet-%d.html", f.syncs)
	for _, h := range f.servers {
		h.write(name)
	}
	for _, h := range f.servers {
		h.waitFor(name+" published", func() bool { return h.rootSitemapHas(name) })
	}
	for _, h := range f.servers {
		os.Remove(h.path(name))
	}
	for _, h := range f.servers {
		h.waitFor(name+" unpublished", func() bool { return !h.rootSitemapHas(name) })
	}
}

// checkReceived checks what the receiver had since mark against want.
func (f *fleetModel) checkReceived(mark int, want []string, leader int) {
	t := f.t
	wanted := map[string]bool{}
	for _, u := range want {
		wanted[pageURL(u)] = true
	}
	resent := 0
	for _, h := range f.servers {
		resent += h.metric("sitemapd_fleet_resent_urls_total")
	}
	twice := 0
	for u, n := range f.rcv.pages(mark) {
		switch {
		case !wanted[u] && f.templated[u]:
			t.Errorf("IndexNow was sent %s (%d times) after a template-only edit", u, n)
		case !wanted[u]:
			t.Errorf("IndexNow was sent %s (%d times), whose substance did not change", u, n)
		case n > 1:
			twice += n - 1
		}
	}
	if twice > resent {
		t.Errorf("IndexNow was sent %d URLs again, the fleet's metrics count %d resent: %v", twice, resent, f.rcv.pages(mark))
	}
	if senders := f.rcv.Senders(mark); len(senders) > 1 || len(senders) == 1 && senders[0] != fmt.Sprintf("web%d", leader+1) {
		t.Errorf("IndexNow was sent by %q; web%d leads", senders, leader+1)
	}
}

// leader is the index of the one server whose metrics say it leads,
// waited for.
func (f *fleetModel) leader() int {
	var leaders []int
	f.waitUntil("one server to lead", func() (bool, string) {
		leaders = leaders[:0]
		for i, h := range f.servers {
			if h.metric("sitemapd_fleet_leader") == 1 {
				leaders = append(leaders, i)
			}
		}
		return len(leaders) == 1, fmt.Sprintf("leaders: %v", leaders)
	})
	return leaders[0]
}

// waitUntil polls cond until it holds; the bound only stops a broken
// test, whose failure says what cond last found.
func (f *fleetModel) waitUntil(what string, cond func() (bool, string)) {
	f.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		ok, why := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("timed out waiting for %s: %s", what, why)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
