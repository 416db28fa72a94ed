// Command deploybench runs the deploy patterns of issue 22 against a
// running `sitemapd run` (pages.lastmod: significant, the default; watch
// settle and max_delay the defaults) on a generated site served through
// `current -> releases/N`, and compares the URLs an IndexNow receiver on
// 127.0.0.1 is sent with the pages each deploy changed in substance, as
// this program knows them from what it changed (never from sitemapd's
// output). bench/deploy.sh drives it.
//
// The site is gentree's tree (-tree, copied to releases/1) with every
// .html page rendered by site.go: a template with fingerprinted assets, a
// build stamp, navigation, breadcrumbs, a sidebar, prev/next links and a
// footer, around the page's own content.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/sitemapd/sitemapd/internal/indexnowtest"
)

const base = "https://bench.example/"

var (
	bin     = flag.String("sitemapd", "sitemapd", "sitemapd binary")
	tree    = flag.String("tree", "", "gentree's tree, the site's first release (moved into -work)")
	work    = flag.String("work", "", "work directory (releases, state, sitemaps, the daemon's log)")
	rest    = flag.Duration("rest", 10*time.Second, "how long without a publish or a request to the receiver counts as quiet (more than the endpoint's delay, 5 s)")
	jsonOut = flag.String("json", "", "also write each pattern's figures to this file, one JSON object a line")
	only    = flag.String("only", "", "run only the patterns whose names contain this")
	level   = flag.String("log-level", "info", "the daemon's log.level (debug logs each page whose lastmod moved, and why)")
)

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "deploybench:", err)
		os.Exit(2)
	}
}

// bench is the run's state: the site as the current release holds it,
// the daemon, the receiver.
type bench struct {
	s      *site
	d      *daemon
	r      *indexnowtest.Receiver
	cfg    string
	n      int // the release current names
	canary int
	rows   []result
}

type result struct {
	Pattern   string   `json:"pattern"`
	DeployS   float64  `json:"deploy_s"`
	Publishes int      `json:"publishes_during_deploy"`
	QuietS    float64  `json:"quiet_s"`
	Expected  []string `json:"expected"`
	Received  []string `json:"received"`
	Extra     []string `json:"extra"`
	Missing   []string `json:"missing"`
	Repeated  int      `json:"repeated"`
}

func (b *bench) release(n int) string { return filepath.Join(*work, "releases", fmt.Sprint(n)) }
func (b *bench) root() string         { return filepath.Join(*work, "current") }

func run() error {
	if *tree == "" || *work == "" {
		return fmt.Errorf("-tree and -work are required")
	}
	b := &bench{}
	if err := b.setUp(); err != nil {
		return err
	}
	defer func() {
		if b.d != nil {
			b.d.stop()
		}
	}()
	for _, p := range patterns {
		if !strings.Contains(p.name, *only) {
			continue
		}
		fmt.Fprintf(os.Stderr, "%s: %s\n", time.Now().Format("15:04:05"), p.name)
		if err := b.measure(p); err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
	}
	return b.report()
}

// setUp renders release 1, points current at it, starts the daemon and
// waits until its first publish, its page prints and a canary are done.
func (b *bench) setUp() error {
	os.MkdirAll(filepath.Join(*work, "releases"), 0o755)
	os.MkdirAll(filepath.Join(*work, "sitemaps"), 0o755)
	if err := os.Rename(*tree, b.release(1)); err != nil {
		return err
	}
	s, err := loadSite(b.release(1))
	if err != nil {
		return err
	}
	b.s = s
	start := time.Now()
	if err := s.write(b.release(1), s.pages...); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "rendered %d pages in %d directories in %.1f s\n", len(s.pages), len(s.dirs), time.Since(start).Seconds())
	os.MkdirAll(filepath.Join(b.release(1), "zz-canary"), 0o755)
	if err := b.swap(1); err != nil {
		return err
	}
	if b.r, err = newReceiver(); err != nil {
		return err
	}
	if b.cfg, err = writeConfig(*work, b.r.URL+"/indexnow"); err != nil {
		return err
	}
	if err := b.start(); err != nil {
		return err
	}
	_, err = b.sync(0)
	return err
}

// start starts the daemon and waits for its first publish and the page
// prints build that follows it.
func (b *bench) start() error {
	d, err := startDaemon(*bin, b.cfg, filepath.Join(*work, "sitemapd.log"))
	if err != nil {
		return err
	}
	b.d = d
	return d.waitTrigger(0, "page prints", 30*time.Minute)
}

// swap points current at release n as deploy tools do: a new symlink
// renamed over the old one.
func (b *bench) swap(n int) error {
	tmp := b.root() + ".tmp"
	if err := os.Symlink(filepath.Join("releases", fmt.Sprint(n)), tmp); err != nil {
		return err
	}
	b.n = n
	return os.Rename(tmp, b.root())
}

// sync waits until the daemon has published more than after times (a
// deploy's first publish may come late: a swapped-in release is walked
// whole first) and rests, writes a canary page, waits until the receiver
// has its URL and the daemon rests, and returns when the daemon and the
// receiver were last busy before the canary.
func (b *bench) sync(after int) (time.Time, error) {
	if err := b.d.waitPublishes(after+1, 30*time.Minute); err != nil {
		return time.Time{}, err
	}
	last, err := quiet(b.d, b.r, time.Now(), *rest, 30*time.Minute)
	if err != nil {
		return last, err
	}
	b.canary++
	name := fmt.Sprintf("zz-canary/c%d.html", b.canary)
	page := fmt.Sprintf("<title>canary %d</title><p>Canary %d.</p>", b.canary, b.canary)
	if err := os.WriteFile(filepath.Join(b.root(), name), []byte(page), 0o644); err != nil {
		return last, err
	}
	for start := time.Now(); !slices.Contains(b.r.URLs(0), base+name); time.Sleep(100 * time.Millisecond) {
		if time.Since(start) > 10*time.Minute {
			return last, fmt.Errorf("the receiver was not sent the canary %s", name)
		}
	}
	_, err = quiet(b.d, b.r, time.Now(), 2*time.Second, 10*time.Minute)
	return last, err
}

func command(name string, args ...string) error {
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, out)
	}
	return nil
}

// measure runs one pattern and compares what the receiver was sent with
// what it changed.
func (b *bench) measure(p pattern) error {
	prep, deploy, want, err := p.run(b)
	if err != nil {
		return err
	}
	if prep != nil {
		if err := prep(); err != nil {
			return err
		}
	}
	mark := b.r.Mark()
	d0 := b.d
	n0, _ := b.d.published()
	start := time.Now()
	if err := deploy(); err != nil {
		return err
	}
	end := time.Now()
	n1, _ := b.d.published()
	if b.d != d0 { // restarted: the new daemon's publishes
		n0 = 0
	}
	last, err := b.sync(n0)
	if err != nil {
		return err
	}
	res := result{Pattern: p.name, DeployS: end.Sub(start).Seconds(), Publishes: n1 - n0,
		QuietS: max(0, last.Sub(end).Seconds()), Expected: sorted(want)}
	seen := map[string]bool{}
	for _, u := range b.r.URLs(mark) {
		rel := relOf(base, u)
		if strings.HasPrefix(rel, "zz-canary/") {
			continue
		}
		if seen[rel] {
			res.Repeated++
		}
		seen[rel] = true
	}
	for rel := range seen {
		res.Received = append(res.Received, rel)
	}
	sort.Strings(res.Received)
	res.Extra = minus(res.Received, res.Expected)
	res.Missing = minus(res.Expected, res.Received)
	b.rows = append(b.rows, res)
	fmt.Fprintf(os.Stderr, "  %s\n", line(res))
	return nil
}

func sorted(xs []string) []string { xs = slices.Clone(xs); sort.Strings(xs); return xs }

func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

func line(r result) string {
	verdict := "ok"
	if len(r.Extra)+len(r.Missing)+r.Repeated > 0 {
		verdict = "WRONG"
	}
	return fmt.Sprintf("| %s | %.1f s (%d publishes) | %d | %d | %d %.200q | %d %.200q | %d | %.1f s | %s |",
		r.Pattern, r.DeployS, r.Publishes, len(r.Expected), len(r.Received), len(r.Extra), r.Extra, len(r.Missing), r.Missing, r.Repeated, r.QuietS, verdict)
}

func (b *bench) report() error {
	fmt.Printf("%d pages in %d directories; watch settle and max_delay the defaults (500ms, 5s), IndexNow delay 5s\n\n", len(b.s.pages), len(b.s.dirs))
	fmt.Println("| pattern | deploy (daemon publishes during it) | expected | received | extra | missing | sent twice | time to quiet | |")
	fmt.Println("|---|---|---:|---:|---|---|---:|---:|---|")
	wrong := false
	for _, r := range b.rows {
		fmt.Println(line(r))
		wrong = wrong || len(r.Extra)+len(r.Missing)+r.Repeated > 0
	}
	if *jsonOut != "" {
		f, err := os.Create(*jsonOut)
		if err != nil {
			return err
		}
		enc := json.NewEncoder(f)
		for _, r := range b.rows {
			enc.Encode(r)
		}
		f.Close()
	}
	if wrong {
		return fmt.Errorf("some deploy sent other URLs than the pages it changed")
	}
	return nil
}
