package daemon

// What TestFleetModel reads of the servers and the receiver: the model's
// URLs, the sitemaps' sums and URLs, the metrics, the requests received.

import (
	"crypto/sha256"
	"fmt"
	"html"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// modelURLs are the URLs the model's pages are listed at, sorted.
func (f *fleetModel) modelURLs() []string {
	var out []string
	for rel := range f.pages {
		out = append(out, pageURL(rel))
	}
	slices.Sort(out)
	return out
}

// pageURL is the URL a page of the site is listed and sent at.
func pageURL(rel string) string {
	if path.Base(rel) == "index.html" {
		rel = strings.TrimSuffix(rel, "index.html")
	}
	return "https://static.test/" + (&url.URL{Path: rel}).EscapedPath()
}

// metric is the value of one of the daemon's metrics without labels (0
// when it has none).
func (h *harness) metric(name string) int {
	rec := httptest.NewRecorder()
	h.d.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	for _, line := range strings.Split(rec.Body.String(), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			n, _ := strconv.ParseFloat(v, 64)
			return int(n)
		}
	}
	return 0
}

// fileSums are the sha256 of sitemapd's files under root (the sitemaps
// and the index), by path.
func fileSums(t *testing.T, root string) map[string]string {
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasPrefix(d.Name(), "sitemap") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		out[rel] = fmt.Sprintf("%x", sha256.Sum256(b))
		return nil
	})
	return out
}

// listedURLs are the page URLs the sitemaps under root list, sorted, but
// the harness's sync pages.
func listedURLs(t *testing.T, root string) []string {
	var out []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasPrefix(d.Name(), "sitemap") || strings.HasPrefix(d.Name(), "sitemap_index") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range locRE.FindAllStringSubmatch(string(b), -1) {
			if u := html.UnescapeString(m[1]); !strings.Contains(u, "/zz-sync-") {
				out = append(out, u)
			}
		}
		return nil
	})
	slices.Sort(out)
	return out
}

func firstDiff(a, b map[string]string) string {
	for _, k := range slices.Sorted(maps.Keys(a)) {
		if a[k] != b[k] {
			return k
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			return k
		}
	}
	return ""
}
