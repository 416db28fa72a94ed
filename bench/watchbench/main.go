// Command watchbench measures a running `sitemapd run` on a generated tree:
// the delay from one file's write to its group's sitemap being published
// (p50 and p99 over many changes, minus watch.settle), the CPU cost of one
// change against a full build measured in the same run, how long a burst of
// new files takes to converge against the full build's wall time, idle CPU,
// and resident memory. bench/watch.sh and bench/dense.sh drive it.
//
// Both the full build and the daemon start from an empty state_dir (-state,
// emptied before each): the full build is a first build, which reads every
// page, and so is the daemon's.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

var (
	bin       = flag.String("sitemapd", "sitemapd", "sitemapd binary")
	root      = flag.String("root", "", "generated document root")
	changes   = flag.Int("changes", 100, "single-file changes to time")
	burst     = flag.Int("burst", 10_000, "files in the burst")
	idle      = flag.Duration("idle", 60*time.Second, "idle period to measure")
	settle    = flag.Duration("settle", 500*time.Millisecond, "watch.settle")
	pagesYAML = flag.String("pages", "{}", "the pages: section of the config, in YAML flow style (\"{noindex: false}\")")
	stateDir  = flag.String("state", "", "state_dir, emptied before the full build and before the daemon starts (default watchbench-state beside the root)")
	outputDir = flag.String("output", "", "output_dir (default: the root)")
	jsonOut   = flag.String("json", "", "also write the figures to this file as one JSON object")
	prints    = flag.Bool("prints", true, "wait for the daemon's page prints build (pages.lastmod: significant, the default, defers it past the first publish) before timing changes; false with lastmod content or mtime, which have none")
)

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "watchbench:", err)
		os.Exit(1)
	}
}

type published struct {
	at      time.Time
	trigger string
	changed int // pages added or changed
}

func run() error {
	cfg := filepath.Join(filepath.Dir(*root), "watchbench.yaml")
	if *stateDir == "" {
		*stateDir = filepath.Join(filepath.Dir(*root), "watchbench-state")
	}
	yaml := fmt.Sprintf(
		"root: %q\nbase_url: https://bench.example/\nstate_dir: %q\npages: %s\nwatch: {settle: %s, max_delay: 5s, rescan: 0s}\nlog: {level: info, format: json}\n",
		*root, *stateDir, *pagesYAML, *settle)
	if *outputDir != "" {
		yaml += fmt.Sprintf("output_dir: %q\n", *outputDir)
	}
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		return err
	}

	// The baseline: one full build (as a separate process, outputs and
	// state removed).
	removeOutputs()
	if err := emptyDir(*stateDir); err != nil {
		return err
	}
	start := time.Now()
	b := exec.Command(*bin, "build", "-config", cfg)
	if out, err := b.CombinedOutput(); err != nil {
		return fmt.Errorf("build: %v: %s", err, out)
	}
	fullWall := time.Since(start)
	ru := b.ProcessState.SysUsage().(*syscall.Rusage)
	fullCPU := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())

	if err := emptyDir(*stateDir); err != nil {
		return err
	}
	d := exec.Command(*bin, "run", "-config", cfg)
	stderr, _ := d.StderrPipe()
	if err := d.Start(); err != nil {
		return err
	}
	defer d.Process.Kill()
	pubs := make(chan published, 1024)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if os.Getenv("WATCHBENCH_DEBUG") != "" {
				fmt.Fprintln(os.Stderr, time.Now().Format("15:04:05.000"), sc.Text())
			}
			var l struct {
				Msg, Trigger   string
				Added, Changed int
			}
			if json.Unmarshal(sc.Bytes(), &l) == nil && l.Msg == "published" {
				pubs <- published{time.Now(), l.Trigger, l.Added + l.Changed}
			}
		}
	}()
	if p := <-pubs; p.trigger != "initial build" {
		return fmt.Errorf("first publish was %q", p.trigger)
	}
	if *prints {
		if err := waitTrigger(pubs, "page prints", 30*time.Minute); err != nil {
			return err
		}
	}
	rssStart := procStatus(d.Process.Pid, "VmRSS")

	// Single-file changes, one at a time, spread over the tree.
	pages := listPages()
	r := rand.New(rand.NewPCG(1, 2))
	var lat []time.Duration
	var detail [][2]any // each change's page (relative to the root) and latency in ms, in order
	cpu0 := procCPU(d.Process.Pid)
	// The run's own mark in every change, bytes and time: a tree that an
	// earlier run changed already (the same pages, drawn in the same
	// order) gets a new version again, not a publish that finds nothing
	// to do.
	nonce := time.Now().UnixNano()
	base := time.Now().Add(-24 * time.Hour).Truncate(time.Second)
	empty := 0 // change publishes before the one that carried the change
	for i := 0; i < *changes; i++ {
		p := pages[r.IntN(len(pages))]
		t0 := time.Now()
		if err := os.WriteFile(p, []byte(fmt.Sprintf("<title>change %d of run %d</title>", i, nonce)), 0o644); err != nil {
			return err
		}
		mt := base.Add(time.Duration(i) * time.Second) // a new lastmod each time
		os.Chtimes(p, mt, mt)
		n, err := waitChange(pubs)
		if err != nil {
			return err
		}
		empty += n
		lat = append(lat, time.Since(t0)-*settle)
		rel, _ := filepath.Rel(*root, p)
		detail = append(detail, [2]any{rel, ms(lat[len(lat)-1])})
		if os.Getenv("WATCHBENCH_DEBUG") != "" {
			fmt.Fprintln(os.Stderr, "change", i, t0.Format("15:04:05.000"), p, lat[len(lat)-1])
		}
	}
	perChange := (procCPU(d.Process.Pid) - cpu0) / time.Duration(*changes)

	// A burst of new files, then a marker; converged when the marker is listed.
	t0 := time.Now()
	for i := 0; i < *burst; i++ {
		p := filepath.Join(*root, "burst", fmt.Sprintf("d%d", i%20), fmt.Sprintf("new-%d.html", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, nil, 0o644)
	}
	marker := filepath.Join(*root, "zz-marker.html")
	os.WriteFile(marker, nil, 0o644)
	written := time.Since(t0) // how fast this machine writes: not the daemon's doing
	for !strings.Contains(readFile(filepath.Join(outRoot(), "sitemap.xml")), "zz-marker.html") {
		if time.Since(t0) > 10*time.Minute {
			return fmt.Errorf("burst did not converge")
		}
		time.Sleep(5 * time.Millisecond)
	}
	converge := time.Since(t0)

	// Idle.
	time.Sleep(2 * *settle)
	c0 := procCPU(d.Process.Pid)
	time.Sleep(*idle)
	idleCPU := procCPU(d.Process.Pid) - c0

	rssEnd := procStatus(d.Process.Pid, "VmRSS")
	// VmHWM is updated lazily: the peak is at least what was seen.
	hwm := max(procStatus(d.Process.Pid, "VmHWM"), rssStart, rssEnd)
	d.Process.Signal(syscall.SIGTERM)
	d.Wait()
	os.RemoveAll(filepath.Join(*root, "burst"))
	os.Remove(marker)

	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	q := func(f float64) time.Duration { return lat[int(f*float64(len(lat)-1))] }
	files := countFiles()
	fmt.Printf("%d files (%d pages); full build (baseline, same run): wall %.2f s, cpu %.2f s\n", files, len(pages), fullWall.Seconds(), fullCPU.Seconds())
	fmt.Printf("change -> sitemap on disk, minus settle (%v), %d changes: p50 %.1f ms, p99 %.1f ms (max %.1f ms; %d publishes without the change before it)\n", *settle, len(lat), ms(q(0.5)), ms(q(0.99)), ms(lat[len(lat)-1]), empty)
	fmt.Printf("cpu per change: %.2f ms = 1/%.0f of a full build\n", ms(perChange), float64(fullCPU)/float64(perChange))
	fmt.Printf("burst of %d files converged in %.2f s = %.2f x a full build's wall time (writing them took %.2f s; converged %.2f s after the last write)\n",
		*burst, converge.Seconds(), converge.Seconds()/fullWall.Seconds(), written.Seconds(), (converge - written).Seconds())
	fmt.Printf("idle cpu over %v: %.3f s (%.3f%% of one core)\n", *idle, idleCPU.Seconds(), 100*idleCPU.Seconds()/idle.Seconds())
	fmt.Printf("resident memory: %.1f MiB after the first build, %.1f MiB at the end, peak %.1f MiB (%.0f bytes per file)\n",
		kib(rssStart), kib(rssEnd), kib(hwm), float64(rssEnd*1024)/float64(files))
	if *jsonOut != "" {
		b, _ := json.Marshal(map[string]any{
			"files": files, "pages": len(pages), "changes": len(lat), "settle_ms": ms(*settle),
			"full_wall_s": fullWall.Seconds(), "full_cpu_s": fullCPU.Seconds(),
			"p50_ms": ms(q(0.5)), "p99_ms": ms(q(0.99)), "max_ms": ms(lat[len(lat)-1]), "publishes_without_change": empty,
			"cpu_per_change_ms": ms(perChange), "full_cpu_per_change": float64(fullCPU) / float64(perChange),
			"burst": *burst, "burst_after_last_write_s": (converge - written).Seconds(),
			"idle_s": idle.Seconds(), "idle_cpu_s": idleCPU.Seconds(),
			"rss_first_build_mib": kib(rssStart), "rss_rest_mib": kib(rssEnd), "rss_peak_mib": kib(hwm),
			"rest_bytes_per_file": float64(rssEnd*1024) / float64(files),
			"change_latencies":    detail,
		})
		if err := os.WriteFile(*jsonOut, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// outRoot is where the root's sitemaps are written.
func outRoot() string {
	if *outputDir != "" {
		return *outputDir
	}
	return *root
}

// emptyDir makes dir an empty directory.
func emptyDir(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return os.MkdirAll(dir, 0o755)
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
func kib(k int64) float64        { return float64(k) / 1024 }

// waitChange waits for the publish of a change that carries it (a page
// changed), returning how many change publishes came first that carried
// none (the page held back as still being written, say): the latency is
// the one that carried it.
func waitChange(pubs <-chan published) (int, error) {
	timeout := time.After(2 * time.Minute)
	for n := 0; ; {
		select {
		case p := <-pubs:
			if p.trigger != "change" {
				continue
			}
			if p.changed > 0 {
				return n, nil
			}
			n++
		case <-timeout:
			return n, fmt.Errorf("no publish of the change within 2m0s (%d publishes without it)", n)
		}
	}
}

// waitTrigger waits for a publish with this trigger, ignoring others.
func waitTrigger(pubs <-chan published, trigger string, limit time.Duration) error {
	timeout := time.After(limit)
	for {
		select {
		case p := <-pubs:
			if p.trigger == trigger {
				return nil
			}
		case <-timeout:
			return fmt.Errorf("no %q publish within %v", trigger, limit)
		}
	}
}

func readFile(p string) string { b, _ := os.ReadFile(p); return string(b) }

func removeOutputs() {
	if *outputDir != "" {
		emptyDir(*outputDir)
		return
	}
	filepath.WalkDir(*root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), "sitemap") {
			os.Remove(p)
		}
		return nil
	})
}

func listPages() []string {
	var out []string
	filepath.WalkDir(*root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".html") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func countFiles() int {
	n := 0
	filepath.WalkDir(*root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return nil
	})
	return n
}

// procCPU is a process's user + system time from /proc/PID/stat.
func procCPU(pid int) time.Duration {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ
}

// procStatus reads a kB field of /proc/PID/status.
func procStatus(pid int, key string) int64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
