package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const reachKey = "0123456789abcdef"

// reachSite writes an output tree by hand (a key file, robots.txt, an
// index and the sitemap it lists) and serves it on 127.0.0.1 through
// http.FileServer, with break changing the answer to some paths; it
// returns the configuration file.
func reachFixture(t *testing.T, breakIt func(w http.ResponseWriter, r *http.Request) bool) string {
	t.Helper()
	dir := t.TempDir()
	root := filepath.Join(dir, "site")
	os.MkdirAll(root, 0o755)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if breakIt != nil && breakIt(w, r) {
			return
		}
		http.FileServer(http.Dir(root)).ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	base := srv.URL + "/"
	files := map[string]string{
		reachKey + ".txt": reachKey,
		"robots.txt":      "User-agent: *\nSitemap: " + base + "sitemap_index.xml\n",
		"sitemap_index.xml": `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>` + base + `sitemap.xml</loc></sitemap></sitemapindex>
`,
		"sitemap.xml": `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>` + base + `</loc></url></urlset>
`,
		"index.html": "<title>home</title>",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(dir, "sitemapd.yaml")
	os.WriteFile(cfg, []byte("root: site\nbase_url: "+base+"\nrobots_txt: true\nstate_dir: state\n"+
		"notify:\n  endpoints:\n    - {name: indexnow, kind: indexnow, url: "+base+"indexnow, key: "+reachKey+"}\n"), 0o644)
	return cfg
}

// TestReach: `check -reach` passes a site served as written, and each kind
// of failure is one FAIL line naming the URL and what to fix, with exit 1.
func TestReach(t *testing.T) {
	keyPath := "/" + reachKey + ".txt"
	on := func(path string, f func(w http.ResponseWriter)) func(http.ResponseWriter, *http.Request) bool {
		return func(w http.ResponseWriter, r *http.Request) bool {
			if r.URL.Path != path {
				return false
			}
			f(w)
			return true
		}
	}
	tests := []struct {
		name    string
		breakIt func(http.ResponseWriter, *http.Request) bool
		want    []string // in the one FAIL line
	}{
		{"all served", nil, nil},
		{"key file redirected", on(keyPath, func(w http.ResponseWriter) {
			w.Header().Set("Location", "/keys/"+reachKey+".txt")
			w.WriteHeader(http.StatusMovedPermanently)
		}), []string{"key file", keyPath, "answered 301 to /keys/", "no redirect"}},
		{"key file as HTML", on(keyPath, func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte(reachKey))
		}), []string{"key file", `served as "text/html"`, "text/plain"}},
		{"key file wrong body", on(keyPath, func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("<html>not found</html>"))
		}), []string{"key file", "holds", reachKey}},
		{"key file 404", on(keyPath, func(w http.ResponseWriter) { http.Error(w, "no", http.StatusNotFound) }),
			[]string{"key file", "answered 404", "needs 200"}},
		{"robots.txt without the Sitemap line", on("/robots.txt", func(w http.ResponseWriter) {
			w.Write([]byte("User-agent: *\nDisallow:\n"))
		}), []string{"robots.txt", "no Sitemap line for", "sitemap_index.xml"}},
		{"index bytes differ", on("/sitemap_index.xml", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/xml")
			w.Write([]byte("<sitemapindex/>"))
		}), []string{"index", "sitemap_index.xml", "serves 15 bytes that are not"}},
		{"sitemap 404", on("/sitemap.xml", func(w http.ResponseWriter) { http.Error(w, "no", http.StatusNotFound) }),
			[]string{"sitemap", "sitemap.xml answered 404"}},
		{"sitemap as HTML", on("/sitemap.xml", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html></html>"))
		}), []string{"sitemap", `served as "text/html"`, "text/xml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := reachFixture(t, tt.breakIt)
			var out, errb bytes.Buffer
			code := run([]string{"check", "-config", cfg, "-reach", "-timeout", "5s"}, &out, &errb)
			var fails []string
			for line := range strings.SplitSeq(strings.TrimSpace(out.String()), "\n") {
				if strings.HasPrefix(line, "FAIL") {
					fails = append(fails, line)
				}
			}
			if tt.want == nil {
				if code != ExitOK || len(fails) > 0 || strings.Count(out.String(), "ok ") != 4 {
					t.Fatalf("exit %d, want 0 with 4 ok lines:\n%s%s", code, out.String(), errb.String())
				}
				return
			}
			if code != ExitFailure || len(fails) != 1 {
				t.Fatalf("exit %d with %d FAIL lines, want 1 and one:\n%s%s", code, len(fails), out.String(), errb.String())
			}
			for _, w := range tt.want {
				if !strings.Contains(fails[0], w) {
					t.Errorf("FAIL line does not say %q:\n%s", w, fails[0])
				}
			}
		})
	}
}

// TestReachUsage: -reach takes no PATH, and a missing index is a failure
// saying to build first.
func TestReachUsage(t *testing.T) {
	cfg := reachFixture(t, nil)
	var out, errb bytes.Buffer
	if code := run([]string{"check", "-config", cfg, "-reach", "x.xml"}, &out, &errb); code != ExitUsage {
		t.Fatalf("-reach with a PATH: exit %d, want %d", code, ExitUsage)
	}
	os.Remove(filepath.Join(filepath.Dir(cfg), "site", "sitemap_index.xml"))
	out.Reset()
	if code := run([]string{"check", "-config", cfg, "-reach"}, &out, &errb); code != ExitFailure || !strings.Contains(out.String(), "run sitemapd build first") {
		t.Fatalf("no index: exit %d:\n%s", code, out.String())
	}
}
