package main

import (
	"bytes"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// child is `sitemapd run` as a child process (the test binary itself, see
// TestMain), with a systemd notify socket to hear it on.
type child struct {
	cmd    *exec.Cmd
	stderr logBuffer
	conn   *net.UnixConn

	mu     sync.Mutex
	msgs   []notifyMsg   // every message, as it came
	next   int           // the first message expect has not looked at
	more   chan struct{} // signaled when a message comes
	closed bool          // the socket is closed: no more will
}

// notifyMsg is one sd_notify datagram and when it came.
type notifyMsg struct {
	at   time.Time
	text string
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
	return startChildAs(t, cfg, false, env...)
}

// startChildAs is startChild; with watchdogPID, WATCHDOG_PID is set to
// the child's own PID, as systemd sets it (through a shell that execs the
// child, so that the PID is known before it starts).
func startChildAs(t *testing.T, cfg string, watchdogPID bool, env ...string) *child {
	t.Helper()
	return startChildWith(t, cfg, childOptions{watchdogPID: watchdogPID}, env...)
}

// childOptions are how startChildWith starts the child.
type childOptions struct {
	watchdogPID bool
	// exe, if set, is the test binary to run (a copy another user can
	// run), and dir a directory for the notify socket that user can
	// reach; cred the user to run as.
	exe, dir string
	cred     *syscall.Credential
}

func startChildWith(t *testing.T, cfg string, o childOptions, env ...string) *child {
	t.Helper()
	if o.dir == "" {
		o.dir = t.TempDir()
	}
	if o.exe == "" {
		o.exe = os.Args[0]
	}
	sock := filepath.Join(o.dir, "notify.sock")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	if o.cred != nil {
		os.Chmod(sock, 0o777)
	}
	c := &child{conn: conn, more: make(chan struct{}, 1)}
	if o.watchdogPID {
		c.cmd = exec.Command("/bin/sh", "-c", `WATCHDOG_PID=$$ exec "$0" "$@"`, o.exe, "-test.run=^$")
	} else {
		c.cmd = exec.Command(o.exe, "-test.run=^$")
	}
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: o.cred}
	c.cmd.Env = append(append(os.Environ(), "SITEMAPD_CLI_ARGS=run\n-config\n"+cfg, "NOTIFY_SOCKET="+sock), env...)
	c.cmd.Stderr = &c.stderr
	if err := c.cmd.Start(); err != nil {
		conn.Close()
		t.Fatal(err)
	}
	// Read every message as it comes: the socket's queue is short (10
	// datagrams by default), and a child whose messages nobody reads
	// blocks in sd_notify.
	go c.read()
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

func (c *child) read() {
	buf := make([]byte, 4096)
	for {
		n, err := c.conn.Read(buf)
		c.mu.Lock()
		if err != nil {
			c.closed = true
		} else {
			c.msgs = append(c.msgs, notifyMsg{time.Now(), string(buf[:n])})
		}
		c.mu.Unlock()
		select {
		case c.more <- struct{}{}:
		default:
		}
		if err != nil {
			return
		}
	}
}

// messages returns every message so far.
func (c *child) messages() []notifyMsg {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]notifyMsg(nil), c.msgs...)
}

// expect waits for a notify message that starts with want, after those
// expect already returned or skipped, and returns it.
func (c *child) expect(t *testing.T, want string) string {
	t.Helper()
	msg, err := c.await(want, 30*time.Second)
	if err != nil {
		t.Fatalf("waiting for %q: %v", want, err)
	}
	return msg
}

// await is expect returning an error.
func (c *child) await(want string, timeout time.Duration) (string, error) {
	deadline := time.After(timeout)
	for {
		c.mu.Lock()
		for c.next < len(c.msgs) {
			m := c.msgs[c.next]
			c.next++
			if strings.HasPrefix(m.text, want) {
				c.mu.Unlock()
				return m.text, nil
			}
		}
		closed := c.closed
		c.mu.Unlock()
		if closed {
			return "", errors.New("notify socket closed")
		}
		select {
		case <-c.more:
		case <-deadline:
			return "", errors.New("timed out")
		}
	}
}
