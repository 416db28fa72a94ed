package scan

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/sitemap"
	"github.com/sitemapd/sitemapd/internal/siteurl"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// spanScanner is a Scanner of https://d.test/ on an empty root, with
// extra configuration, that reads no page.
func spanScanner(t testing.TB, extra string) *Scanner {
	t.Helper()
	root := t.TempDir()
	cfg, err := config.Load([]byte("root: "+root+"\nbase_url: https://d.test/\nstate_dir: \"\"\n"+extra), filepath.Join(root, "sitemapd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return New(cfg, nil, siteurl.New(cfg), Options{MTimeOnly: true})
}

// TestURLsInIsURLsCut: for random spans over a group of directories with
// names that percent-encoding reorders (spaces, &, %, accents, CJK, an
// emoji), index files and pretty URLs, URLsIn returns exactly the URLs of
// URLs whose Locs the span holds, directories skipped by prefix included.
func TestURLsInIsURLsCut(t *testing.T) {
	for _, pretty := range []bool{false, true} {
		// A rule gives some pages a changefreq and priority: the entries
		// must carry them.
		s := spanScanner(t, fmt.Sprintf("pages: {pretty_urls: %v, rules: [{match: \"/g/*d/**\", changefreq: weekly, priority: 0.3}]}\n", pretty))
		r := rand.New(rand.NewPCG(1, 2))
		odd := []string{"", " ", "&", "%", "é", "日本", "🚀", "-", "~", "z"}
		dirs := map[string]*tree.Listing{}
		for range 40 {
			d := "g"
			for range r.IntN(3) {
				d += "/" + odd[r.IntN(len(odd))] + "d" + odd[r.IntN(len(odd))]
			}
			var pages []tree.Page
			seen := map[string]bool{}
			for range 1 + r.IntN(30) {
				name := odd[r.IntN(len(odd))] + fmt.Sprint(r.IntN(100)) + odd[r.IntN(len(odd))] + ".html"
				if r.IntN(10) == 0 {
					name = "index.html"
				}
				if !seen[name] {
					seen[name] = true
					// What the head said goes into the entry too.
					var alts, imgs strings.Builder
					for range r.IntN(3) {
						tree.PackAlternate(&alts, "de", "https://d.test/de/"+fmt.Sprint(r.IntN(100)))
						tree.PackImage(&imgs, "https://d.test/i/"+fmt.Sprint(r.IntN(100))+".png")
					}
					pages = append(pages, tree.Page{Name: name, Time: int64(r.IntN(1e9)) * 1e9,
						Head: tree.Head{Alts: alts.String(), Images: imgs.String()}})
				}
			}
			slices.SortFunc(pages, func(a, b tree.Page) int { return strings.Compare(a.Name, b.Name) })
			dirs[d] = tree.NewListing(pages, 0, nil, tree.DirID{})
		}
		now := time.Now()
		all, _ := s.AppendURLs(nil, dirs, now)
		slices.SortFunc(all, func(a, b sitemap.URL) int { return strings.Compare(a.Loc, b.Loc) })
		for range 300 {
			sp := Span{After: all[r.IntN(len(all))].Loc, Through: all[r.IntN(len(all))].Loc, FromStart: r.IntN(8) == 0, ToEnd: r.IntN(8) == 0}
			// A bound no URL is: a Loc cut short (inside an escape, or
			// inside a directory's prefix).
			if r.IntN(3) == 0 {
				sp.After = sp.After[:r.IntN(len(sp.After)+1)]
			}
			if r.IntN(3) == 0 {
				sp.Through = sp.Through[:r.IntN(len(sp.Through)+1)]
			}
			var want []sitemap.URL
			for _, u := range all {
				if sp.Holds(u.Loc) {
					want = append(want, u)
				}
			}
			got := s.URLsIn(dirs, sp, now)
			slices.SortFunc(got, func(a, b sitemap.URL) int { return strings.Compare(a.Loc, b.Loc) })
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("pretty %v, span %+v: %d URLs, want %d (or other entries)", pretty, sp, len(got), len(want))
			}
		}
	}
}

// TestDueIsURLs: Due, which passes over directories whose latest listed
// page has come, agrees with the due that URLs finds page by page, for
// directories with pages to come listed, hidden, or none.
func TestDueIsURLs(t *testing.T) {
	root := t.TempDir()
	cfg, err := config.Load([]byte("root: "+root+"\nbase_url: https://d.test/\nstate_dir: \"\"\n"), filepath.Join(root, "sitemapd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s := New(cfg, nil, siteurl.New(cfg), Options{MTimeOnly: true})
	now := time.Unix(1_000_000, 0)
	r := rand.New(rand.NewPCG(3, 4))
	for round := range 200 {
		dirs := map[string]*tree.Listing{}
		for d := range 1 + r.IntN(6) {
			var pages []tree.Page
			for i := range r.IntN(8) {
				p := tree.Page{Name: fmt.Sprintf("p%d.html", i), Time: now.UnixNano() + int64(r.IntN(2000)-1900)*int64(time.Second)}
				if r.IntN(4) == 0 {
					p.Head.Out = tree.NoIndex
				}
				pages = append(pages, p)
			}
			dirs[fmt.Sprintf("d%d", d)] = tree.NewListing(pages, 0, nil, tree.DirID{})
		}
		_, want := s.AppendURLs(nil, dirs, now)
		if got := s.Due(dirs, now); got != want {
			t.Fatalf("round %d: Due %d, URLs' due %d", round, got, want)
		}
	}
}
