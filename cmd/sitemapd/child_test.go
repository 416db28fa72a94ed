package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
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

// notifyMsg is one sd_notify datagram and when it came: the kernel's
// stamp of its arrival on the socket (SO_TIMESTAMPNS), so that the times
// the tests compare are the child's, however late the test's reader runs
// on a loaded machine.
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
	stampArrivals(t, conn)
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

// stampArrivals has the kernel stamp each datagram as it arrives.
func stampArrivals(t *testing.T, conn *net.UnixConn) {
	t.Helper()
	raw, err := conn.SyscallConn()
	if err == nil {
		err = raw.Control(func(fd uintptr) {
			err = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
		})
	}
	if err != nil {
		t.Fatalf("SO_TIMESTAMPNS on the notify socket: %v", err)
	}
}

// arrival is the kernel's stamp among a datagram's control messages, or
// now if there is none.
func arrival(oob []byte) time.Time {
	msgs, _ := unix.ParseSocketControlMessage(oob)
	for _, m := range msgs {
		// struct timespec: tv_sec and tv_nsec, 64 bits each on the
		// 64-bit platforms the tests run on.
		if m.Header.Level == unix.SOL_SOCKET && m.Header.Type == unix.SCM_TIMESTAMPNS && len(m.Data) >= 16 {
			sec := int64(binary.NativeEndian.Uint64(m.Data[0:8]))
			nsec := int64(binary.NativeEndian.Uint64(m.Data[8:16]))
			return time.Unix(sec, nsec)
		}
	}
	return time.Now()
}

func (c *child) read() {
	buf := make([]byte, 4096)
	oob := make([]byte, 128)
	for {
		n, oobn, _, _, err := c.conn.ReadMsgUnix(buf, oob)
		c.mu.Lock()
		if err != nil {
			c.closed = true
		} else {
			c.msgs = append(c.msgs, notifyMsg{arrival(oob[:oobn]), string(buf[:n])})
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

// awaitCap bounds any wait, however often the child asks for more time:
// it only stops a broken test.
const awaitCap = 5 * time.Minute

// await is expect returning an error. It waits timeout, and as systemd
// does with its start timeout, longer while the child asks for it: each
// EXTEND_TIMEOUT_USEC (which the daemon sends while a start or a reload
// makes progress) moves the deadline to at least timeout after it. A
// first build that a loaded machine slows is waited for; one that stalls
// is not. awaitCap bounds it all.
func (c *child) await(want string, timeout time.Duration) (string, error) {
	begin := time.Now()
	deadline := begin.Add(timeout)
	for {
		c.mu.Lock()
		for c.next < len(c.msgs) {
			m := c.msgs[c.next]
			c.next++
			if strings.HasPrefix(m.text, want) {
				c.mu.Unlock()
				return m.text, nil
			}
			if strings.HasPrefix(m.text, "EXTEND_TIMEOUT_USEC=") {
				deadline = later(deadline, time.Now().Add(timeout))
			}
		}
		closed := c.closed
		c.mu.Unlock()
		if closed {
			return "", errors.New("notify socket closed")
		}
		deadline = earlier(deadline, begin.Add(awaitCap))
		select {
		case <-c.more:
		case <-time.After(time.Until(deadline)):
			return "", fmt.Errorf("timed out after %v", time.Since(begin).Round(time.Second))
		}
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// freeAddr is a loopback address no one listens on now, for a daemon's
// listen key: the port is free when it returns (another process may take
// it before the daemon does, which the daemon's start then reports).
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
