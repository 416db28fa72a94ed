package main

import (
	"encoding/binary"
	"errors"
	"fmt"
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

// allowWaiting lets the opens waiting go on and returns how many.
func (g *gate) allowWaiting() int {
	g.collect()
	n := len(g.pending)
	for _, fd := range g.pending {
		resp := make([]byte, 8) // struct fanotify_response: fd s32, response u32
		binary.NativeEndian.PutUint32(resp[0:4], uint32(fd))
		binary.NativeEndian.PutUint32(resp[4:8], unix.FAN_ALLOW)
		unix.Write(g.fd, resp)
		unix.Close(int(fd))
	}
	g.pending = g.pending[:0]
	return n
}

// open lets every open go on, now and from now on.
func (g *gate) open() {
	if g.fd >= 0 {
		g.allowWaiting()
		unix.Close(g.fd) // answers any left, and ends the gate
		g.fd = -1
	}
}

// TestWatchdogFollowsProgress runs `sitemapd run` as systemd would with
// WatchdogSec=2s (WATCHDOG_USEC, WATCHDOG_PID), on a tree whose pages are
// behind a gate: its first build makes progress only as the test lets
// their opens go on. While it does (6 s, three times the watchdog), no gap
// between keep-alives is longer than half of WATCHDOG_USEC, and the status
// counts the entries read; when the releases stop, the build stalls, and
// the keep-alives stop too (systemd would kill it); when the build goes
// on, they resume, and READY=1 comes once it is published.
func TestWatchdogFollowsProgress(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh to exec the child with its WATCHDOG_PID")
	}
	// 2 s, not less: a gap is judged against half of it, and a test
	// machine shared with other runs stalls a process for a few hundred
	// milliseconds now and then.
	const wd = 2 * time.Second
	cfg, root := writeConfig(t, "depth: 1\nwatch: {rescan: 0s}\n")
	g := gateTree(t, root, 400)
	// GOMAXPROCS bounds the walk's parallel reads: each release round
	// then lets a handful of directories be read.
	c := startChildAs(t, cfg, true, fmt.Sprintf("WATCHDOG_USEC=%d", wd.Microseconds()), "GOMAXPROCS=2")

	start := time.Now()
	released := 0
	for time.Since(start) < 3*wd {
		released += g.allowWaiting()
		time.Sleep(100 * time.Millisecond)
	}
	progressEnd := time.Now()
	time.Sleep(3 * wd) // the stall
	stallEnd := time.Now()
	if released < 20 {
		t.Fatalf("only %d pages were read in %v of progress", released, 3*wd)
	}
	g.open()
	c.expect(t, "READY=1")
	ready := time.Now()
	time.Sleep(wd) // keep-alives of the idle loop

	var dogs []time.Time
	var scans []int
	for _, m := range c.messages() {
		switch {
		case m.text == "WATCHDOG=1":
			dogs = append(dogs, m.at)
		case strings.HasPrefix(m.text, "STATUS=scanning: "):
			n, _ := strconv.Atoi(strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(m.text, "STATUS=scanning: "), " entries"), ",", ""))
			scans = append(scans, n)
		case m.text == "READY=1" && m.at.Before(stallEnd):
			t.Errorf("READY=1 at %v, before the build could finish", m.at.Sub(start))
		}
	}
	if len(dogs) == 0 || dogs[0].Sub(start) > wd/2 {
		t.Fatalf("keep-alives: %v", dogs)
	}
	var prev time.Time
	for _, d := range dogs {
		if d.After(progressEnd) {
			break
		}
		if !prev.IsZero() && d.Sub(prev) > wd/2 {
			t.Errorf("a gap of %v between keep-alives at %v, while the build made progress (limit %v)",
				d.Sub(prev), prev.Sub(start), wd/2)
		}
		prev = d
	}
	// Within the stall: the last progress is seen at most a tick late
	// (wd/4), keep-alives go on for half of WatchdogSec after it, one
	// tick more; past that, none.
	quiet := progressEnd.Add(wd/2 + wd/2 + wd/4)
	for _, d := range dogs {
		if d.After(quiet) && d.Before(stallEnd) {
			t.Errorf("a keep-alive %v into a stalled build", d.Sub(progressEnd))
		}
	}
	if d := dogs[len(dogs)-1]; d.Before(ready) {
		t.Errorf("no keep-alive after the build went on (last at %v)", d.Sub(start))
	}
	if len(scans) < 3 || scans[len(scans)-1] <= scans[0] {
		t.Errorf("scanning statuses: %v; want growing entry counts", scans)
	}
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
