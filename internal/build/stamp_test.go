package build

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStampConverges plays random sequences of what deploy tools do to a
// page: new bytes with a new mtime, a rewrite in place with the old size
// and mtime put back (cp -p, rsync --inplace, install -p with a
// reproducible build's fixed mtime), a file renamed over it with the old
// mtime kept (rsync -a), a touch, a chmod, removal and creation. After each
// step, a daemon's engine told of the change (Update) and a `sitemapd
// build` with the page store (a new engine) must list what a fresh build
// of the tree lists (its own output and state directories, nothing known):
// the same pages, with the same lastmods.
//
// Lastmods are mtimes here (pages.lastmod: mtime), so that a fresh build,
// which knows no history, is an oracle for them.
func TestStampConverges(t *testing.T) {
	seeds := []uint64{1, 2, 3, 4, 5, 6}
	if testing.Short() {
		seeds = seeds[:2]
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			s := newStampSite(t)
			r := rand.New(rand.NewPCG(seed, seed))
			for step := range 60 {
				op, rel := s.step(t, r)
				t.Logf("step %d: %s %s", step, op, rel)
				s.check(t, step, rel)
			}
		})
	}
}

// stampSite is a small tree, an engine with memory (the daemon's), the
// configuration of a build with a page store, and an oracle's.
type stampSite struct {
	root                string
	daemon              *Engine
	persisted           func(t *testing.T) *Engine
	oracleOf            func(t *testing.T) (*Engine, string)
	pages               []string // the page names the steps choose from
	daemonOut, buildOut string
}

func newStampSite(t *testing.T) *stampSite {
	dir := t.TempDir()
	s := &stampSite{root: filepath.Join(dir, "root"), daemonOut: filepath.Join(dir, "daemon"), buildOut: filepath.Join(dir, "build")}
	for _, d := range []string{"", "d"} {
		for i := range 4 {
			s.pages = append(s.pages, filepath.Join(d, fmt.Sprintf("p%d.html", i)))
		}
	}
	for _, p := range s.pages {
		writeFile(t, filepath.Join(s.root, p), stampPage(0), defaultMTime)
	}
	config := func(name string) string {
		out, state := filepath.Join(dir, name), filepath.Join(dir, name+"-state")
		os.MkdirAll(out, 0o755)
		os.MkdirAll(state, 0o755)
		return fmt.Sprintf("pages: {lastmod: mtime, images: true}\nshrink_guard: false\noutput_dir: %q\nstate_dir: %q\n", out, state)
	}
	s.daemon, _ = newEngine(t, loadConfig(t, baseConfig, s.root, config("daemon")), WithChanges())
	mustBuild(t, s.daemon)
	buildCfg := loadConfig(t, baseConfig, s.root, config("build"))
	s.persisted = func(t *testing.T) *Engine { e, _ := newEngine(t, buildCfg); return e }
	n := 0
	s.oracleOf = func(t *testing.T) (*Engine, string) {
		n++
		name := fmt.Sprintf("oracle%d", n)
		e, _ := newEngine(t, loadConfig(t, baseConfig, s.root, config(name)))
		return e, filepath.Join(dir, name)
	}
	e := s.persisted(t)
	mustBuild(t, e)
	e.Close()
	return s
}

// stampPage is one of the page's bodies, all of one length, so that a
// rewrite in place keeps the size: listed or not, with one image or
// another.
func stampPage(v int) string {
	heads := []string{
		`<title>plain</title><img src=a.jpg>`,
		`<title>plain</title><img src=b.jpg>`,
		`<meta name=robots content=noindex>`,
		`<link rel=canonical href=/other.html>`,
	}
	h := heads[v%len(heads)]
	return h + strings.Repeat(" ", 48-len(h))
}

// step makes one random change and says what it did.
func (s *stampSite) step(t *testing.T, r *rand.Rand) (op, rel string) {
	rel = s.pages[r.IntN(len(s.pages))]
	p := filepath.Join(s.root, rel)
	var st syscall.Stat_t
	exists := syscall.Stat(p, &st) == nil
	oldMTime := time.Unix(st.Mtim.Unix())
	body := stampPage(r.IntN(4))
	switch k := r.IntN(7); {
	case !exists || k == 0:
		writeFile(t, p, body, defaultMTime.Add(time.Duration(r.IntN(1000))*time.Second))
		return "write with a new mtime", rel
	case k == 1, k == 2:
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteAt([]byte(body), 0)
		f.Close()
		os.Chtimes(p, oldMTime, oldMTime)
		return "rewrite in place, size and mtime put back: " + strings.TrimSpace(body), rel
	case k == 3:
		tmp := filepath.Join(filepath.Dir(p), ".tmp")
		writeFile(t, tmp, body, oldMTime)
		if err := os.Rename(tmp, p); err != nil {
			t.Fatal(err)
		}
		return "rename over it, mtime kept: " + strings.TrimSpace(body), rel
	case k == 4:
		mt := defaultMTime.Add(time.Duration(r.IntN(1000)) * time.Second)
		os.Chtimes(p, mt, mt)
		return "touch", rel
	case k == 5:
		os.Chmod(p, os.FileMode(0o600+r.IntN(2)*0o44))
		return "chmod", rel
	default:
		os.Remove(p)
		return "rm", rel
	}
}

// check brings the daemon's engine and a persisted build up to date and
// compares what each lists with a fresh build's.
func (s *stampSite) check(t *testing.T, step int, rel string) {
	t.Helper()
	dir := filepath.Dir(rel)
	if dir == "." {
		dir = ""
	}
	if _, err := s.daemon.Update(context.Background(), []string{dir}, map[string][]string{dir: {filepath.Base(rel)}}); err != nil {
		t.Fatal(err)
	}
	e := s.persisted(t)
	mustBuild(t, e)
	e.Close()
	oracle, out := s.oracleOf(t)
	mustBuild(t, oracle)
	oracle.Close()
	want := s.listed(t, out)
	for name, out := range map[string]string{"daemon": s.daemonOut, "build with a page store": s.buildOut} {
		if got := s.listed(t, out); !maps.Equal(got, want) {
			t.Fatalf("step %d: the %s lists %v\nafter a fresh build's %v", step, name, got, want)
		}
	}
}

// listed reads the sitemaps of both groups below out: URL -> its lastmod
// and images.
func (s *stampSite) listed(t *testing.T, out string) map[string]string {
	t.Helper()
	got := map[string]string{}
	for _, f := range []string{"sitemap.xml", "d/sitemap.xml"} {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			continue // a group with nothing listed
		}
		entries, _ := readEntries(t, f, b)
		for _, e := range entries {
			got[e.Loc] = fmt.Sprint(e.LastMod, e.Images)
		}
	}
	return got
}
