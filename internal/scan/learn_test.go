package scan

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/siteurl"
)

func TestSpread(t *testing.T) {
	names := func(n int) []string {
		var s []string
		for i := range n {
			s = append(s, fmt.Sprint(i))
		}
		return s
	}
	for _, c := range []struct {
		n, k       int
		picked     []string
		restLength int
	}{
		{5, 12, names(5), 0},
		{10, 5, []string{"0", "2", "4", "6", "8"}, 5},
		{7, 3, []string{"0", "2", "4"}, 4},
		{100, 4, []string{"0", "25", "50", "75"}, 96},
		{3, 0, nil, 3},
	} {
		picked, rest := spread(names(c.n), c.k)
		if !slices.Equal(picked, c.picked) || len(rest) != c.restLength {
			t.Errorf("spread(%d names, %d) = %v and %d others; want %v and %d", c.n, c.k, picked, len(rest), c.picked, c.restLength)
		}
		if got := slices.Sorted(slices.Values(append(slices.Clone(picked), rest...))); !slices.Equal(got, slices.Sorted(slices.Values(names(c.n)))) {
			t.Errorf("spread(%d names, %d) lost or doubled names: %v", c.n, c.k, got)
		}
	}
}

// TestLearnSample: the sample a template is learnt from is spread over a
// site's directories, perDir a directory at first; a site of one huge
// directory (a documentation tree) is sampled up to sampleSize from it,
// and a site of many small directories up to sampleSize in all.
func TestLearnSample(t *testing.T) {
	for _, c := range []struct {
		name       string
		dirs, each int
		want       int
	}{
		{"one huge directory", 1, 1000, sampleSize},
		{"a few pages", 1, 40, 40},
		{"many directories", 60, 20, sampleSize},
		{"two directories", 2, 100, 200},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			for d := range c.dirs {
				dir := filepath.Join(root, fmt.Sprintf("d%02d", d))
				os.MkdirAll(dir, 0o755)
				for p := range c.each {
					page := fmt.Sprintf("<html><head><title>%d.%d</title></head><body><div class=nav>Home</div><main><p>Page %d of %d says this.</p></main></body></html>", d, p, p, d)
					if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("p%04d.html", p)), []byte(page), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			cfg, err := config.Load([]byte("root: "+root+"\nbase_url: https://docs.sitemapd.test/\nstate_dir: \"\"\n"), filepath.Join(root, "sitemapd.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			core, logs := observer.New(zap.InfoLevel)
			s := New(cfg, zap.New(core), siteurl.New(cfg), Options{})
			if m, _, err := s.Learn(context.Background(), func(int) {}); err != nil || m == nil {
				t.Fatalf("Learn: %v, %v", m, err)
			}
			l := logs.FilterMessage("learnt the site's template from its pages").All()
			if len(l) != 1 || l[0].ContextMap()["pages"] != int64(c.want) {
				t.Errorf("learnt from %v; want %d pages", l, c.want)
			}
		})
	}
}
