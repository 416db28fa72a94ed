package daemon

import (
	"fmt"
	"path/filepath"

	"github.com/fsnotify/fsnotify"
	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/config"
)

// watchConfig reports edits of the configuration file and of the files
// its include globs match, added or removed (editors replace a file, so
// their directories are watched), on the process's inotify instance. A
// failure only costs automatic reloads.
func (d *Daemon) watchConfig(proc *config.Process) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	src := d.mux.Source()
	abs, _ := filepath.Abs(d.opts.ConfigPath)
	dirs := []string{filepath.Dir(abs)}
	for _, g := range proc.Include {
		dirs = append(dirs, filepath.Dir(g))
	}
	for _, dir := range dirs {
		if err := src.Add(dir); err != nil {
			d.log.Warn("cannot watch the configuration's directory; reload with SIGHUP", zap.String("dir", dir), zap.Error(err))
		}
	}
	wanted := func(p string) bool {
		if p == abs {
			return true
		}
		for _, g := range proc.Include {
			if ok, _ := filepath.Match(g, p); ok {
				return true
			}
		}
		return false
	}
	go func() {
		for {
			select {
			case ev, ok := <-src.Events():
				if !ok {
					return
				}
				if p, _ := filepath.Abs(ev.Name); wanted(p) && !ev.Has(fsnotify.Chmod) {
					select {
					case ch <- struct{}{}:
					default:
					}
				}
			case _, ok := <-src.Errors():
				if !ok {
					return
				}
			}
		}
	}()
	return ch, func() { src.Close() }
}

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
