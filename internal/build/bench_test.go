package build

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	cfg := loadConfig(b, baseConfig, root, "")
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
}

// benchPage is a page as site generators write them: a head of some 2.5 KB
// (metas, links, an inline style, a canonical link to itself, hreflang
// alternates), then 4 KB of body.
func benchPage(name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>%[1]s</title>
<meta name="description" content="A page for the benchmark, with a head as long as real ones.">
<meta name="robots" content="index, follow">
<meta property="og:title" content="%[1]s">
<meta property="og:image" content="https://example.com/static/og.png">
<link rel="canonical" href="%[1]s">
<link rel="alternate" hreflang="en" href="%[1]s">
<link rel="alternate" hreflang="de" href="/de/%[1]s">
<link rel="icon" href="/favicon.ico">
<link rel="stylesheet" href="/static/site.css">
<script src="/static/site.js" defer></script>
<style>
`, name)
	for i := range 24 {
		fmt.Fprintf(&b, ".c%d{margin:0 auto;padding:%dpx;color:#333;font:16px/1.5 system-ui,sans-serif}\n", i, i)
	}
	b.WriteString("</style>\n</head>\n<body>")
	b.WriteString(strings.Repeat("<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>\n", 64))
	b.WriteString("</body></html>\n")
	return b.String()
}

// BenchmarkHeads measures a full build of 10,000 real-looking pages with
// the head rules off (the baseline) and on, as `sitemapd build` runs it:
// reading every head, and with the head store of the build before (a new
// engine each time, as a new process); and on in the daemon, which
// remembers the heads it read (target: on at most 2× off on a warm cache).
func BenchmarkHeads(b *testing.B) {
	root := filepath.Join(b.TempDir(), "root")
	for d := range 20 {
		for p := range 500 {
			name := fmt.Sprintf("p%d.html", p)
			writeFile(b, filepath.Join(root, fmt.Sprintf("d%d", d), name), benchPage(name), defaultMTime)
		}
	}
	for _, bc := range []struct {
		name  string
		pages string
		opts  []Option
	}{
		{"off", "{noindex: false, canonical: false, hreflang: false}", nil},
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
