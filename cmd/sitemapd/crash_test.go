package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestKillAfterRenameLosesNoURL kills `sitemapd run` with SIGKILL at the
// worst instant, as soon as inotify reports the rename that publishes a new
// page's sitemap, before the daemon can do anything after it; then `sitemapd
// ping` sends what is owed to an IndexNow receiver on 127.0.0.1. Over many
// trials, every new page must reach the receiver: what search engines are
// owed is recorded before the sitemaps that show it.
func TestKillAfterRenameLosesNoURL(t *testing.T) {
	trials := 12
	if testing.Short() {
		trials = 3
	}
	rcv := newReceiver(t)

	dir := t.TempDir()
	cfg, root := writeConfig(t, fmt.Sprintf(`state_dir: %s
watch: {settle: 20ms, max_delay: 200ms, rescan: 0s}
notify:
  endpoints:
    - {name: receiver, kind: indexnow, url: %q, key: 0123456789abcdef, schedule: "@every 1h"}
`, filepath.Join(dir, "state"), rcv.URL))
	os.MkdirAll(filepath.Join(dir, "state"), 0o755)

	killed := 0
	for trial := range trials {
		page := fmt.Sprintf("new%d.html", trial)
		if crashAfterRename(t, cfg, root, page) {
			killed++
		}
		if code, out, stderr := runCLI("ping", "-config", cfg); code != ExitOK {
			t.Fatalf("trial %d: ping: exit %d, %s %s", trial, code, out, stderr)
		}
		if !rcv.Got("https://static.test/" + page) {
			t.Errorf("trial %d: %s was never sent after a kill right after its sitemap's rename", trial, page)
		}
	}
	t.Logf("%d of %d trials killed the daemon right after the rename", killed, trials)
	if killed == 0 {
		t.Error("no trial killed the daemon after the rename: the test tested nothing")
	}
}

// crashAfterRename runs the daemon until it is ready, writes a page, and
// kills the daemon with SIGKILL the moment the root's sitemap.xml is renamed
// into place. It reports whether the kill came before the daemon exited of
// itself (it never does).
func crashAfterRename(t *testing.T, cfg, root, page string) bool {
	t.Helper()
	c := startChild(t, cfg)
	cmd := c.cmd
	c.expect(t, "READY=1")

	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC)
	if err != nil {
		t.Skipf("inotify: %v", err)
	}
	defer unix.Close(fd)
	if _, err := unix.InotifyAddWatch(fd, root, unix.IN_MOVED_TO); err != nil {
		t.Fatal(err)
	}
	renamed := make(chan bool, 1)
	go func() {
		ev := make([]byte, 64*(unix.SizeofInotifyEvent+unix.NAME_MAX+1))
		for {
			n, err := unix.Read(fd, ev)
			if err != nil || n <= 0 {
				renamed <- false
				return
			}
			for off := 0; off+unix.SizeofInotifyEvent <= n; {
				e := (*unix.InotifyEvent)(unsafe.Pointer(&ev[off]))
				name := ev[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(e.Len)]
				if string(bytes.TrimRight(name, "\x00")) == "sitemap.xml" {
					// At once, before anything else: the daemon's next
					// step after this rename must not happen.
					renamed <- syscall.Kill(cmd.Process.Pid, syscall.SIGKILL) == nil
					return
				}
				off += unix.SizeofInotifyEvent + int(e.Len)
			}
		}
	}()
	if err := os.WriteFile(filepath.Join(root, page), []byte("<title>new</title>"), 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case ok := <-renamed:
		cmd.Wait()
		return ok
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: no rename of sitemap.xml seen", page)
		return false
	}
}
