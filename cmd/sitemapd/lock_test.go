package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/lock"
)

// buildSession is what `sitemapd build -config cfg` starts with, logging
// into a buffer another goroutine may read.
func buildSession(t *testing.T, cfg string) (session, *logBuffer) {
	t.Helper()
	c, err := config.LoadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	buf := &logBuffer{}
	log := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(buf), zap.InfoLevel))
	return session{path: cfg, cfg: c, log: log, ctx: context.Background()}, buf
}

// TestBuildBesideADaemon: a build on a tree a daemon serves is refused
// with exit 2, naming the daemon; once the daemon is gone it runs, and
// what it left (the lock files) is no lock.
func TestBuildBesideADaemon(t *testing.T) {
	cfg, root := writeConfig(t, "")
	c := startChild(t, cfg)
	c.expect(t, "READY=1")
	s, log := buildSession(t, cfg)
	release, status := lockTree(s, "build")
	if release != nil || status != ExitUsage {
		t.Fatalf("build beside a daemon: %d", status)
	}
	want := "sitemapd run (pid " + strconv.Itoa(c.cmd.Process.Pid) + ", config " + cfg + ") already publishes " + root
	if !strings.Contains(log.String(), want) || !strings.Contains(log.String(), "stop it to build by hand") {
		t.Errorf("log %s lacks %q", log, want)
	}
	if code, _, stderr := runCLI("build", "-config", cfg); code != ExitUsage || !strings.Contains(stderr, want) {
		t.Errorf("sitemapd build beside a daemon: exit %d, %s", code, stderr)
	}
	c.cmd.Process.Kill() // no clean stop: the kernel drops the lock
	c.cmd.Wait()
	release, status = lockTree(s, "build")
	if release == nil {
		t.Fatalf("after the daemon: %d\n%s", status, log)
	}
	release()
	if code, _, stderr := runCLI("build", "-config", cfg); code != ExitOK {
		t.Errorf("build: %d %s", code, stderr)
	}
}

// TestBuildWaitsForBuild: a build finds another in the way, says so, and
// waits for it: the other lets go only once the wait is logged, and the
// build must not have the tree before then (an order, not a time, so
// that a slow machine cannot fail it).
func TestBuildWaitsForBuild(t *testing.T) {
	cfg, root := writeConfig(t, "")
	other, err := lock.Acquire(filepath.Join(root, lock.OutputName), root, lock.Holder{PID: 12345, Command: "build", Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	s, log := buildSession(t, cfg)
	var released atomic.Bool
	go func() {
		deadline := time.Now().Add(time.Minute) // only stops a broken test
		for !strings.Contains(log.String(), "waiting for sitemapd build (pid 12345") && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		released.Store(true)
		other.Close()
	}()
	release, status := lockTree(s, "build")
	if release == nil {
		t.Fatalf("status %d\n%s", status, log)
	}
	release()
	if !released.Load() || !strings.Contains(log.String(), "waiting for sitemapd build (pid 12345") {
		t.Errorf("took the tree while the other build held it (let go: %v), or did not say it waited:\n%s", released.Load(), log)
	}
	b, _ := os.ReadFile(filepath.Join(root, lock.OutputName))
	if !strings.Contains(string(b), "pid="+strconv.Itoa(os.Getpid())+"\ncommand=build\n") {
		t.Errorf("lock file says %q", b)
	}
}
