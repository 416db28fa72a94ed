package validate

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/broken.golden")

var now = time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)

func check(t *testing.T, path, location string) *Result {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := Check(filepath.Base(path), f, Options{Location: location, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestBroken runs over sitemaps with planted problems: each must be found,
// on its line (testdata/broken.golden, refreshed with -update).
func TestBroken(t *testing.T) {
	files, _ := filepath.Glob("testdata/broken/*.xml")
	texts, _ := filepath.Glob("testdata/broken/*.txt")
	files = append(files, texts...)
	var out strings.Builder
	for _, f := range files {
		for _, p := range check(t, f, "https://example.com/sub/"+filepath.Base(f)).Problems {
			fmt.Fprintln(&out, p)
		}
	}
	golden := "testdata/broken.golden"
	if *update {
		os.WriteFile(golden, []byte(out.String()), 0o644)
	}
	want, _ := os.ReadFile(golden)
	if out.String() != string(want) {
		t.Errorf("problems found:\n%s\nwant (testdata/broken.golden):\n%s", out.String(), want)
	}
}

// TestOwnOutput runs over sitemapd's own golden output (internal/build):
// nothing to report.
func TestOwnOutput(t *testing.T) {
	cfgs, _ := filepath.Glob("../build/testdata/golden/*/config.yaml")
	if len(cfgs) == 0 {
		t.Fatal("no golden output found")
	}
	baseRE := regexp.MustCompile(`(?m)^base_url:\s*(\S+)`)
	checked := 0
	for _, cfg := range cfgs {
		data, _ := os.ReadFile(cfg)
		m := baseRE.FindSubmatch(data)
		if m == nil {
			t.Fatalf("%s has no base_url", cfg)
		}
		base := strings.TrimSuffix(string(m[1]), "/") + "/"
		files, _ := filepath.Glob(filepath.Join(filepath.Dir(cfg), "want", "*"))
		for _, f := range files {
			if base := filepath.Base(f); base == "warnings.txt" || strings.HasPrefix(base, ".") {
				continue // the log, and the record of text sitemaps
			}
			rel, err := url.PathUnescape(filepath.Base(f))
			if err != nil {
				t.Fatal(err)
			}
			var loc []string
			for _, seg := range strings.Split(strings.TrimSuffix(rel, ".gz"), "/") {
				loc = append(loc, url.PathEscape(seg))
			}
			data, _ := os.ReadFile(f)
			if zr, err := gzip.NewReader(bytes.NewReader(data)); err == nil {
				var plain bytes.Buffer
				plain.ReadFrom(zr)
				data = plain.Bytes()
			}
			// The goldens mask the index's lastmods (file mtimes).
			data = bytes.ReplaceAll(data, []byte("MTIME"), []byte("2026-01-01T00:00:00Z"))
			res, err := Check(filepath.Base(f), bytes.NewReader(data), Options{Location: base + strings.Join(loc, "/"), Now: now})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range res.Problems {
				t.Errorf("%s: %s", cfg, p)
			}
			if res.Entries == 0 {
				t.Errorf("%s: no entries read", f)
			}
			checked++
		}
	}
	t.Logf("%d files of sitemapd's output checked", checked)
}

// TestLimits: one entry over 50,000 is reported, gzip or not.
func TestLimits(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	for i := range 50_001 {
		fmt.Fprintf(&b, "<url><loc>https://example.com/p%d.html</loc></url>\n", i)
	}
	b.WriteString("</urlset>\n")
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(b.Bytes())
	zw.Close()
	for name, data := range map[string][]byte{"plain": b.Bytes(), "gzip": z.Bytes()} {
		res, err := Check(name, bytes.NewReader(data), Options{Now: now})
		if err != nil {
			t.Fatal(err)
		}
		if res.Entries != 50_001 || len(res.Problems) != 1 || !strings.Contains(res.Problems[0].String(), name+":50002: more than 50000 entries") {
			t.Errorf("%s: %d entries, problems %v", name, res.Entries, res.Problems)
		}
	}
}
