package main

// The daemon under test, and the IndexNow receiver on 127.0.0.1 it tells.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sitemapd/sitemapd/internal/indexnowtest"
)

// newReceiver starts the IndexNow receiver on 127.0.0.1.
func newReceiver() (*indexnowtest.Receiver, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	return indexnowtest.Serve(l), nil
}

// daemon is a running `sitemapd run`: its publishes, as its log says.
type daemon struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	pubs []publish
	log  *os.File
}

type publish struct {
	at      time.Time
	trigger string
}

func startDaemon(bin, cfg, logPath string) (*daemon, error) {
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	d := &daemon{cmd: exec.Command(bin, "run", "-config", cfg), log: f}
	stderr, err := d.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := d.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting sitemapd run: %w", err)
	}
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			fmt.Fprintln(f, sc.Text())
			var l struct{ Msg, Trigger string }
			if json.Unmarshal(sc.Bytes(), &l) == nil && l.Msg == "published" {
				d.mu.Lock()
				d.pubs = append(d.pubs, publish{time.Now(), l.Trigger})
				d.mu.Unlock()
			}
		}
	}()
	return d, nil
}

func (d *daemon) published() (n int, last time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.pubs) > 0 {
		last = d.pubs[len(d.pubs)-1].at
	}
	return len(d.pubs), last
}

// waitTrigger waits for a publish with this trigger after the first n.
func (d *daemon) waitTrigger(n int, trigger string, limit time.Duration) error {
	for start := time.Now(); time.Since(start) < limit; time.Sleep(100 * time.Millisecond) {
		d.mu.Lock()
		for _, p := range d.pubs[min(n, len(d.pubs)):] {
			if p.trigger == trigger {
				d.mu.Unlock()
				return nil
			}
		}
		d.mu.Unlock()
	}
	return fmt.Errorf("no %q publish within %v", trigger, limit)
}

// waitPublishes waits until the daemon has published n times.
func (d *daemon) waitPublishes(n int, limit time.Duration) error {
	for start := time.Now(); time.Since(start) < limit; time.Sleep(100 * time.Millisecond) {
		if got, _ := d.published(); got >= n {
			return nil
		}
	}
	return fmt.Errorf("fewer than %d publishes within %v", n, limit)
}

func (d *daemon) stop() error {
	d.cmd.Process.Signal(syscall.SIGTERM)
	err := d.cmd.Wait()
	d.log.Close()
	return err
}

// quiet waits until neither the daemon has published nor the receiver been
// sent anything for rest, and returns when the last of them was (from.
// if neither happened after from).
func quiet(d *daemon, r *indexnowtest.Receiver, from time.Time, rest, limit time.Duration) (time.Time, error) {
	for time.Since(from) < limit {
		_, lp := d.published()
		last := from
		for _, t := range []time.Time{lp, r.LastAt()} {
			if t.After(last) {
				last = t
			}
		}
		if time.Since(last) >= rest {
			return last, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return time.Time{}, fmt.Errorf("the daemon did not rest within %v", limit)
}

// relOf is the page path a URL names, relative to the root.
func relOf(base, u string) string {
	p, err := url.Parse(u)
	if err != nil || !strings.HasPrefix(u, base) {
		return "?" + u
	}
	return strings.TrimPrefix(p.Path, "/")
}

func writeConfig(dir, receiverURL string) (string, error) {
	cfg := filepath.Join(dir, "sitemapd.yaml")
	body := fmt.Sprintf(`root: current
output_dir: sitemaps
state_dir: state
base_url: %s
watch: {rescan: 0s}
log: {level: %s, format: json}
notify:
  endpoints:
    - {name: receiver, kind: indexnow, url: %q, key: 0123456789abcdef}
`, base, *level, receiverURL)
	return cfg, os.WriteFile(cfg, []byte(body), 0o644)
}
