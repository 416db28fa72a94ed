package main

// The deploy patterns. Each prepares what it deploys (not timed), deploys
// it (timed), and names the pages it changed in substance: the URLs the
// receiver must be sent, no more.

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"time"
)

type pattern struct {
	name string
	run  func(b *bench) (prep, deploy func() error, want []string, err error)
}

var patterns = []pattern{
	{"cp -r over the live tree, the same bytes", func(b *bench) (func() error, func() error, []string, error) {
		return b.fresh(b.build(), 0, edits{}), b.copyOver("cp", "-r", b.build()+"/.", b.root()+"/"), nil, nil
	}},
	{"rsync, the same bytes (temporary files renamed)", func(b *bench) (func() error, func() error, []string, error) {
		return nil, b.copyOver("rsync", "-r", b.build()+"/", b.root()+"/"), nil, nil
	}},
	{"rsync --delete, a new template, one page changed, one removed, one added", func(b *bench) (func() error, func() error, []string, error) {
		e := edits{changed: []string{b.pick(1)}, removed: []string{b.pick(2)}, added: []string{b.newName(3)}}
		return b.fresh(b.build(), 2, e), b.copyOver("rsync", "-r", "--delete", b.build()+"/", b.root()+"/"), e.pages(), nil
	}},
	{"rsync --inplace, a new template, one page changed", func(b *bench) (func() error, func() error, []string, error) {
		want := []string{b.pick(4)}
		return b.fresh(b.build(), 3, edits{changed: want}), b.copyOver("rsync", "-r", "--inplace", b.build()+"/", b.root()+"/"), want, nil
	}},
	{"current -> releases/N, the same bytes", func(b *bench) (func() error, func() error, []string, error) {
		return b.fresh(b.release(b.n+1), 0, edits{}), func() error { return b.swap(b.n + 1) }, nil, nil
	}},
	{"current -> releases/N, one page changed", func(b *bench) (func() error, func() error, []string, error) {
		want := []string{b.pick(5)}
		return b.fresh(b.release(b.n+1), 0, edits{changed: want}), func() error { return b.swap(b.n + 1) }, want, nil
	}},
	{"current -> releases/N, one page removed", func(b *bench) (func() error, func() error, []string, error) {
		want := []string{b.pick(6)}
		return b.fresh(b.release(b.n+1), 0, edits{removed: want}), func() error { return b.swap(b.n + 1) }, want, nil
	}},
	{"restart across a swap: a new template, one page changed", func(b *bench) (func() error, func() error, []string, error) {
		want := []string{b.pick(7)}
		return b.fresh(b.release(b.n+1), 4, edits{changed: want}), b.restartAcross(b.n + 1), want, nil
	}},
}

func (b *bench) build() string { return filepath.Join(*work, "build") }

// pick is a page of the current release, the i-th one drawn, in a
// directory of at least three pages.
func (b *bench) pick(i int) string {
	r := seeded(fmt.Sprint("pick", i))
	for {
		p := b.s.pages[r.IntN(len(b.s.pages))]
		if len(b.s.dirs[path.Dir(p)]) >= 3 && b.s.rev[p] == 0 {
			return p
		}
	}
}

// newName is a page that does not exist yet, beside a page drawn.
func (b *bench) newName(i int) string {
	return path.Join(path.Dir(b.pick(i)), fmt.Sprintf("new & noted %d.html", i))
}

// edits are what a release changes: pages changed (a sentence added to
// their content), removed, added.
type edits struct{ changed, removed, added []string }

func (e edits) pages() []string {
	return append(append(append([]string(nil), e.changed...), e.removed...), e.added...)
}

// fresh returns what writes the next release (or build directory) dir:
// a copy of the live one (new inodes and mtimes), with the template at
// version tmpl (0: unchanged) and the edits e.
func (b *bench) fresh(dir string, tmpl int, e edits) func() error {
	return func() error {
		if err := b.prune(); err != nil {
			return err
		}
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		if err := command("cp", "-r", b.root()+"/.", dir); err != nil {
			return err
		}
		touched := b.edit(dir, e)
		if tmpl != 0 {
			b.s.tmpl = tmpl
			return b.s.write(dir, b.s.pages...)
		}
		return b.s.write(dir, touched...)
	}
}

// edit applies e to the model and the files of dir and returns the pages
// to render again: the changed and added pages, and every page of a
// directory that gained or lost one (their sidebars and prev/next links).
func (b *bench) edit(dir string, e edits) []string {
	touched := append([]string(nil), e.changed...)
	for _, p := range e.changed {
		b.s.rev[p]++
	}
	for _, p := range e.removed {
		b.s.remove(p)
		os.Remove(filepath.Join(dir, filepath.FromSlash(p)))
	}
	for _, p := range e.added {
		b.s.add(p)
	}
	for _, p := range append(append([]string(nil), e.removed...), e.added...) {
		for _, n := range b.s.dirs[path.Dir(p)] {
			touched = append(touched, path.Join(path.Dir(p), n))
		}
	}
	return touched
}

// prune removes the releases current does not name.
func (b *bench) prune() error {
	entries, err := os.ReadDir(filepath.Join(*work, "releases"))
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() != fmt.Sprint(b.n) {
			if err := os.RemoveAll(filepath.Join(*work, "releases", e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

func (b *bench) copyOver(name string, args ...string) func() error {
	return func() error { return command(name, args...) }
}

// restartAcross stops the daemon, swaps current to release n, and starts
// the daemon again, until its first publish.
func (b *bench) restartAcross(n int) func() error {
	return func() error {
		if err := b.d.stop(); err != nil {
			return fmt.Errorf("stopping the daemon: %w", err)
		}
		if err := b.swap(n); err != nil {
			return err
		}
		d, err := startDaemon(*bin, b.cfg, filepath.Join(*work, "sitemapd.log"))
		if err != nil {
			return err
		}
		b.d = d
		return d.waitTrigger(0, "initial build", 30*time.Minute)
	}
}
