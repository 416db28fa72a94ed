package daemon

import (
	"path/filepath"

	"github.com/fsnotify/fsnotify"
	"go.uber.org/zap"
)

// watchConfig reports edits of the configuration file and of the files
// the include globs match, added or removed (editors replace a file, so
// their directories are watched), on d.cfgEvents, through the process's
// inotify instance, until d.unwatchConfig. A failure only costs automatic
// reloads.
func (d *Daemon) watchConfig(include []string) {
	src := d.mux.Source()
	d.include = include
	d.unwatchConfig = func() { src.Close() }
	abs, _ := filepath.Abs(d.opts.ConfigPath)
	dirs := []string{filepath.Dir(abs)}
	for _, g := range include {
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
		for _, g := range include {
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
					case d.cfgEvents <- struct{}{}:
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
}
