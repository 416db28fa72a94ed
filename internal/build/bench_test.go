package build

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sitemapd/sitemapd/internal/benchpage"
	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/pagestore"
)

// BenchmarkUpdate measures one incremental update after a single page
// changed, in a site of 100 groups of 1,000 pages: the daemon's cost per
// change. The full-build sub-benchmark, on the same tree, is its baseline.
func BenchmarkUpdate(b *testing.B) {
	root := filepath.Join(b.TempDir(), "root")
	for g := range 100 {
		for d := range 10 {
			for p := range 100 {
				mustWrite(b, filepath.Join(root, fmt.Sprintf("g%d/d%d/p%d.html", g, d, p)), defaultMTime)
			}
		}
	}
	// With the feed of changes off and on: what the feed adds to a publish
	// (each group's first entries, and the merge when they change).
	for _, feed := range []struct{ name, extra string }{{"feed=off", ""}, {"feed=on", "feed: {name: changes.atom}\n"}} {
		b.Run(feed.name, func(b *testing.B) {
			cfg := loadConfig(b, baseConfig, root, feed.extra)
			e, _ := newEngine(b, cfg, WithChanges())
			if _, err := e.Build(context.Background()); err != nil {
				b.Fatal(err)
			}
			b.Run("full-build", func(b *testing.B) {
				for b.Loop() {
					if _, err := e.Build(context.Background()); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("update-one-page", func(b *testing.B) {
				page := filepath.Join(root, "g7/d3/p5.html")
				i := 0
				for b.Loop() {
					i++
					mt := defaultMTime.Add(time.Duration(i) * time.Second)
					os.Chtimes(page, mt, mt)
					if _, err := e.Update(context.Background(), []string{"g7/d3"}, map[string][]string{"g7/d3": {"p5.html"}}); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// BenchmarkHeads measures a full build of 10,000 real-looking pages (each
// naming itself canonical) with
// the head rules off (the baseline) and on, as `sitemapd build` runs it:
// reading every head, and with the head store of the build before (a new
// engine each time, as a new process); and on in the daemon, which
// remembers the heads it read (target: on at most 2× off on a warm cache).
func BenchmarkHeads(b *testing.B) {
	root := filepath.Join(b.TempDir(), "root")
	writePages(b, root, 500, benchpage.Page)
	for _, bc := range []struct {
		name  string
		pages string
		opts  []Option
	}{
		{"off", "{noindex: false, canonical: false, hreflang: false, redirects: false}", nil},
		{"on", "{}", nil},
		{"on-daemon", "{}", []Option{WithChanges()}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			cfg := loadConfig(b, baseConfig, root, "pages: "+bc.pages+"\n")
			e, _ := newEngine(b, cfg, bc.opts...)
			if _, err := e.Build(context.Background()); err != nil { // warm: files written, heads remembered
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := e.Build(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("on-stored", func(b *testing.B) {
		cfg := loadConfig(b, baseConfig, root, "state_dir: "+b.TempDir()+"\n")
		e, _ := newEngine(b, cfg)
		if _, err := e.Build(context.Background()); err != nil { // writes the store
			b.Fatal(err)
		}
		e.Close()
		for b.Loop() {
			e, _ := newEngine(b, cfg)
			if _, err := e.Build(context.Background()); err != nil {
				b.Fatal(err)
			}
			e.Close()
		}
	})
}

// BenchmarkDeploy measures `sitemapd build` after a deploy that rewrote
// every file (new mtimes: every sitemap changes), as a new process each
// time, with the shrink guard on (which reads each changed group's old
// sitemap back) and off (the baseline).
func BenchmarkDeploy(b *testing.B) {
	root := filepath.Join(b.TempDir(), "root")
	var pages []string
	for g := range 20 {
		for p := range 500 {
			pages = append(pages, filepath.Join(root, fmt.Sprintf("g%d/p%d.html", g, p)))
		}
	}
	for _, p := range pages {
		mustWrite(b, p, defaultMTime)
	}
	for _, bc := range []struct{ name, extra string }{{"guard-off", "shrink_guard: false\n"}, {"guard-on", ""}} {
		b.Run(bc.name, func(b *testing.B) {
			cfg := loadConfig(b, baseConfig, root, bc.extra)
			i := 0
			for b.Loop() {
				b.StopTimer()
				i++
				mt := defaultMTime.Add(time.Duration(i) * time.Second)
				for _, p := range pages {
					os.Chtimes(p, mt, mt)
				}
				e, _ := newEngine(b, cfg)
				b.StartTimer()
				if _, err := e.Build(context.Background()); err != nil {
					b.Fatal(err)
				}
				e.Close()
			}
		})
	}
}

// siteWords name the generated site's directories.
var siteWords = []string{"news", "blog", "docs", "about", "products", "guide", "archive", "team", "events", "help", "press", "careers"}

// writeSite writes a tree shaped like a real site, the same for the same
// seed: one huge directory, docs/reference, of 15,000 pages, and 600 more
// up to four levels deep with 25 files each on average (some 500 once
// names that repeat are merged: 27,991 pages in 506 directories in all),
// of which most are real-looking HTML pages (internal/benchpage; 2% say
// noindex, 3% name another canonical), 5% PDFs of 8 to 64 KiB, and the
// rest assets (not pages). mtimes fall in 2024. It returns the paths of
// the pages and their mtimes.
func writeSite(b *testing.B, root string, seed uint64) (pages []string, mtimes []time.Time) {
	b.Helper()
	r := rand.New(rand.NewPCG(seed, seed))
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	pdf := make([]byte, 64<<10)
	for i := range pdf {
		pdf[i] = byte(r.Uint32())
	}
	write := func(dir, name string, roll int) {
		p := filepath.Join(root, dir, name)
		mt := base.Add(time.Duration(r.IntN(365*24*3600)) * time.Second)
		switch filepath.Ext(name) {
		case ".html":
			writeFile(b, p, benchpage.Page(name, roll), mt)
		case ".pdf":
			n := 8<<10 + r.IntN(56<<10)
			writeFile(b, p, "%PDF-1.7\n"+name+"\n"+string(pdf[:n]), mt)
		default:
			writeFile(b, p, "/* asset "+name+" */\n", mt)
			return
		}
		pages, mtimes = append(pages, p), append(mtimes, mt)
	}
	for i := range 15_000 {
		ext := ".html"
		if r.IntN(100) < 5 {
			ext = ".pdf"
		}
		write("docs/reference", fmt.Sprintf("item-%d%s", i, ext), r.IntN(100))
	}
	for d := range 600 {
		dir := ""
		for range 1 + r.IntN(4) {
			dir = filepath.Join(dir, fmt.Sprintf("%s-%d", siteWords[r.IntN(len(siteWords))], r.IntN(8)))
		}
		for f := range 1 + r.IntN(49) {
			ext := ".html"
			switch x := r.IntN(100); {
			case x < 5:
				ext = ".pdf"
			case x < 20:
				ext = []string{".css", ".png", ".js"}[x%3]
			}
			write(dir, fmt.Sprintf("page-%d-%d%s", d, f, ext), r.IntN(100))
		}
	}
	return pages, mtimes
}

// resetAtimes sets each page's access time back to its mtime (ext4's
// relatime then moves it on the next read), changing neither its mtime
// nor its size, so neither its stamp.
func resetAtimes(b *testing.B, pages []string, mtimes []time.Time) {
	b.Helper()
	for i, p := range pages {
		if err := os.Chtimes(p, mtimes[i], mtimes[i]); err != nil {
			b.Fatal(err)
		}
	}
}

// readSince counts the pages read since resetAtimes: those whose access
// time is no longer their mtime.
func readSince(b *testing.B, pages []string, mtimes []time.Time) int {
	b.Helper()
	n := 0
	for i, p := range pages {
		var st unix.Stat_t
		if err := unix.Stat(p, &st); err != nil {
			b.Fatal(err)
		}
		if st.Atim.Nano() != mtimes[i].UnixNano() {
			n++
		}
	}
	return n
}

// lastmodModes are the pages.lastmod values, significant (the default)
// measured against mtime (the baseline).
var lastmodModes = []string{"significant", "content", "mtime"}

// BenchmarkNoOpBuild measures a full build that changes nothing, with
// pages.lastmod content against mtime (the baseline), on a site of some
// 28,000 pages (writeSite), with the default head rules and a state_dir:
// engine=reused runs Build again on one engine, after a first build
// outside the timer; engine=new starts a new engine each time, which reads
// the page store the build before wrote, as `sitemapd build` does;
// engine=new-unrecorded does the same without the groups record (removed
// before each build: every group is encoded and compared). Target:
// content at most 1.10× mtime. Each reports, besides wall time, the
// process's CPU time per build (cpu-ns/op, user and system, GC included:
// steadier than wall time on a shared machine). Neither should read a
// page's bytes: each reports how many pages were read during the timed
// builds (pages-read,
// from their access times; -1 where the filesystem does not record them,
// as a first build shows). bench/lastmod.sh interleaves runs of the two
// and compares them with benchstat.
func BenchmarkNoOpBuild(b *testing.B) {
	root := filepath.Join(b.TempDir(), "root")
	pages, mtimes := writeSite(b, root, 1)
	b.Logf("%d pages", len(pages))
	for _, variant := range []string{"reused", "new", "new-unrecorded"} {
		b.Run("engine="+variant, func(b *testing.B) {
			for _, mode := range lastmodModes {
				b.Run("lastmod="+mode, func(b *testing.B) {
					cfg := loadConfig(b, baseConfig, root, "pages: {lastmod: "+mode+"}\noutput_dir: "+b.TempDir()+"\n")
					resetAtimes(b, pages, mtimes)
					e, _ := newEngine(b, cfg)
					if _, err := e.Build(context.Background()); err != nil { // reads every page, writes the outputs and the store
						b.Fatal(err)
					}
					tracked := readSince(b, pages, mtimes) > 0
					resetAtimes(b, pages, mtimes)
					if variant != "reused" {
						e.Close()
					}
					cpu := cpuTime(b)
					for b.Loop() {
						if variant == "reused" {
							if _, err := e.Build(context.Background()); err != nil {
								b.Fatal(err)
							}
							continue
						}
						if variant == "new-unrecorded" {
							os.Remove(filepath.Join(cfg.StateDir, groupsName))
						}
						buildAsProcess(b, cfg)
					}
					b.ReportMetric(float64(cpuTime(b)-cpu)/float64(b.N), "cpu-ns/op")
					read := -1
					if tracked {
						read = readSince(b, pages, mtimes)
					}
					b.ReportMetric(float64(read), "pages-read")
				})
			}
		})
	}
}

// BenchmarkDaemonMemory measures the heap a daemon's engine
// (WithChanges) retains after its first full build, per page, on the site
// of BenchmarkNoOpBuild, with pages.lastmod content and mtime (the
// baseline), with the default head rules ("heads=on") and with none
// ("heads=off"), and with the default head rules on the same site whose
// every HTML page's head states a date ("heads=dated": each page's
// lastmod its head's date, which its listing keeps a bit a page of).
// Each iteration is a new engine with a new state_dir (a daemon's first
// start: every page read). Target: content at most 8 bytes a page over
// mtime with the head rules on.
func BenchmarkDaemonMemory(b *testing.B) {
	root := filepath.Join(b.TempDir(), "root")
	pages, _ := writeSite(b, root, 1)
	datedRoot := filepath.Join(b.TempDir(), "root")
	writeSite(b, datedRoot, 1)
	dateHeads(b, datedRoot)
	for _, heads := range []struct{ name, pages, root string }{
		{"on", "", root},
		{"off", "noindex: false, canonical: false, hreflang: false, redirects: false, head_dates: false, ", root},
		{"dated", "", datedRoot},
	} {
		root := heads.root
		b.Run("heads="+heads.name, func(b *testing.B) {
			for _, mode := range lastmodModes {
				b.Run("lastmod="+mode, func(b *testing.B) {
					out := b.TempDir()
					var retained float64
					for b.Loop() {
						cfg := loadConfig(b, baseConfig, root, "pages: {"+heads.pages+"lastmod: "+mode+"}\noutput_dir: "+out+"\n")
						retained += daemonHeap(b, cfg)
					}
					b.ReportMetric(retained/float64(b.N)/float64(len(pages)), "B/page")
				})
			}
		})
	}
}

// dateHeads has the head of every HTML page below root state a date
// (article:modified_time), its mtime kept.
func dateHeads(b *testing.B, root string) {
	b.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".html" {
			return err
		}
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		old, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		meta := `<head><meta property="article:modified_time" content="2023-04-05T06:07:08Z">`
		writeFile(b, p, strings.Replace(string(old), "<head>", meta, 1), st.ModTime())
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime(b *testing.B) time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// liveHeap is the heap in use after a collection. Twice: sync.Pool keeps
// what it held for one more cycle.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkImages measures `sitemapd build` (a new engine each time, as a
// new process) of 5,000 real-looking pages that show images
// (benchpage.ImagePage, 9 KB: larger than a page read at once), with
// pages.images off (the baseline) and on: "fresh", with an empty
// state_dir, reads every page (its head; with images, its whole body);
// "noop", with the store of the build before, reads none. Each reports
// the process's CPU time per build (cpu-ns/op). BenchmarkImagesMemory
// gives what the daemon holds.
func BenchmarkImages(b *testing.B) {
	root := filepath.Join(b.TempDir(), "root")
	writePages(b, root, 250, benchpage.ImagePage)
	for _, run := range []string{"fresh", "noop"} {
		for _, images := range []string{"off", "on"} {
			b.Run("run="+run+"/images="+images, func(b *testing.B) {
				state := b.TempDir()
				extra := fmt.Sprintf("pages: {images: %v}\noutput_dir: %s\nstate_dir: %s\n", images == "on", b.TempDir(), state)
				cfg := loadConfig(b, baseConfig, root, extra)
				e, _ := newEngine(b, cfg)
				if _, err := e.Build(context.Background()); err != nil { // the outputs and the store
					b.Fatal(err)
				}
				e.Close()
				cpu := cpuTime(b)
				for b.Loop() {
					if run == "fresh" {
						os.Remove(filepath.Join(state, pagestore.Name))
					}
					buildAsProcess(b, cfg)
				}
				b.ReportMetric(float64(cpuTime(b)-cpu)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// buildAsProcess runs one full build in a new engine, as a new process
// of `sitemapd build` would.
func buildAsProcess(b *testing.B, cfg *config.Config) {
	e, err := New(cfg, nil, WithProgress(0))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := e.Build(context.Background()); err != nil {
		b.Fatal(err)
	}
	e.Close()
}

// writePages writes perDir pages made by page in each of 20 directories
// below root.
func writePages(b *testing.B, root string, perDir int, page func(name string, roll int) string) {
	for d := range 20 {
		for p := range perDir {
			name := fmt.Sprintf("p%d.html", p)
			writeFile(b, filepath.Join(root, fmt.Sprintf("d%d", d), name), page(name, 99), defaultMTime)
		}
	}
}

// BenchmarkImagesMemory measures the heap a daemon's engine retains after
// its first full build, per page, over BenchmarkImages's pages, with
// pages.images off and on: on keeps each page's image URLs.
func BenchmarkImagesMemory(b *testing.B) {
	root := filepath.Join(b.TempDir(), "root")
	writePages(b, root, 250, benchpage.ImagePage)
	for _, images := range []string{"off", "on"} {
		b.Run("images="+images, func(b *testing.B) {
			out := b.TempDir()
			var retained float64
			for b.Loop() {
				cfg := loadConfig(b, baseConfig, root, fmt.Sprintf("pages: {images: %v}\noutput_dir: %s\n", images == "on", out))
				retained += daemonHeap(b, cfg)
			}
			b.ReportMetric(retained/float64(b.N)/5000, "B/page")
		})
	}
}

// daemonHeap is the heap a daemon's engine (WithChanges) retains after
// its first full build under cfg.
func daemonHeap(b *testing.B, cfg *config.Config) float64 {
	before := liveHeap()
	e, err := New(cfg, nil, WithChanges(), WithProgress(0))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := e.Build(context.Background()); err != nil {
		b.Fatal(err)
	}
	retained := float64(liveHeap()) - float64(before)
	runtime.KeepAlive(e)
	e.Close()
	return retained
}
