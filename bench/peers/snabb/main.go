// Command snabb is the peer bench/dense.sh compares a fresh `sitemapd build`
// with: the same job done with github.com/snabb/sitemap, a widely used Go
// sitemap library. It walks ROOT with filepath.WalkDir (dot-names skipped,
// as sitemapd skips them), makes one URL per page (.html, .htm, .pdf, any
// case; index.html and index.htm name their directory) with each segment
// percent-encoded and the file's mtime as lastmod, and writes sitemaps of at
// most 50,000 URLs (sitemap-1.xml, sitemap-2.xml, ...) and an index
// (sitemap_index.xml) into OUT. It reads no page and keeps no state.
//
//	snabb -root ROOT -base https://example.org/ -out OUT
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/snabb/sitemap"
)

func main() {
	root := flag.String("root", "", "document root")
	base := flag.String("base", "", "base URL, ending in /")
	out := flag.String("out", "", "output directory")
	limit := flag.Int("limit", 50_000, "URLs per sitemap")
	flag.Parse()
	if *root == "" || *base == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: snabb -root ROOT -base URL -out DIR")
		os.Exit(2)
	}
	if err := run(*root, *base, *out, *limit); err != nil {
		fmt.Fprintln(os.Stderr, "snabb:", err)
		os.Exit(1)
	}
}

func run(root, base, out string, limit int) error {
	idx := sitemap.NewSitemapIndex()
	idx.Minify = true
	sm := sitemap.New()
	sm.Minify = true
	parts := 0
	flush := func() error {
		parts++
		name := fmt.Sprintf("sitemap-%d.xml", parts)
		if err := write(filepath.Join(out, name), sm); err != nil {
			return err
		}
		now := time.Now().UTC().Truncate(time.Second)
		idx.Add(&sitemap.URL{Loc: base + name, LastMod: &now})
		sm = sitemap.New()
		sm.Minify = true
		return nil
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != root && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		switch strings.ToLower(filepath.Ext(d.Name())) {
		case ".html", ".htm", ".pdf":
		default:
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		segs := strings.Split(filepath.ToSlash(rel), "/")
		if n := segs[len(segs)-1]; n == "index.html" || n == "index.htm" {
			segs[len(segs)-1] = ""
		}
		for i, s := range segs {
			segs[i] = url.PathEscape(s)
		}
		mt := info.ModTime().UTC().Truncate(time.Second)
		sm.Add(&sitemap.URL{Loc: base + strings.Join(segs, "/"), LastMod: &mt})
		if len(sm.URLs) == limit {
			return flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(sm.URLs) > 0 || parts == 0 {
		if err := flush(); err != nil {
			return err
		}
	}
	return write(filepath.Join(out, "sitemap_index.xml"), idx)
}

func write(path string, w io.WriterTo) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<16)
	if _, err := w.WriteTo(bw); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
