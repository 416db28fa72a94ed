package main

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// child is `sitemapd run` as a child process (the test binary itself, see
// TestMain), with a systemd notify socket to hear it on.
type child struct {
	cmd    *exec.Cmd
	stderr logBuffer
	conn   *net.UnixConn
}

// logBuffer is the child's log, safe to read while the child writes it.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startChild starts `sitemapd run -config cfg` with NOTIFY_SOCKET set and
// the extra environment given. It is killed when the test ends, and its
// log shown if the test failed.
func startChild(t *testing.T, cfg string, env ...string) *child {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "notify.sock")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	c := &child{conn: conn, cmd: exec.Command(os.Args[0], "-test.run=^$")}
	c.cmd.Env = append(append(os.Environ(), "SITEMAPD_CLI_ARGS=run\n-config\n"+cfg, "NOTIFY_SOCKET="+sock), env...)
	c.cmd.Stderr = &c.stderr
	if err := c.cmd.Start(); err != nil {
		conn.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.cmd.Process.Kill()
		c.cmd.Wait()
		conn.Close()
		if t.Failed() {
			t.Logf("sitemapd log:\n%s", c.stderr.String())
		}
	})
	return c
}

// expect waits for a notify message that starts with want and returns it.
func (c *child) expect(t *testing.T, want string) string {
	t.Helper()
	buf := make([]byte, 4096)
	for {
		c.conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		n, err := c.conn.Read(buf)
		if err != nil {
			t.Fatalf("waiting for %q: %v", want, err)
		}
		if msg := string(buf[:n]); strings.HasPrefix(msg, want) {
			return msg
		}
	}
}
