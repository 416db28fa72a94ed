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
func (n systemdNotifier) Stopping()       { n.send(sd.SdNotifyStopping) }
func (n systemdNotifier) Alive()          { n.send(sd.SdNotifyWatchdog) }
func (n systemdNotifier) Status(s string) { n.send("STATUS=" + s) }
func (n systemdNotifier) ExtendTimeout(d time.Duration) {
	n.send(fmt.Sprintf("EXTEND_TIMEOUT_USEC=%d", d.Microseconds()))
}

// watchdogTimeout is the unit's WatchdogSec (WATCHDOG_USEC, when
// WATCHDOG_PID is unset or ours), or 0 when it sets none. The daemon
// sends keep-alives at a quarter of it, while it shows signs of life.
func watchdogTimeout(log *zap.Logger) time.Duration {
	d, err := sd.SdWatchdogEnabled(false)
	if err != nil {
		log.Warn("bad systemd watchdog settings; not sending keep-alives", zap.Error(err))
		return 0
	}
	return d
}
