package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/indexnowtest"
)

// TestKillsLoseNothing kills `sitemapd run`, serving three sites, with
// SIGKILL at random moments while pages are added to each, again and
// again; then lets it run to the end. Every page added must reach the
// receiver (none lost), and a URL received twice must have been, the
// first time, in the last request of its site before a kill: the one
// batch a kill can catch between the endpoint's answer and the ledger's
// save. The figure of duplicates is logged.
func TestKillsLoseNothing(t *testing.T) {
	rounds := 20
	if testing.Short() {
		rounds = 5
	}
	rcv := &receiver{indexnowtest.Start(t)} // every site's host
	dir := t.TempDir()
	sites := []string{"one", "two", "three"}
	var cfg strings.Builder
	fmt.Fprintf(&cfg, "state_dir: state\nlog: {format: json}\nsites:\n")
	for _, s := range sites {
		os.MkdirAll(filepath.Join(dir, s), 0o755)
		os.WriteFile(filepath.Join(dir, s, "index.html"), []byte("<title>home</title>"), 0o644)
		fmt.Fprintf(&cfg, "  - name: %s\n    root: %s\n    base_url: https://%s.test/\n"+
			"    watch: {settle: 20ms, max_delay: 200ms, rescan: 0s}\n"+
			"    notify: {schedule: \"@every 1s\", endpoints: [{name: r, kind: indexnow, url: %q, key: 0123456789abcdef, delay: 1s}]}\n",
			s, s, s, rcv.URL)
	}
	path := filepath.Join(dir, "sitemapd.yaml")
	if err := os.WriteFile(path, []byte(cfg.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	var written []string
	var kills []int // requests answered before each kill
	for round := range rounds {
		c := startChild(t, path)
		c.expect(t, "READY=1")
		for i := range 2 {
			for _, s := range sites {
				name := fmt.Sprintf("r%d-%d.html", round, i)
				os.WriteFile(filepath.Join(dir, s, name), []byte("<title>"+name+"</title>"), 0o644)
				written = append(written, fmt.Sprintf("https://%s.test/%s", s, name))
			}
			time.Sleep(time.Duration(r.IntN(1500)) * time.Millisecond)
		}
		c.cmd.Process.Signal(syscall.SIGKILL)
		c.cmd.Wait()
		kills = append(kills, rcv.Mark())
	}
	// The last run: everything owed is sent.
	c := startChild(t, path)
	c.expect(t, "READY=1")
	poll(t, "every page added to be received", func() (bool, string) {
		missing := rcv.missing(written)
		return len(missing) == 0, fmt.Sprintf("%d of %d not received, as %.3q", len(missing), len(written), missing)
	})
	c.stop(t)

	dups, total := rcv.duplicates(t, kills)
	t.Logf("%d kills; %d URLs received %d times in all: %d received again (%.1f%%), each from the last batch of its site before a kill",
		rounds, len(written), total, dups, 100*float64(dups)/float64(max(total, 1)))
}

// missing returns the URLs of want never received.
func (r *receiver) missing(want []string) []string {
	got := r.Counts(0)
	var out []string
	for _, u := range want {
		if got[u] == 0 {
			out = append(out, u)
		}
	}
	return out
}

// duplicates counts the URLs received again, checking that each first
// came in the last request of its site before some kill (kills holds the
// number of requests answered before each).
func (r *receiver) duplicates(t *testing.T, kills []int) (dups, total int) {
	reqs := r.Posts(0)
	lastBefore := map[int]bool{} // requests that were their site's last before a kill
	for _, k := range kills {
		seen := map[string]bool{}
		for i := k - 1; i >= 0; i-- {
			if h := reqs[i].Host; !seen[h] {
				seen[h] = true
				lastBefore[i] = true
			}
		}
	}
	first := map[string]int{}
	for i, q := range reqs {
		for _, u := range q.URLs {
			total++
			f, again := first[u]
			if !again {
				first[u] = i
				continue
			}
			dups++
			if !lastBefore[f] {
				t.Errorf("%s received again in request %d, though request %d, which had it first, was not its site's last before a kill", u, i, f)
			}
		}
	}
	return dups, total
}
