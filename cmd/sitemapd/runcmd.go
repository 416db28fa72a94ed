package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"syscall"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/daemon"
	"github.com/sitemapd/sitemapd/internal/lock"
)

// cmdRun is `sitemapd run`: the daemon, until a signal stops it.
func cmdRun(args []string, stderr io.Writer) int {
	s, ok := start("run", args, stderr)
	if !ok {
		return ExitUsage
	}
	defer s.stop()
	path, log, ctx := s.path, s.log, s.ctx
	if len(s.sites) == 0 {
		printErr(stderr, fmt.Errorf("no site can be served: %w", s.proc.Err()))
		return ExitUsage
	}
	if os.Getenv("GOGC") == "" {
		// The daemon keeps a compact picture of the tree for as long as
		// it runs, built during full walks that make garbage at a high
		// rate (a head read per page): with the default GOGC the heap
		// grows to twice the live data during a walk, and what stays
		// resident after it is scattered over the spans that grew. At
		// 1,000,000 files, GOGC=50 kept 95 MiB resident where the
		// default kept 128 MiB, for the same CPU per change
		// (bench/watch.sh). GOGC in the environment wins.
		debug.SetGCPercent(50)
	}
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	reload := make(chan struct{}, 1)
	go func() {
		for range hup {
			select {
			case reload <- struct{}{}:
			default:
			}
		}
	}()

	d := daemon.New(daemon.Options{
		ConfigPath: path, Reload: reload, Version: versionString(),
		Lifecycle: systemdNotifier{log}, Watchdog: watchdogTimeout(log),
		// The heap bound during full builds (daemon/buildheap.go) is the
		// runtime tuned as GOGC is: a GOGC or GOMEMLIMIT in the
		// environment wins.
		BoundBuilds: os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "",
	}, log)
	err := d.Run(ctx)
	var held *lock.HeldError
	switch {
	case errors.As(err, &held):
		// Another daemon serves this tree: retrying cannot help (a build
		// in the way was waited for), and a restart loop would only fill
		// the journal. Exit 2, which the units do not restart
		// (RestartPreventExitStatus=2), as for a configuration that
		// cannot work: two configurations claim one tree.
		log.Error("not started: "+err.Error(), zap.Int("holder_pid", held.Holder.PID))
		return ExitUsage
	case errors.Is(err, daemon.ErrNothingPublished):
		log.Error("stopped: the first build wrote nothing; not ready")
		for _, e := range splitErrors(err) {
			if e != daemon.ErrNothingPublished {
				log.Error("build problem", zap.Error(e))
			}
		}
		return ExitFailure
	case err != nil:
		log.Error("stopped", zap.Error(err))
		return ExitFailure
	}
	log.Info("stopped")
	return ExitOK
}

// lockTree takes the output tree and state directory of s's configuration
// for a command that writes them other than run (whose daemon takes them
// itself, and keeps them across reloads): `sitemapd build`. Another build
// in the way is waited for: it ends, and this one's result is the newer.
// A daemon in the way refuses it with exit 2: it keeps the sitemaps
// current already, and two writers would each undo the other's view of
// what is published (its memory, the page store, the text record); the
// message names it. Waiting for it instead would wait forever.
//
// It returns a function releasing the locks, or nil and the exit status.
func lockTree(s session, command string) (release func(), status int) {
	abs, _ := filepath.Abs(s.path)
	me := lock.Holder{PID: os.Getpid(), Command: command, Config: abs}
	locks, err := lock.TakeAll(s.ctx, s.cfg, me, lock.Options{Wait: func(h *lock.HeldError) {
		s.log.Info("waiting for "+h.Holder.String()+" to finish", zap.String("dir", h.Dir))
	}})
	var held *lock.HeldError
	switch {
	case errors.As(err, &held):
		s.log.Error(err.Error()+"; it keeps the sitemaps current: stop it to "+command+" by hand",
			zap.Int("holder_pid", held.Holder.PID))
		return nil, ExitUsage
	case s.ctx.Err() != nil:
		s.log.Warn("interrupted while waiting for another sitemapd")
		return nil, ExitFailure
	case err != nil:
		s.log.Error("cannot start", zap.Error(err))
		return nil, ExitFailure
	}
	return func() { locks.Close() }, ExitOK
}
