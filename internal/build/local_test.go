package build

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestChangesEncodeTheirPartsOnly drives a daemon's engine through random
// changes of a group of some 1,500 pages in parts of about 20 URLs (pages
// rewritten, added, removed; directories made and removed; a part file
// edited or removed behind sitemapd's back) and checks after each that
// the files equal what a full build writes, and that a change encoded only
// the parts its pages fall in: one for a rewritten page, a few for an
// added or removed one, plus any part found edited or removed.
func TestChangesEncodeTheirPartsOnly(t *testing.T) {
	root := site(t, "index.html")
	r := rand.New(rand.NewPCG(3, 4))
	dirs := []string{"docs", "docs/a b", "docs/a b/c", "docs/x&y", "docs/ü/日本", "docs/z"}
	odd := []string{"", " q", "&", "%41", "é", "🚀", "#"}
	var pages []string // relative to root
	later := defaultMTime
	write := func(rel string) {
		later = later.Add(time.Minute)
		mustWrite(t, filepath.Join(root, rel), later)
	}
	newPage := func() string {
		d := dirs[r.IntN(len(dirs))]
		name := fmt.Sprintf("p%d%s.html", r.IntN(1_000_000), odd[r.IntN(len(odd))])
		if r.IntN(50) == 0 {
			name = "index.html"
		}
		return d + "/" + name
	}
	for range 1500 {
		p := newPage()
		if !slices.Contains(pages, p) {
			pages = append(pages, p)
			write(p)
		}
	}
	cfg := loadConfig(t, baseConfig, root, "part_size: 20\n")
	e, _ := newEngine(t, cfg, WithChanges())
	mustBuild(t, e)

	update := func(dirty []string, names map[string][]string) {
		t.Helper()
		if _, err := e.Update(context.Background(), dirty, names); err != nil {
			t.Fatal(err)
		}
	}
	one := func(rel string) {
		d, name := filepath.Split(rel)
		d = strings.TrimSuffix(d, "/")
		update([]string{d}, map[string][]string{d: {name}})
	}
	for step := range 80 {
		var tampered string
		if r.IntN(6) == 0 {
			// A part edited or removed by someone else: the change after
			// it repairs it, though it touches another part.
			parts, _ := filepath.Glob(filepath.Join(root, "docs", "sitemap*.xml"))
			tampered = parts[r.IntN(len(parts))]
			if r.IntN(2) == 0 {
				os.Remove(tampered)
			} else {
				b, _ := os.ReadFile(tampered)
				os.WriteFile(tampered, bytes.Replace(b, []byte("<url>"), []byte("<url> "), 1), 0o644)
			}
		}
		before := e.enc.parts
		op, most := r.IntN(10), 1
		switch {
		case op < 5: // rewrite a page: one part
			p := pages[r.IntN(len(pages))]
			write(p)
			one(p)
		case op < 7: // a new page: its part, and the one before when it ends uncut
			p := newPage()
			if slices.Contains(pages, p) {
				continue
			}
			pages = append(pages, p)
			write(p)
			one(p)
			most = 4
		case op < 9: // a page removed
			i := r.IntN(len(pages))
			os.Remove(filepath.Join(root, pages[i]))
			one(pages[i])
			pages = slices.Delete(pages, i, i+1)
			most = 4
		default: // a new directory of pages, read whole; or one removed
			d := fmt.Sprintf("docs/z/new%d", step)
			if r.IntN(2) == 0 {
				for j := range 30 {
					write(fmt.Sprintf("%s/q%d.html", d, j))
					pages = append(pages, fmt.Sprintf("%s/q%d.html", d, j))
				}
			} else {
				for _, p := range pages {
					if strings.HasPrefix(p, "docs/z/") {
						d = p[:strings.LastIndex(p, "/")]
						break
					}
				}
				os.RemoveAll(filepath.Join(root, d))
				pages = slices.DeleteFunc(pages, func(p string) bool { return strings.HasPrefix(p, d+"/") })
			}
			update([]string{"docs/z", d}, nil)
			most = -1 // many parts may hold the directory's pages
		}
		if tampered != "" && most > 0 {
			most++
		}
		if n := e.enc.parts - before; most > 0 && n > most {
			t.Errorf("step %d (op %d): %d parts encoded, want at most %d", step, op, n, most)
		}
		// What the daemon published is what a full build writes.
		got := outputs(t, cfg, root)
		fresh, _ := newEngine(t, cfg)
		if rep := mustBuild(t, fresh); len(rep.Written) != 0 || len(rep.Removed) != 0 {
			t.Fatalf("step %d (op %d, tampered %q): a full build wrote %v, removed %v", step, op, tampered, rep.Written, rep.Removed)
		}
		fresh.Close()
		want := outputs(t, cfg, root)
		if len(got) != len(want) {
			t.Fatalf("step %d: %d files, a full build %d", step, len(got), len(want))
		}
		for name, b := range want {
			if !bytes.Equal(b, got[name]) {
				t.Fatalf("step %d: %s differs from a full build", step, name)
			}
		}
	}
}
