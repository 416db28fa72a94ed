package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/fleet/etcdtest"
)

// fleetServer is one web server of a fleet: its document root and its
// sitemapd.
type fleetServer struct {
	name, root string
	listen     string // the daemon's /healthz
	c          *child
}

// startFleetServer starts `sitemapd run` on root as server name of a
// fleet coordinated through the etcd endpoints.
func startFleetServer(t *testing.T, dir, name, root string, endpoints []string, notifyURL string) *fleetServer {
	t.Helper()
	cfg := filepath.Join(dir, name+".yaml")
	listen := freeAddr(t)
	yaml := fmt.Sprintf("root: %s\nbase_url: %s/\nlog: {format: json}\nstate_dir: %s\nlisten: %s\n"+
		"fleet:\n  etcd: {endpoints: [%s]}\n  prefix: /sitemapd/static.test/\n  name: %s\n",
		root, base, filepath.Join(dir, name+".state"), listen, strings.Join(endpoints, ", "), name) + notifyConfig(notifyURL)
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return &fleetServer{name: name, root: root, listen: listen, c: startChild(t, cfg)}
}

// health is the server's /healthz status and reason.
func (s *fleetServer) health(t *testing.T) (status, reason string) {
	t.Helper()
	resp, err := http.Get("http://" + s.listen + "/healthz")
	if err != nil {
		return "", err.Error()
	}
	defer resp.Body.Close()
	var h struct{ Status, Reason string }
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		t.Fatalf("%s /healthz: %v", s.name, err)
	}
	return h.Status, h.Reason
}

// metrics is the server's /metrics.
func (s *fleetServer) metrics(t *testing.T) string {
	t.Helper()
	resp, err := http.Get("http://" + s.listen + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// deploy writes page rel with data into each server's copy in turn, a
// second or more apart (as a deploy reaches one host after another), and
// returns the mtime each copy's file took.
func deploy(t *testing.T, servers []*fleetServer, rel string, data []byte) []time.Time {
	t.Helper()
	var mtimes []time.Time
	for i, s := range servers {
		if i > 0 {
			time.Sleep(1100 * time.Millisecond)
		}
		p := filepath.Join(s.root, rel)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		mtimes = append(mtimes, st.ModTime())
	}
	return mtimes
}

// lastmod is the lastmod server s lists for page rel (a page of docs/).
func (s *fleetServer) lastmod(t *testing.T, rel string) string {
	t.Helper()
	return readURLSet(t, filepath.Join(s.root, "docs", "sitemap.xml"))[pageURL(rel)]
}

// sums are the sha256 of each of sitemapd's files under root (sitemaps
// and the index), by path.
func sums(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for rel, o := range outputs(t, root) {
		h := sha256.Sum256(o.data)
		out[rel] = hex.EncodeToString(h[:])
	}
	return out
}

// identical waits until every server's sitemaps and index have the same
// bytes, then until no server has published for a second, and checks
// again: equal at a quiet moment.
func identical(t *testing.T, servers []*fleetServer) map[string]string {
	t.Helper()
	var want map[string]string
	poll(t, "every server's sitemap files to be identical", func() (bool, string) {
		want = sums(t, servers[0].root)
		for _, s := range servers[1:] {
			got := sums(t, s.root)
			if !maps.Equal(got, want) {
				return false, fmt.Sprintf("%s: %d files, %s: %d files; %s", servers[0].name, len(want), s.name, len(got), firstDiff(want, got))
			}
		}
		return true, ""
	})
	for _, s := range servers {
		s.c.waitQuiet(t, s.c.count("published")-1)
	}
	for _, s := range servers[1:] {
		if got, want := sums(t, s.root), sums(t, servers[0].root); !maps.Equal(got, want) {
			t.Fatalf("at a quiet moment %s and %s differ: %s", servers[0].name, s.name, firstDiff(want, got))
		}
	}
	return want
}

// digestOf is what sitemapd fleet shows of a server's sitemaps: the
// first 16 bytes of the SHA-256 of each file's name and SHA-256, a line
// a file, sorted by name (docs/fleet.md).
func digestOf(t *testing.T, root string) string {
	t.Helper()
	s := sums(t, root)
	delete(s, "0123456789abcdef.txt") // the IndexNow key: not a sitemap
	h := sha256.New()
	for _, n := range slices.Sorted(maps.Keys(s)) {
		fmt.Fprintf(h, "%s\x00%s\n", n, s[n])
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

func firstDiff(a, b map[string]string) string {
	for _, k := range slices.Sorted(maps.Keys(a)) {
		if a[k] != b[k] {
			return k + " differs"
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			return k + " only on one"
		}
	}
	return "the same"
}

// TestFleet: three web servers, each with its own copy of the site and its
// own sitemapd, against a real 3-member etcd cluster. The copies are
// deployed as fleets deploy: cp without -p (fresh mtimes), rsync -a (the
// source's mtimes), and one server late, its copy's mtimes later still.
// At each quiet moment every sitemap file and the index have the same
// bytes on the three; a page edited on each server in turn takes the
// mtime of the copy edited first. One etcd member lost changes nothing;
// the whole cluster lost, each server publishes its own copy's change and
// its /healthz says degraded, and once etcd is back they converge. Only
// the fleet's leader notifies: an edit on the three is sent once.
func TestFleet(t *testing.T) {
	f := startFleet(t)
	f.edit()
	f.midDeploy()
	f.memberLost()
	f.outage()
	f.handover()
}

// fleetRun is TestFleet's fleet: the cluster, the servers, the IndexNow
// receiver, and the site's source and page that is edited.
type fleetRun struct {
	t       *testing.T
	cluster *etcdtest.Cluster
	rcv     *receiver
	gate    *slowGate // before rcv: the servers send through it
	dir     string
	servers []*fleetServer
	old     []byte // the edited page as the source has it
}

const fleetEdited = "docs/guide/install.html"

// startFleet deploys the copies and starts the servers: two at once, the
// third late, which must publish the fleet's bytes from its first publish.
func startFleet(t *testing.T) *fleetRun {
	f := &fleetRun{t: t, cluster: etcdtest.Start(t, 3), rcv: newReceiver(t), dir: t.TempDir()}
	f.gate = newSlowGate(t, f.rcv)
	src := filepath.Join(f.dir, "src")
	writeSite(t, src, realisticSite())
	roots := []string{filepath.Join(f.dir, "web1"), filepath.Join(f.dir, "web2"), filepath.Join(f.dir, "web3")}
	command(t, "cp", "-r", src, roots[0])
	command(t, "rsync", "-a", src+"/", roots[1]+"/")
	for i := range 2 {
		f.servers = append(f.servers, startFleetServer(t, f.dir, fmt.Sprintf("web%d", i+1), roots[i], f.cluster.Endpoints(), f.gate.srv.URL))
	}
	for _, s := range f.servers {
		s.c.expect(t, "READY=1")
	}
	identical(t, f.servers)

	// The third server is deployed late: its copy's mtimes are a second
	// or more later than the first's (cp gives them the time of the copy).
	time.Sleep(1100 * time.Millisecond)
	command(t, "cp", "-r", src, roots[2])
	f.servers = append(f.servers, startFleetServer(t, f.dir, "web3", roots[2], f.cluster.Endpoints(), f.gate.srv.URL))
	f.servers[2].c.expect(t, "READY=1")
	// It read the fleet's records before its first publish: that publish
	// (READY=1 follows it) already has the fleet's bytes.
	if got, want := sums(t, roots[2]), sums(t, roots[0]); !maps.Equal(got, want) {
		t.Errorf("the late server's first publish differs from the fleet's: %s", firstDiff(want, got))
	}
	identical(t, f.servers)
	var err error
	if f.old, err = os.ReadFile(filepath.Join(src, fleetEdited)); err != nil {
		t.Fatal(err)
	}
	return f
}

// deployEdit writes the edited page, with the heading prefixed by what,
// into each copy in turn.
func (f *fleetRun) deployEdit(what string) []time.Time {
	return deploy(f.t, f.servers, fleetEdited, bytes.Replace(f.old, []byte("<h1>"), []byte("<h1>"+what+" "), 1))
}

// edit: the fleet's lastmods are those of copies, not of any one server
// (web2, rsync -a, has the source's mtimes, web1 the time of its copy),
// the first copy edited gives the page its lastmod, and one server, the
// leader, notifies.
func (f *fleetRun) edit() {
	t := f.t
	before := sums(t, f.servers[0].root)
	mark := f.rcv.Mark()
	mtimes := f.deployEdit("Edited:")
	if after := identical(t, f.servers); maps.Equal(before, after) {
		t.Fatal("the edit changed no sitemap")
	}
	if got, want := f.servers[2].lastmod(t, fleetEdited), w3c(mtimes[0]); got != want {
		t.Errorf("lastmod of the edited page on the last server: %s, want %s, the mtime of the first copy edited", got, want)
	}
	// One server notifies: the edit, on three servers, is sent once.
	f.rcv.waitFor(t, mark, pageURL(fleetEdited))
	time.Sleep(3 * time.Second) // three of notify.schedule's runs: a second sender would have sent
	if got := f.rcv.URLs(mark); !slices.Equal(got, []string{pageURL(fleetEdited)}) {
		t.Errorf("IndexNow was sent %q, want the edited page once", got)
	}
	f.oneLeader()
}

// oneLeader: one server's metrics say it leads, every one's that etcd is
// reachable, and sitemapd fleet names the leader the metrics name.
func (f *fleetRun) oneLeader() {
	t := f.t
	code, out, errOut := runCLI("fleet", "-config", filepath.Join(f.dir, "web2.yaml"))
	if code != ExitOK || !strings.Contains(out, "this server: web2, running\n") || !strings.Contains(out, "versions recorded: ") ||
		!strings.Contains(out, "sitemaps: this server's match web1, web3's\n") || !strings.Contains(out, "owed by this server: receiver 0 URLs") {
		st, _ := os.ReadFile(filepath.Join(f.dir, "web2.state", "notify.json"))
		t.Errorf("sitemapd fleet: %d\n%s%s\nweb2's notify.json: %s", code, out, errOut, st)
	}
	// Each server's digest is that of its files, as sha256sum has them.
	for _, s := range f.servers {
		if want := "  " + s.name + ": sitemaps " + digestOf(t, s.root) + " ("; !strings.Contains(out, want) {
			t.Errorf("sitemapd fleet does not show %q:\n%s", want, out)
		}
	}
	leaders := 0
	for _, s := range f.servers {
		m := s.metrics(t)
		if !strings.Contains(m, "\nsitemapd_fleet_etcd_reachable 1\n") {
			t.Errorf("%s's metrics do not say etcd is reachable", s.name)
		}
		leads := strings.Contains(m, "\nsitemapd_fleet_leader 1\n")
		if leads {
			leaders++
		}
		if named := strings.Contains(out, "servers: "+s.name+" (leader"); named != leads {
			t.Errorf("sitemapd fleet names %s the leader: %v; its metrics say it leads: %v\n%s", s.name, named, leads, out)
		}
	}
	if leaders != 1 {
		t.Errorf("%d servers say they lead", leaders)
	}
}

// memberLost: one etcd member lost changes nothing, once the others have
// a leader (if it led, for the second or so of their election a write
// waits; a change written then is the first recorded, not the first seen).
func (f *fleetRun) memberLost() {
	t := f.t
	f.cluster.Kill(0)
	f.cluster.WaitHealthy(time.Minute)
	mtimes := f.deployEdit("Edited again:")
	identical(t, f.servers)
	if got, want := f.servers[1].lastmod(t, fleetEdited), w3c(mtimes[0]); got != want {
		t.Errorf("with a member lost, lastmod of the edited page: %s, want %s", got, want)
	}
	for _, s := range f.servers {
		if st, why := s.health(t); st != "ok" {
			t.Errorf("%s with one etcd member lost: %s: %s", s.name, st, why)
		}
	}
}

// outage: the whole cluster down while the page changes: each server
// keeps publishing, with its own copy's mtime, and says it is degraded;
// when etcd returns, they converge on one of those times.
func (f *fleetRun) outage() {
	t := f.t
	f.cluster.KillAll()
	mtimes := f.deployEdit("Edited in the outage:")
	for i, s := range f.servers {
		poll(t, s.name+" to publish the change alone", func() (bool, string) {
			got := s.lastmod(t, fleetEdited)
			return got == w3c(mtimes[i]), got
		})
		poll(t, s.name+"'s /healthz to say degraded", func() (bool, string) {
			st, why := s.health(t)
			return st == "degraded" && strings.Contains(why, "fleet: etcd unreachable for"), st + ": " + why
		})
	}
	f.cluster.RestartAll()
	identical(t, f.servers)
	got := f.servers[0].lastmod(t, fleetEdited)
	if !slices.Contains([]string{w3c(mtimes[0]), w3c(mtimes[1]), w3c(mtimes[2])}, got) {
		t.Errorf("after the outage, lastmod of the edited page: %s, want one of the copies' mtimes %v", got, mtimes)
	}
	for _, s := range f.servers {
		poll(t, s.name+"'s /healthz to be ok again", func() (bool, string) {
			st, why := s.health(t)
			return st == "ok", st + ": " + why
		})
	}
}

// sitemapd fleet on a site without a fleet says so, and on one whose etcd
// does not answer says that, exiting 1.
func TestFleetCommandErrors(t *testing.T) {
	cfg, _ := writeConfig(t, "")
	if code, out, errOut := runCLI("fleet", "-config", cfg); code != ExitFailure || out != "" || !strings.Contains(errOut, "no fleet (fleet.etcd.endpoints is not set)") {
		t.Errorf("without a fleet: %d %q %q", code, out, errOut)
	}
	cfg, _ = writeConfig(t, "fleet: {etcd: {endpoints: [\"http://"+freeAddr(t)+"\"]}}\n")
	if code, out, _ := runCLI("fleet", "-config", cfg, "-timeout", "1s"); code != ExitFailure || !strings.Contains(out, "etcd unreachable") {
		t.Errorf("etcd unreachable: %d %q", code, out)
	}
}
