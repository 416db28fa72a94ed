package daemon

// What systemd is told of the sites together: the status line, and READY
// and RELOADING as sites start.

import (
	"fmt"
	"slices"
)

// setStatus says what the daemon is doing now that no publish runs: the
// /healthz reason if it is unhealthy, what is published otherwise.
func (d *Daemon) setStatus() {
	if d.keeper == nil {
		return
	}
	if reason := d.metrics.Load().Reason(); reason != "" {
		d.keeper.set("degraded: " + reason)
		return
	}
	d.mu.Lock()
	n, groups, urls := len(d.all), 0, 0
	for _, s := range d.all {
		g, u := s.published()
		groups, urls = groups+g, urls+u
	}
	d.mu.Unlock()
	status := fmt.Sprintf("published %s, %s; waiting for changes", plural(groups, "group"), plural(urls, "URL"))
	if d.multi {
		status = plural(n, "site") + ": " + status
	}
	d.keeper.set(status)
}

func plural(n int, what string) string {
	if n != 1 {
		what += "s"
	}
	return commas(int64(n)) + " " + what
}

// forget drops a site that no longer runs from what READY, the status
// and the keeper follow.
func (d *Daemon) forget(s *runner) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.all = slices.DeleteFunc(d.all, func(o *runner) bool { return o == s })
	delete(d.pending, s)
	d.readyLocked()
}

// starting notes a site (re)starting: READY (again) waits for its first
// publish. After READY, the first site to restart sends RELOADING.
func (d *Daemon) starting(s *runner) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.pending) == 0 && d.readySent {
		d.readySent = false
		d.keeper.setStarting(true)
		d.lifecycle(Lifecycle.Reloading)
	}
	d.pending[s] = true
}

// started notes a site's first publish done (or failed, and logged).
func (d *Daemon) started(s *runner) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.pending, s)
	d.readyLocked()
}

// readyLocked sends READY once every site is up; d.mu is held.
func (d *Daemon) readyLocked() {
	if d.launched && len(d.pending) == 0 && !d.readySent {
		d.readySent = true
		d.keeper.setStarting(false)
		d.lifecycle(Lifecycle.Ready)
	}
}

// progress sums the progress of every site's engine, for the keeper.
func (d *Daemon) progress() (entries, steps int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, s := range d.all {
		if eng := s.eng.Load(); eng != nil {
			e, st := eng.Progress()
			entries, steps = entries+e, steps+st
		}
	}
	return entries, steps
}
