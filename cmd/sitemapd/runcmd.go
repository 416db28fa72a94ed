package main

import (
	"errors"
	"io"
	"os"
	"os/signal"
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
