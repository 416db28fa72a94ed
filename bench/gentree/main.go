// Command gentree writes a synthetic document root for benchmarks: a
// deterministic tree (same -seed, same tree) of pages and assets up to five
// levels deep, with odd names and one directory of about 30,000 files.
//
// With -pages real (or -html real), each HTML page is a page as site
// generators write them (a head of some 3 KB: metas, stylesheets, an inline
// style, a canonical link to itself and hreflang alternates; then 4 KB of
// body), and some are left out by their heads: 2% say noindex, 3% name
// another canonical. Otherwise every file is one line.
//
// With -pages dense the tree has the page-dense shape of issue 13 instead
// (dense.go): N files in N/100 directories, 70% HTML.
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sitemapd/sitemapd/internal/benchpage"
)

func main() {
	files := flag.Int("files", 100_000, "number of files")
	seed := flag.Uint64("seed", 1, "random seed")
	pages := flag.String("pages", "tiny", "tiny: the default shape, one-line pages; real: the default shape, real-looking HTML pages; dense: the page-dense shape (issue 13)")
	html := flag.String("html", "", "HTML page content: tiny (one line) or real (a real head and body); default real for -pages real, else tiny")
	flag.Parse()
	if *html == "" {
		*html = "tiny"
		if *pages == "real" {
			*html = "real"
		}
	}
	if flag.NArg() != 1 || (*pages != "tiny" && *pages != "real" && *pages != "dense") || (*html != "tiny" && *html != "real") {
		fmt.Fprintln(os.Stderr, "usage: gentree [-files N] [-seed S] [-pages tiny|real|dense] [-html tiny|real] DIR")
		os.Exit(2)
	}
	gen := generate
	if *pages == "dense" {
		gen = generateDense
	}
	if err := gen(flag.Arg(0), *files, *seed, *html == "real"); err != nil {
		fmt.Fprintln(os.Stderr, "gentree:", err)
		os.Exit(1)
	}
}

var (
	exts  = []string{".html", ".html", ".html", ".htm", ".pdf", ".css", ".js", ".png", ".jpg", ".svg"}
	words = []string{"news", "blog", "docs", "about", "product", "guide", "archive", "team", "café", "a b", "x&y", "日本", "q?#", "100%"}
)

func generate(root string, n int, seed uint64, real bool) error {
	r := rand.New(rand.NewPCG(seed, seed))
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	big := filepath.Join(root, "bulk", "items")
	bigN := min(30_000, n*3/10)
	// Directories: a fan-out of about 30 files per directory, up to depth 5.
	var dirs []string
	for len(dirs)*30 < n-bigN {
		depth := 1 + r.IntN(5)
		d := root
		for range depth {
			d = filepath.Join(d, fmt.Sprintf("%s-%d", words[r.IntN(len(words))], r.IntN(12)))
		}
		dirs = append(dirs, d)
	}
	for i := range n {
		var dir string
		if i < bigN {
			dir = big
		} else {
			dir = dirs[r.IntN(len(dirs))]
		}
		name := fmt.Sprintf("%s-%d%s", words[r.IntN(len(words))], i, exts[r.IntN(len(exts))])
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		content := "<!doctype html><title>x</title>\n"
		if real && strings.HasPrefix(filepath.Ext(name), ".htm") {
			content = benchpage.Page(name, r.IntN(100))
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
		mt := base.Add(time.Duration(r.IntN(300*24*3600)) * time.Second)
		if err := os.Chtimes(p, mt, mt); err != nil {
			return err
		}
	}
	return nil
}
