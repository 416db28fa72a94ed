package significant

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"

	"github.com/sitemapd/sitemapd/internal/benchpage"
	"github.com/sitemapd/sitemapd/internal/head"
)

// benchPages are pages as generators write them: testdata/bench holds one
// page of each generator test's site (4–15 KB), read with internal/head's
// Hugo PaperMod page (6.6 KB); benchpage's is the page bench/gentree
// writes (7 KB, a 3 KB head).
func benchPages(b *testing.B) map[string][]byte {
	pages := map[string][]byte{"benchpage": []byte(benchpage.Page("page.html", 99))}
	names, err := filepath.Glob("testdata/bench/*.html")
	if err != nil || len(names) == 0 {
		b.Fatal("no pages in testdata/bench", err)
	}
	names = append(names, "../head/testdata/hugo-papermod.html")
	for _, name := range names {
		src, err := os.ReadFile(name)
		if err != nil {
			b.Fatal(err)
		}
		pages[strings.TrimSuffix(filepath.Base(name), ".html")] = src
	}
	return pages
}

const benchURL = "https://bench.example/docs/page.html"

// BenchmarkPage is what a full build does with a page's bytes, per page,
// from memory: today (impl=today: its content hash, xxhash as
// internal/scan computes p.Sum, and its head, head.ReadBytes), and with
// this package (impl=significant: Read and Print under a model;
// impl=readprint: the same with ReadPrint, as a build does it, reading
// into a Page used again; and impl=today+significant, what a build that
// keeps both does). Each part alone too (impl=xxhash, impl=head,
// impl=read, impl=print).
//
//	go test -run '^$' -bench Page -benchmem ./internal/significant
func BenchmarkPage(b *testing.B) {
	for name, src := range benchPages(b) {
		p0, err := Read(src, Options{URL: benchURL})
		if err != nil {
			b.Fatal(err)
		}
		// A model with something in every set: the page learnt twice
		// (every token stable, every region seen and repeating).
		l := NewLearner(nil)
		l.Add(p0)
		l.Add(p0)
		model := l.Model()
		impls := []struct {
			name string
			f    func()
		}{
			{"xxhash", func() { xxhash.Sum64(src) }},
			{"head", func() { head.ReadBytes(src, benchURL) }},
			{"today", func() { xxhash.Sum64(src); head.ReadBytes(src, benchURL) }},
			{"read", func() { Read(src, Options{URL: benchURL}) }},
			{"print", func() { model.Print(p0) }},
			{"significant", func() {
				p, _ := Read(src, Options{URL: benchURL})
				model.Print(p)
			}},
			{"readprint", func() { ReadPrint(src, Options{URL: benchURL}, model) }},
			{"today+significant", func() {
				xxhash.Sum64(src)
				head.ReadBytes(src, benchURL)
				p, _ := Read(src, Options{URL: benchURL})
				model.Print(p)
			}},
		}
		for _, impl := range impls {
			b.Run("page="+name+"/impl="+impl.name, func(b *testing.B) {
				b.SetBytes(int64(len(src)))
				b.ReportAllocs()
				for b.Loop() {
					impl.f()
				}
			})
		}
	}
}

// BenchmarkLearn learns a model from a 300-page sample: the pages of
// testdata/bench, each 50 times (the learner's cost, not its verdicts).
func BenchmarkLearn(b *testing.B) {
	var pages []*Page
	for range 50 {
		for _, src := range benchPages(b) {
			p, _ := Read(src, Options{URL: benchURL})
			pages = append(pages, p)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		l := NewLearner(nil)
		for _, p := range pages {
			l.Add(p)
		}
		l.Model()
	}
}
