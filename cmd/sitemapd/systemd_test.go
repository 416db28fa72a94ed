package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// gate holds the opens of page files (fanotify permission events): a
// process that opens one blocks, in the kernel, until the test allows it.
// A walk of pages behind the gate moves only as fast as the test lets
// it, and stalls for real when it stops: a slow filesystem without FUSE
// and without a seam in the walk (whose opens are O_NONBLOCK, which a
// file lease does not hold). Permission events need CAP_SYS_ADMIN: as any
// other user the test is skipped.
type gate struct {
	t       *testing.T
	fd      int
	pending []int32 // the fds of opens waiting for an answer
	buf     []byte
}

// gateTree makes n groups g000… under root, one page each, and gates
// the opens of the pages.
func gateTree(t *testing.T, root string, n int) *gate {
	t.Helper()
	fd, err := unix.FanotifyInit(unix.FAN_CLASS_CONTENT|unix.FAN_CLOEXEC|unix.FAN_NONBLOCK, unix.O_RDONLY|unix.O_LARGEFILE)
	if err != nil {
		t.Skipf("fanotify permission events (CAP_SYS_ADMIN) are needed to slow a walk without a seam: %v", err)
	}
	g := &gate{t: t, fd: fd, buf: make([]byte, 64<<10)}
	t.Cleanup(g.open)
	for i := range n {
		dir := filepath.Join(root, fmt.Sprintf("g%03d", i))
		os.Mkdir(dir, 0o755)
		p := filepath.Join(dir, "p.html")
		if err := os.WriteFile(p, []byte("<title>p</title>"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := unix.FanotifyMark(fd, unix.FAN_MARK_ADD, unix.FAN_OPEN_PERM, unix.AT_FDCWD, p); err != nil {
			t.Skipf("fanotify mark on %s: %v", p, err)
		}
	}
	return g
}

// collect reads the opens waiting so far.
func (g *gate) collect() {
	for g.fd >= 0 {
		n, err := unix.Read(g.fd, g.buf)
		if err != nil || n <= 0 {
			return
		}
		for b := g.buf[:n]; len(b) >= 24; {
			// struct fanotify_event_metadata: event_len u32, vers u8,
			// reserved u8, metadata_len u16, mask u64, fd s32, pid s32.
			size := binary.NativeEndian.Uint32(b[0:4])
			if fd := int32(binary.NativeEndian.Uint32(b[16:20])); fd >= 0 {
				g.pending = append(g.pending, fd)
			}
			if size < 24 || int(size) > len(b) {
				break
			}
			b = b[size:]
		}
	}
}

// allowWaiting lets at most max of the opens waiting go on, the oldest
// first, and returns how many.
func (g *gate) allowWaiting(max int) int {
	g.collect()
	n := min(max, len(g.pending))
	for _, fd := range g.pending[:n] {
		resp := make([]byte, 8) // struct fanotify_response: fd s32, response u32
		binary.NativeEndian.PutUint32(resp[0:4], uint32(fd))
		binary.NativeEndian.PutUint32(resp[4:8], unix.FAN_ALLOW)
		unix.Write(g.fd, resp)
		unix.Close(int(fd))
	}
	g.pending = g.pending[n:]
	return n
}

// open lets every open go on, now and from now on.
func (g *gate) open() {
	if g.fd >= 0 {
		g.allowWaiting(math.MaxInt)
		unix.Close(g.fd) // answers any left, and ends the gate
		g.fd = -1
	}
}

// TestWatchdogFollowsProgress runs `sitemapd run` as systemd would with
// WatchdogSec=2s (WATCHDOG_USEC, WATCHDOG_PID), on a tree whose pages are
// behind a gate: its first build makes progress only as the test lets
// their opens go on. While it does (6 s, three times the watchdog),
// systemd would not kill it: no gap between keep-alives reaches
// WatchdogSec, from its first message on, and the status counts the
// entries read. When the releases stop, the build stalls, and the
// keep-alives stop too, long enough for systemd to kill it. When the
// build goes on they resume, and READY=1 comes once it is published.
//
// Every phase ends on what the child does, not on a deadline, and gaps
// are measured between the kernel's arrival stamps of the messages: a
// machine slowed by other work slows the test, it does not fail it.
// (How soon keep-alives stop after progress, within half of WatchdogSec,
// is TestKeeperFollowsProgress's to prove, on a fake clock.)
func TestWatchdogFollowsProgress(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh to exec the child with its WATCHDOG_PID")
	}
	const wd = 2 * time.Second
	cfg, root := writeConfig(t, "depth: 1\nwatch: {rescan: 0s}\n")
	g := gateTree(t, root, 400)
	// GOMAXPROCS bounds the walk's parallel reads: a few opens wait at
	// the gate at a time.
	c := startChildAs(t, cfg, true, fmt.Sprintf("WATCHDOG_USEC=%d", wd.Microseconds()), "GOMAXPROCS=2")

	lastRelease := releaseFor(t, g, 3*wd)
	opened := holdUntilQuiet(t, c, g, wd)
	c.expect(t, "READY=1")
	c.expect(t, "WATCHDOG=1") // the idle loop's

	msgs := c.messages()
	dogs := keepAlives(msgs)
	// While the build made progress: from the child's first message (its
	// start, however slow on a loaded machine) to the last release.
	marks := append([]time.Time{msgs[0].at}, timesBefore(dogs, lastRelease)...)
	if gap, at := longestGap(append(marks, lastRelease)); gap >= wd {
		t.Errorf("a gap of %v between keep-alives %v into the run, while the build made progress (systemd kills at %v); keep-alives at %v",
			gap.Round(time.Millisecond), at.Sub(msgs[0].at).Round(time.Millisecond), wd, offsets(msgs[0].at, dogs))
	}
	// The stall: no keep-alive for at least WatchdogSec before the gate
	// opened, after the last release.
	if gap, _ := longestGap(append(append([]time.Time{lastRelease}, timesBetween(dogs, lastRelease, opened)...), opened)); gap < wd {
		t.Errorf("keep-alives went on through the stall: the longest gap between the last release and the gate's opening is %v; keep-alives at %v",
			gap.Round(time.Millisecond), offsets(msgs[0].at, dogs))
	}
	var scans []int // the first build's: the one that follows it (page prints) counts afresh
	ready := false
	for _, m := range msgs {
		switch {
		case m.text == "READY=1":
			ready = true
			if m.at.Before(opened) {
				t.Errorf("READY=1 %v before the gate opened: the build cannot have finished", opened.Sub(m.at))
			}
		case strings.HasPrefix(m.text, "STATUS=scanning: ") && !ready:
			n, _ := strconv.Atoi(strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(m.text, "STATUS=scanning: "), " entries"), ",", ""))
			scans = append(scans, n)
		}
	}
	if len(scans) < 3 || scans[len(scans)-1] <= scans[0] {
		t.Errorf("scanning statuses: %v; want growing entry counts", scans)
	}
}

// releaseFor lets the gated walk read a few pages every 100 ms for at
// least d, and until 20 have been read, and returns when it let the last
// go on. At most four go on a round, so that pages are left for the stall.
func releaseFor(t *testing.T, g *gate, d time.Duration) (last time.Time) {
	t.Helper()
	start, released := time.Now(), 0
	for time.Since(start) < d || released < 20 {
		if time.Since(start) > time.Minute {
			t.Fatalf("only %d pages were read in a minute of releases", released)
		}
		if n := g.allowWaiting(4); n > 0 {
			released += n
			last = time.Now()
		}
		time.Sleep(100 * time.Millisecond)
	}
	return last
}

// holdUntilQuiet holds the gate until no keep-alive has come for wd, as
// long as systemd waits before it kills, then opens it and returns when.
// A keeper that keeps a stalled build alive never lets that happen: a
// minute (far more than the keeper's half of wd, however slow the
// machine) fails the test.
func holdUntilQuiet(t *testing.T, c *child, g *gate, wd time.Duration) (opened time.Time) {
	t.Helper()
	start := time.Now()
	for {
		last := start
		if dogs := keepAlives(c.messages()); len(dogs) > 0 {
			last = later(last, dogs[len(dogs)-1])
		}
		if time.Since(last) >= wd+wd/4 { // a margin for the reader's lag
			break
		}
		if time.Since(start) > time.Minute {
			t.Fatalf("keep-alives went on for a minute with the build stalled")
		}
		time.Sleep(50 * time.Millisecond)
	}
	opened = time.Now()
	g.open()
	return opened
}

func keepAlives(msgs []notifyMsg) []time.Time {
	var out []time.Time
	for _, m := range msgs {
		if m.text == "WATCHDOG=1" {
			out = append(out, m.at)
		}
	}
	return out
}

// timesBefore returns the times of ts before end; timesBetween, those
// after start and before end.
func timesBefore(ts []time.Time, end time.Time) []time.Time {
	return timesBetween(ts, time.Time{}, end)
}

func timesBetween(ts []time.Time, start, end time.Time) []time.Time {
	var out []time.Time
	for _, at := range ts {
		if at.After(start) && at.Before(end) {
			out = append(out, at)
		}
	}
	return out
}

// longestGap returns the longest gap between consecutive times of ts and
// where it starts.
func longestGap(ts []time.Time) (gap time.Duration, at time.Time) {
	for i := 1; i < len(ts); i++ {
		if d := ts[i].Sub(ts[i-1]); d > gap {
			gap, at = d, ts[i-1]
		}
	}
	return gap, at
}

// offsets shows times as durations since start, for a failure's message.
func offsets(start time.Time, ts []time.Time) []time.Duration {
	out := make([]time.Duration, len(ts))
	for i, at := range ts {
		out[i] = at.Sub(start).Round(10 * time.Millisecond)
	}
	return out
}

// TestReadyAndStatus: the statuses of a start are scanning, then what is
// published, then READY=1; of a stop, STOPPING=1.
func TestReadyAndStatus(t *testing.T) {
	cfg, _ := writeConfig(t, "")
	c := startChild(t, cfg)
	c.expect(t, "STATUS=scanning: ")
	if msg := c.expect(t, "STATUS=published "); msg != "STATUS=published 2 groups, 2 URLs; waiting for changes" {
		t.Errorf("status %q", msg)
	}
	c.expect(t, "READY=1")
	c.cmd.Process.Signal(unix.SIGTERM)
	c.expect(t, "STATUS=stopping")
	c.expect(t, "STOPPING=1")
	if err := c.cmd.Wait(); err != nil {
		t.Errorf("exit: %v", err)
	}
}

// foreignSitemap is a sitemap sitemapd did not write: it is never replaced.
const foreignSitemap = `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></urlset>`

// TestNothingWrittenExits1: a first build none of whose files could be
// written (here foreign files stand where each goes: this stops root as
// well as any user, unlike a read-only directory) exits 1 with the
// reasons, without READY=1.
func TestNothingWrittenExits1(t *testing.T) {
	cfg, root := writeConfig(t, "")
	for _, p := range []string{"sitemap.xml", "blog/sitemap.xml", "sitemap_index.xml"} {
		os.WriteFile(filepath.Join(root, p), []byte(foreignSitemap), 0o644)
	}
	c := startChild(t, cfg)
	msg := c.expect(t, "STATUS=failed: ")
	var exit *exec.ExitError
	if err := c.cmd.Wait(); !errors.As(err, &exit) || exit.ExitCode() != ExitFailure {
		t.Fatalf("exit: %v, want %d", err, ExitFailure)
	}
	for _, m := range c.messages() {
		if m.text == "READY=1" {
			t.Error("READY=1 was sent")
		}
	}
	log := c.stderr.String()
	for _, want := range []string{"the first build wrote nothing", "refusing to replace " + filepath.Join(root, "blog", "sitemap.xml")} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q", want)
		}
	}
	if !strings.Contains(msg, "the first build published nothing") {
		t.Errorf("status %q", msg)
	}
	// One group written is a start, degraded.
	os.Remove(filepath.Join(root, "blog", "sitemap.xml"))
	c = startChild(t, cfg)
	c.expect(t, "STATUS=degraded: the last publish failed: ")
	c.expect(t, "READY=1")
}

// TestSecondRunExits2: a second `sitemapd run` on the same configuration,
// or on another with the same output root, stops at once with exit 2 and
// a message naming the first one's PID; the first goes on.
func TestSecondRunExits2(t *testing.T) {
	cfg, root := writeConfig(t, "")
	c := startChild(t, cfg)
	c.expect(t, "READY=1")
	pid := strconv.Itoa(c.cmd.Process.Pid)

	other := filepath.Join(t.TempDir(), "other.yaml")
	os.WriteFile(other, []byte("root: "+root+"\nbase_url: https://other.test/\nstate_dir: "+filepath.Join(filepath.Dir(other), "state")+"\n"), 0o644)
	for _, path := range []string{cfg, other} {
		code, _, stderr := runCLI("run", "-config", path)
		if code != ExitUsage || !strings.Contains(stderr, "sitemapd run (pid "+pid+", config "+cfg+") already publishes "+root) {
			t.Errorf("%s: exit %d, %s", path, code, stderr)
		}
	}
	c.cmd.Process.Signal(unix.SIGTERM)
	if err := c.cmd.Wait(); err != nil {
		t.Errorf("first run: %v", err)
	}
}
