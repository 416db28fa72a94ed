package main

import (
	"fmt"
	"time"

	sd "github.com/coreos/go-systemd/v22/daemon"
	"go.uber.org/zap"
	"golang.org/x/sys/unix"
)

// systemdNotifier speaks sd_notify to systemd (Type=notify). Outside
// systemd (no NOTIFY_SOCKET) every call does nothing.
type systemdNotifier struct{ log *zap.Logger }

func (n systemdNotifier) send(state string) {
	if _, err := sd.SdNotify(false, state); err != nil {
		n.log.Warn("cannot notify systemd", zap.String("state", state), zap.Error(err))
	}
}

func (n systemdNotifier) Ready() { n.send(sd.SdNotifyReady) }
func (n systemdNotifier) Reloading() {
	// MONOTONIC_USEC is what systemd 253's Type=notify-reload asks for;
	// older versions ignore it.
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	n.send(fmt.Sprintf("%s\nMONOTONIC_USEC=%d", sd.SdNotifyReloading, ts.Nano()/1000))
}
func (n systemdNotifier) Stopping() { n.send(sd.SdNotifyStopping) }
func (n systemdNotifier) Alive()    { n.send(sd.SdNotifyWatchdog) }

// watchdogInterval is how often to tell systemd the main loop is alive:
// half of WatchdogSec, or 0 when the unit sets none.
func watchdogInterval(log *zap.Logger) time.Duration {
	d, err := sd.SdWatchdogEnabled(false)
	if err != nil {
		log.Warn("bad systemd watchdog settings; not sending keep-alives", zap.Error(err))
		return 0
	}
	return d / 2
}
