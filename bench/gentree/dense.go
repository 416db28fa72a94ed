package main

// The page-dense shape of issue 13: N files in N/100 directories up to five
// levels deep; 70% HTML pages (.html), 10% PDF, 20% assets; about 40% of
// names (files and directories) with a space, &, %, #, an accented letter,
// CJK or an emoji; 80% of the files spread uniformly over the directories
// and 20% by a Zipf law whose exponent is chosen so that the largest
// directory holds about 3% of the files (30,000 of 1,000,000). The same
// seed gives the same tree whatever -html says: names, places and mtimes
// are drawn the same way for tiny and real pages.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/sitemapd/sitemapd/internal/benchpage"
)

const (
	denseSections = 10   // top-level directories; the rest hang below them
	denseMaxDepth = 5    // deepest directory level
	denseZipfPart = 0.20 // share of the files placed by the Zipf law
	denseLargest  = 0.03 // share of all files the largest directory holds
	denseOddNames = 0.40 // share of names with an odd character
)

var (
	denseWords  = []string{"news", "blog", "docs", "about", "product", "guide", "archive", "team", "press", "events", "help", "shop", "careers", "legal", "media", "stories"}
	denseOdd    = []string{" ", " & ", "&", "%", "100%", "#", "#1", "é", "café", "naïve", "Straße", "日本語", "中文", "한국어", "😀", "🚀", "a b c", "x&y", "50% off", "ça va"}
	denseAssets = []string{".css", ".js", ".png", ".jpg", ".svg", ".woff2"}
)

type denseDir struct {
	path  string
	depth int
}

type denseFile struct {
	path  string
	kind  byte // 'h' HTML, 'p' PDF, 'a' asset
	roll  int  // benchpage's roll for a real HTML page
	mtime time.Time
}

// denseName is a file or directory name: a word, for denseOddNames of them
// an odd fragment, and a number that keeps it unique in its directory.
func denseName(r *rand.Rand, i int, ext string) (name string, odd bool) {
	w := denseWords[r.IntN(len(denseWords))]
	if r.Float64() < denseOddNames {
		o := denseOdd[r.IntN(len(denseOdd))]
		if r.IntN(2) == 0 {
			return fmt.Sprintf("%s%s-%d%s", o, w, i, ext), true
		}
		return fmt.Sprintf("%s%s-%d%s", w, o, i, ext), true
	}
	return fmt.Sprintf("%s-%d%s", w, i, ext), false
}

// zipfExponent is the s for which rank 1 of a Zipf law over n ranks has
// probability p: 1/H(n,s) = p, found by bisection (H decreases with s).
func zipfExponent(n int, p float64) float64 {
	lo, hi := 0.0, 8.0
	for range 60 {
		s := (lo + hi) / 2
		h := 0.0
		for k := 1; k <= n; k++ {
			h += math.Pow(float64(k), -s)
		}
		if 1/h < p {
			lo = s
		} else {
			hi = s
		}
	}
	return (lo + hi) / 2
}

func generateDense(root string, n int, seed uint64, real bool) error {
	r := rand.New(rand.NewPCG(seed, seed^0xd3e5e))
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

	// Directories: denseSections top-level ones, then each under a
	// uniformly chosen earlier directory that is less than denseMaxDepth
	// deep (a random recursive tree, cut at depth 5).
	nd := max(1, n/100)
	dirs := make([]denseDir, 0, nd)
	var open []int // indexes of dirs that may have children
	for i := range nd {
		d := denseDir{depth: 1}
		parent := root
		if i >= denseSections {
			p := dirs[open[r.IntN(len(open))]]
			parent, d.depth = p.path, p.depth+1
		}
		name, _ := denseName(r, i, "")
		d.path = filepath.Join(parent, name)
		dirs = append(dirs, d)
		if d.depth < denseMaxDepth {
			open = append(open, i)
		}
	}

	// The Zipf part: rank k (1-based) of a random permutation of the
	// directories has weight k^-s; s makes the largest directory hold
	// denseLargest of all files with the uniform part counted.
	top := (denseLargest - (1-denseZipfPart)/float64(nd)) / denseZipfPart
	s := 1.0
	if top > 1/float64(nd) && nd > 1 {
		s = zipfExponent(nd, min(top, 1))
	}
	perm := r.Perm(nd)
	cum := make([]float64, nd)
	acc := 0.0
	for k := range nd {
		acc += math.Pow(float64(k+1), -s)
		cum[k] = acc
	}

	files := make([]denseFile, n)
	count := make([]int, nd)
	odd, pages := 0, 0
	for i := range files {
		var di int
		if r.Float64() < denseZipfPart {
			k := sort.SearchFloat64s(cum, r.Float64()*acc)
			di = perm[min(k, nd-1)]
		} else {
			di = r.IntN(nd)
		}
		count[di]++
		f := denseFile{roll: r.IntN(100)}
		ext := ".html"
		switch x := r.IntN(100); {
		case x < 70:
			f.kind = 'h'
			pages++
		case x < 80:
			f.kind, ext = 'p', ".pdf"
		default:
			f.kind, ext = 'a', denseAssets[r.IntN(len(denseAssets))]
		}
		name, isOdd := denseName(r, i, ext)
		if isOdd {
			odd++
		}
		f.path = filepath.Join(dirs[di].path, name)
		f.mtime = base.Add(time.Duration(r.IntN(300*24*3600)) * time.Second)
		files[i] = f
	}

	for _, d := range dirs {
		if err := os.MkdirAll(d.path, 0o755); err != nil {
			return err
		}
	}
	// Writing is parallel; what is written was all drawn above, in order.
	work := make(chan denseFile, 1024)
	errs := make(chan error, 1)
	var wg sync.WaitGroup
	for range max(4, runtime.NumCPU()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range work {
				if err := writeDense(f, real); err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			}
		}()
	}
	for _, f := range files {
		work <- f
	}
	close(work)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
	}

	largest, depths := 0, make([]int, denseMaxDepth+1)
	for i, c := range count {
		largest = max(largest, c)
		depths[dirs[i].depth]++
	}
	fmt.Fprintf(os.Stderr, "gentree: %d files (%d HTML pages) in %d directories (by depth 1-5: %v); largest directory %d files (%.1f%%); Zipf exponent %.3f; %.0f%% of file names odd\n",
		n, pages, nd, depths[1:], largest, 100*float64(largest)/float64(n), s, 100*float64(odd)/float64(n))
	return nil
}

func writeDense(f denseFile, real bool) error {
	var content string
	switch f.kind {
	case 'h':
		content = "<!doctype html><title>x</title>\n"
		if real {
			content = benchpage.Page(filepath.Base(f.path), f.roll)
		}
	case 'p':
		content = "%PDF-1.4\n%%EOF\n"
	default:
		content = "/* asset */\n"
	}
	if err := os.WriteFile(f.path, []byte(content), 0o644); err != nil {
		return err
	}
	return os.Chtimes(f.path, f.mtime, f.mtime)
}
