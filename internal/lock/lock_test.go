package lock

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/config"
)

// flock locks belong to an open file: two opens in one process conflict
// as two processes do, so these tests need no child process.

func cfgFor(root, out, state string, endpoints bool) *config.Config {
	c := &config.Config{Root: root, OutputDir: out, StateDir: state}
	if endpoints {
		c.Notify.Endpoints = []config.Endpoint{{Name: "x"}}
	}
	return c
}

func TestSecondHolderIsNamed(t *testing.T) {
	old := syscall.Umask(0o077) // process-wide: no t.Parallel here
	defer syscall.Umask(old)
	dir := t.TempDir()
	run := Holder{PID: 4242, Command: "run", Config: "/etc/sitemapd/a.yaml"}
	a, err := TakeAll(context.Background(), cfgFor(dir, "", filepath.Join(dir, "none"), false), run, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	_, err = TakeAll(context.Background(), cfgFor(dir, "", "", false), Holder{PID: 1, Command: "run"}, Options{})
	var held *HeldError
	if !errors.As(err, &held) {
		t.Fatalf("second TakeAll: %v, want a *HeldError", err)
	}
	if held.Holder != run || held.Dir != dir {
		t.Errorf("holder %+v of %s, want %+v of %s", held.Holder, held.Dir, run, dir)
	}
	for _, want := range []string{"sitemapd run (pid 4242, config /etc/sitemapd/a.yaml)", dir, OutputName} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	a.Close()
	b, err := TakeAll(context.Background(), cfgFor(dir, "", "", false), Holder{PID: 1, Command: "run"}, Options{})
	if err != nil {
		t.Fatalf("after the first closed: %v", err)
	}
	b.Close()
	// The file stays; it is no lock. Anyone may open it to meet the lock.
	if st, err := os.Stat(filepath.Join(dir, OutputName)); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("lock file: %v, %v", st.Mode(), err)
	}
}

// TestStateDirAlone: two configurations with other output roots but the
// same state directory meet there; a state_dir that does not exist (and
// that no endpoint needs) is not made.
func TestStateDirAlone(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	for _, d := range []string{"a", "b"} {
		os.Mkdir(filepath.Join(dir, d), 0o755)
	}
	a, err := TakeAll(context.Background(), cfgFor(filepath.Join(dir, "a"), "", state, false), Holder{PID: 1, Command: "run"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(state); err == nil {
		t.Error("state_dir was created without endpoints")
	}
	a.Close()
	a, err = TakeAll(context.Background(), cfgFor(filepath.Join(dir, "a"), "", state, true), Holder{PID: 1, Command: "run"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	_, err = TakeAll(context.Background(), cfgFor(filepath.Join(dir, "b"), "", state, false), Holder{PID: 2, Command: "run"}, Options{})
	var held *HeldError
	if !errors.As(err, &held) || held.Dir != state {
		t.Fatalf("same state_dir: %v", err)
	}
	// Nothing of the failed set is held: b's output lock is free.
	b, err := Acquire(filepath.Join(dir, "b", OutputName), filepath.Join(dir, "b"), Holder{})
	if err != nil {
		t.Fatalf("b's output root stayed locked: %v", err)
	}
	b.Close()
}

// TestSameOutputOtherConfig: output_dir shared by two configurations.
func TestSameOutputOtherConfig(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	os.Mkdir(out, 0o755)
	a, err := TakeAll(context.Background(), cfgFor(filepath.Join(dir, "r1"), out, "", false), Holder{PID: 1, Command: "run"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	_, err = TakeAll(context.Background(), cfgFor(filepath.Join(dir, "r2"), out, "", false), Holder{PID: 2, Command: "run"}, Options{})
	if !errors.As(err, new(*HeldError)) {
		t.Fatalf("same output_dir: %v", err)
	}
}

// TestWaitForBuild: a build in the way is waited for; a daemon is not.
func TestWaitForBuild(t *testing.T) {
	dir := t.TempDir()
	cfg := cfgFor(dir, "", "", false)
	b, err := TakeAll(context.Background(), cfg, Holder{PID: 7, Command: "build"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	waited := make(chan *HeldError, 1)
	go func() {
		time.Sleep(300 * time.Millisecond)
		b.Close()
	}()
	r, err := TakeAll(context.Background(), cfg, Holder{PID: 8, Command: "run"}, Options{Wait: func(h *HeldError) { waited <- h }})
	if err != nil {
		t.Fatal(err)
	}
	if h := <-waited; h.Holder.PID != 7 {
		t.Errorf("waited for %+v", h.Holder)
	}
	start := time.Now()
	_, err = TakeAll(context.Background(), cfg, Holder{PID: 9, Command: "run"}, Options{Wait: func(*HeldError) { t.Error("waited for a daemon") }})
	if !errors.As(err, new(*HeldError)) || time.Since(start) > 2*time.Second {
		t.Errorf("a run in the way: %v after %v", err, time.Since(start))
	}
	r.Close()

	// Waiting ends with the context.
	b2, _ := TakeAll(context.Background(), cfg, Holder{PID: 7, Command: "build"}, Options{})
	defer b2.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := TakeAll(ctx, cfg, Holder{PID: 8, Command: "run"}, Options{Wait: func(*HeldError) {}}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("canceled wait: %v", err)
	}
}

// TestKeepAndRenew: a reload keeps the locks it still needs; a swapped
// symlinked root is locked again on its new target.
func TestKeepAndRenew(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"r1", "r2", "other"} {
		os.Mkdir(filepath.Join(dir, d), 0o755)
	}
	root := filepath.Join(dir, "current")
	os.Symlink("r1", root)
	me := Holder{PID: 1, Command: "run"}
	s, err := TakeAll(context.Background(), cfgFor(root, "", "", false), me, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The same config again, keeping s: nothing new is taken (taking it
	// again would meet s's own lock).
	s2, err := TakeAll(context.Background(), cfgFor(root, "", "", false), me, Options{Keep: s})
	if err != nil {
		t.Fatal(err)
	}
	s.Close() // what is left of it: nothing
	if _, err := Acquire(filepath.Join(dir, "r1", OutputName), "r1", me); !errors.As(err, new(*HeldError)) {
		t.Fatalf("kept lock was released: %v", err)
	}
	// A failed TakeAll keeps nothing from Keep.
	other, _ := Acquire(filepath.Join(dir, "other", OutputName), "other", me)
	if _, err := TakeAll(context.Background(), cfgFor(root, filepath.Join(dir, "other"), "", false), me, Options{Keep: s2}); err == nil {
		t.Fatal("took a held lock")
	}
	other.Close()

	os.Symlink("r2", root+".new")
	os.Rename(root+".new", root)
	if err := s2.Renew(me); err != nil {
		t.Fatal(err)
	}
	if _, err := Acquire(filepath.Join(dir, "r2", OutputName), "r2", me); !errors.As(err, new(*HeldError)) {
		t.Errorf("new release not locked: %v", err)
	}
	l, err := Acquire(filepath.Join(dir, "r1", OutputName), "r1", me)
	if err != nil {
		t.Errorf("old release still locked: %v", err)
	}
	l.Close()
	if err := s2.Renew(me); err != nil { // nothing changed: nothing to do
		t.Fatal(err)
	}
	s2.Close()
}
