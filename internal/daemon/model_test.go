package daemon

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestModel runs random sequences of the operations a real server sees and
// checks, once the daemon is idle, that its files equal a fresh full build.
// Budget: 13 seeds of 60 steps (one seed with -short); about 5 minutes
// under -race on a 2-core machine fully busy, each sequence 15-35 s.
func TestModel(t *testing.T) {
	// 17 edits a file through a name robots.txt leaves out, 23 makes a
	// link whose other name an exclude later takes out of the watch, 126
	// moves a section away and makes a new one of its name, whose text
	// sitemap may be written before the moved one's group is published.
	seeds := []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 17, 23, 126}
	if testing.Short() {
		seeds = seeds[:1]
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			// Every feature that writes files is on: text sitemaps, the
			// feed, images and an extra_urls file too.
			// The shrink guard is off: it refuses (in the daemon as in the
			// full build it is compared with) what random steps may well
			// do, leave out most of the site; TestShrinkGuard* test it.
			h := start(t, modelConfig(nil))
			m := &model{h: h, r: rand.New(rand.NewPCG(seed, seed))}
			m.play()
			h.checkOracle()
		})
	}
}

// TestModelMultiSite is TestModel with the tree as one site of a process
// serving two, on one inotify instance: the files its moves take out of
// the root land in the other site's root (outside/), so both change;
// each site's files must equal a fresh full build of it.
func TestModelMultiSite(t *testing.T) {
	seeds := []uint64{1, 2, 3}
	if testing.Short() {
		seeds = seeds[:1]
	}
	site := func(name, root, extra string) string {
		return fmt.Sprintf("  - name: %s\n    root: %s\n    base_url: https://%s.test/\n"+
			"    watch: {settle: 100ms, max_delay: 1s, rescan: 0s}\n%s", name, root, name, extra)
	}
	indent := func(keys string) string {
		return strings.ReplaceAll(strings.TrimSuffix("    "+keys, "\n"), "\n", "\n    ") + "\n"
	}
	configFor := func(extra string) string {
		return "state_dir: state\nsites:\n" + site("static", "root", "    depth: 1\n"+indent(extra)) +
			// XML only: a directory moved out of root/ takes root's
			// text sitemaps with it, which the neighbour rightly does not
			// own (they are in root's record, not its own).
			site("neighbour", "outside", "    depth: 2\n    shrink_guard: false\n")
	}
	body := configFor(modelConfig(nil))
	for _, seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			h := startConfig(t, body)
			h.configFor = configFor
			m := &model{h: h, r: rand.New(rand.NewPCG(seed, seed))}
			m.play()
			// The neighbour's last changes settle as the root's do: a page
			// written there now is published after them.
			os.WriteFile(filepath.Join(h.dir, "outside", "zz-last.html"), []byte("x"), 0o644)
			h.waitFor("the neighbour's last page", func() bool {
				b, _ := os.ReadFile(filepath.Join(h.dir, "outside", "sitemap.xml"))
				return strings.Contains(string(b), "zz-last.html")
			})
			h.checkOracle()
		})
	}
}

// play takes 60 random steps, then waits until the daemon has published
// them all.
func (m *model) play() {
	for i := range 60 {
		m.step(i)
		if i%20 == 19 {
			m.h.sync()
		}
	}
	// Pages given a future mtime get their lastmod when it comes, by the
	// daemon's timer: wait for the last of them.
	if wait := time.Until(m.future); wait > 0 {
		m.h.t.Logf("waiting %v for the last future mtime to pass", wait.Round(time.Millisecond))
		time.Sleep(wait + 200*time.Millisecond)
	}
	// The URL file's events reach the daemon on another stream than the
	// root's, whose events sync waits for: a last write, waited for, puts
	// its latest change behind. (A URL file that cannot be read keeps its
	// sitemap, in the daemon as in a full build, which then fails:
	// build.TestURLFileMissing checks that.)
	m.h.t.Log("rewrite the URL file for the oracle")
	m.writeURLFile(true, "https://static.test/app/final")
	m.h.waitFor("the URL file's last version", func() bool {
		parts, _ := filepath.Glob(m.h.path("sitemap-urls-site*.xml"))
		for _, p := range parts {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), "https://static.test/app/final") {
				return true
			}
		}
		return false
	})
	m.h.sync()
}

// modelConfig is the model's configuration, beyond testConfig.
func modelConfig(exclude []string) string {
	// A short feed, so that random changes move its entries often.
	c := "formats: [xml, txt]\nshrink_guard: false\nfeed: {name: changes.atom, entries: 5}\nextra_urls: [etc/site.urls]\n" +
		"pages:\n  images: true\n  image_hosts: [cdn.static.test]\n"
	if exclude != nil {
		c += fmt.Sprintf("  exclude: [%q]\n", exclude[0])
	}
	return c
}

type model struct {
	h      *harness
	r      *rand.Rand
	n      int
	future time.Time // the latest future mtime given
	linked []string  // pages given another name
	// excluded is the tree the configuration excludes ("" for none): it
	// is not watched.
	excluded string
}

var dirs = []string{"", "a", "a/b", "a/b/c", "blog", "blog/2024", "docs", "x y", "caf\u00e9"}

func (m *model) dir() string {
	d := dirs[m.r.IntN(len(dirs))]
	return d
}

func (m *model) name() string {
	m.n++
	return fmt.Sprintf("p%d.html", m.n)
}

// partner returns a page other than f below the root, picked by n, or f
// when there is none.
func (m *model) partner(f string, n int) string {
	var pages []string
	filepath.WalkDir(m.h.root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(d.Name()) != ".html" {
			return nil
		}
		if rel, _ := filepath.Rel(m.h.root, p); rel != f {
			pages = append(pages, rel)
		}
		return nil
	})
	if len(pages) == 0 {
		return f
	}
	return pages[n%len(pages)]
}

// existing returns a random page or directory below the root, or "".
func (m *model) existing(wantDir bool) string {
	var found []string
	filepath.WalkDir(m.h.root, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == m.h.root {
			return nil
		}
		rel, _ := filepath.Rel(m.h.root, p)
		if d.IsDir() == wantDir && !strings.Contains(d.Name(), "sitemap") && filepath.Ext(d.Name()) != ".atom" {
			found = append(found, rel)
		}
		return nil
	})
	if len(found) == 0 {
		return ""
	}
	return found[m.r.IntN(len(found))]
}

// stillLinked returns the pages given another name that still have more
// than one (a rename over a name, or a removal, ends a link).
func (m *model) stillLinked() []string {
	var out []string
	for _, f := range m.linked {
		var st syscall.Stat_t
		if syscall.Stat(m.h.path(f), &st) == nil && st.Nlink > 1 {
			out = append(out, f)
		}
	}
	return out
}
