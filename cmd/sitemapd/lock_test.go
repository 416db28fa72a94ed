package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/lock"
)

// buildSession is what `sitemapd build -config cfg` starts with, logging
// into a buffer.
func buildSession(t *testing.T, cfg string) (session, *bytes.Buffer) {
	t.Helper()
	c, err := config.LoadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	log := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(&buf), zap.InfoLevel))
	return session{path: cfg, cfg: c, log: log, ctx: context.Background()}, &buf
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

// TestBuildWaitsForBuild: a build finds another in the way and waits for
// it.
func TestBuildWaitsForBuild(t *testing.T) {
	cfg, root := writeConfig(t, "")
	other, err := lock.Acquire(filepath.Join(root, lock.OutputName), root, lock.Holder{PID: 12345, Command: "build", Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(500 * time.Millisecond)
		other.Close()
	}()
	s, log := buildSession(t, cfg)
	start := time.Now()
	release, status := lockTree(s, "build")
	if release == nil {
		t.Fatalf("status %d\n%s", status, log)
	}
	release()
	if time.Since(start) < 400*time.Millisecond || !strings.Contains(log.String(), "waiting for sitemapd build (pid 12345") {
		t.Errorf("did not wait (%v):\n%s", time.Since(start), log)
	}
	b, _ := os.ReadFile(filepath.Join(root, lock.OutputName))
	if !strings.Contains(string(b), "pid="+strconv.Itoa(os.Getpid())+"\ncommand=build\n") {
		t.Errorf("lock file says %q", b)
	}
}
