// Package etcdtest runs a real etcd cluster for tests: Debian's
// etcd-server (/usr/bin/etcd, 3.4 in Debian 12), several members on free
// loopback ports, their data in the test's temporary directory, stopped
// when the test ends. Members can be killed (SIGKILL) and started again,
// one or all, as an operator's outage would.
//
// Without an etcd binary the tests that need one skip, except under CI
// (CI set in the environment), where they fail: .ci/run installs it.
package etcdtest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Binary finds the etcd server, or skips the test (fails it under CI).
func Binary(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("etcd"); err == nil {
		return p
	}
	why := "etcd is not installed (Debian: apt-get install etcd-server)"
	if os.Getenv("CI") != "" {
		t.Fatalf("CI installs etcd-server: %s", why)
	}
	t.Skip(why)
	return ""
}

// Cluster is a running etcd cluster.
type Cluster struct {
	t       testing.TB
	bin     string
	dir     string
	members []*member
}

type member struct {
	name         string
	client, peer string // URLs
	dataDir, log string
	mu           sync.Mutex
	cmd          *exec.Cmd
	exited       chan struct{}
}

// Start starts an n-member cluster and waits until every member is
// healthy. It is stopped in t.Cleanup.
func Start(t testing.TB, n int) *Cluster {
	t.Helper()
	c := &Cluster{t: t, bin: Binary(t), dir: t.TempDir()}
	ports := freePorts(t, 2*n)
	var initial []string
	for i := 0; i < n; i++ {
		m := &member{
			name:    fmt.Sprintf("m%d", i),
			client:  fmt.Sprintf("http://127.0.0.1:%d", ports[2*i]),
			peer:    fmt.Sprintf("http://127.0.0.1:%d", ports[2*i+1]),
			dataDir: filepath.Join(c.dir, fmt.Sprintf("m%d.etcd", i)),
			log:     filepath.Join(c.dir, fmt.Sprintf("m%d.log", i)),
		}
		c.members = append(c.members, m)
		initial = append(initial, m.name+"="+m.peer)
	}
	t.Cleanup(c.stopAll)
	for _, m := range c.members {
		c.start(m, strings.Join(initial, ","))
	}
	c.WaitHealthy(60 * time.Second)
	return c
}

// Endpoints are the members' client URLs.
func (c *Cluster) Endpoints() []string {
	out := make([]string, len(c.members))
	for i, m := range c.members {
		out[i] = m.client
	}
	return out
}

// Size is the number of members.
func (c *Cluster) Size() int { return len(c.members) }

func (c *Cluster) start(m *member, initial string) {
	c.t.Helper()
	logf, err := os.OpenFile(m.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		c.t.Fatal(err)
	}
	defer logf.Close()
	// The initial cluster flags are ignored by a member that has data
	// (a restart), which rejoins as it was.
	cmd := exec.Command(c.bin,
		"--name", m.name, "--data-dir", m.dataDir,
		"--listen-client-urls", m.client, "--advertise-client-urls", m.client,
		"--listen-peer-urls", m.peer, "--initial-advertise-peer-urls", m.peer,
		"--initial-cluster", initial, "--initial-cluster-state", "new",
		"--initial-cluster-token", "sitemapd-test",
		"--logger", "zap", "--log-outputs", "stderr",
		// Short elections: a killed leader is replaced in about a second.
		"--heartbeat-interval", "100", "--election-timeout", "1000",
	)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		c.t.Fatalf("start etcd member %s: %v", m.name, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	m.mu.Lock()
	m.cmd, m.exited = cmd, exited
	m.mu.Unlock()
}

// Kill stops member i with SIGKILL and waits for it to exit.
func (c *Cluster) Kill(i int) {
	m := c.members[i]
	m.mu.Lock()
	cmd, exited := m.cmd, m.exited
	m.cmd = nil
	m.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Kill()
	<-exited
}

// Restart starts member i again (after Kill), with its data.
func (c *Cluster) Restart(i int) {
	c.t.Helper()
	var initial []string
	for _, m := range c.members {
		initial = append(initial, m.name+"="+m.peer)
	}
	c.start(c.members[i], strings.Join(initial, ","))
}

// KillAll kills every member; RestartAll starts them all again and waits
// until they are healthy.
func (c *Cluster) KillAll() {
	for i := range c.members {
		c.Kill(i)
	}
}

// RestartAll starts every killed member again and waits for health.
func (c *Cluster) RestartAll() {
	c.t.Helper()
	for i, m := range c.members {
		m.mu.Lock()
		running := m.cmd != nil
		m.mu.Unlock()
		if !running {
			c.Restart(i)
		}
	}
	c.WaitHealthy(60 * time.Second)
}

// WaitHealthy waits until every running member answers healthy (its
// /health endpoint, which says whether it has a leader and can serve).
func (c *Cluster) WaitHealthy(limit time.Duration) {
	c.t.Helper()
	deadline := time.Now().Add(limit)
	for _, m := range c.members {
		m.mu.Lock()
		running := m.cmd != nil
		m.mu.Unlock()
		if !running {
			continue
		}
		for !Healthy(m.client) {
			if time.Now().After(deadline) {
				c.t.Fatalf("etcd member %s not healthy after %s; its log:\n%s", m.name, limit, tail(m.log))
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// Healthy reports whether the etcd member at client URL u says it is.
func Healthy(u string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u+"/health", nil)
	if err != nil {
		return false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return resp.StatusCode == http.StatusOK && strings.Contains(b.String(), `"health":"true"`)
}

func (c *Cluster) stopAll() {
	c.KillAll()
	if c.t.Failed() {
		for _, m := range c.members {
			c.t.Logf("etcd member %s, end of its log:\n%s", m.name, tail(m.log))
		}
	}
}

// tail is the end of a log file.
func tail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// freePorts finds n free loopback TCP ports, holding them all open at once
// so that none is handed out twice.
func freePorts(t testing.TB, n int) []int {
	t.Helper()
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	out := make([]int, n)
	for i := range out {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		out[i] = l.Addr().(*net.TCPAddr).Port
	}
	return out
}
