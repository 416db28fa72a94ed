package reach

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/config"
)

const testKey = "0123456789abcdef"

// site is an output tree written by hand (a key file, robots.txt, an
// index listing two sitemaps, each listing pages) served on 127.0.0.1 by
// http.FileServer, with breakIt taking over the answer to some paths.
type site struct {
	cfg  *config.Config
	root string
	srv  *httptest.Server
}

func newSite(t *testing.T, breakIt func(w http.ResponseWriter, r *http.Request) bool, connect bool) *site {
	t.Helper()
	dir := t.TempDir()
	root := filepath.Join(dir, "www")
	os.MkdirAll(filepath.Join(root, "blog"), 0o755)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if breakIt != nil && breakIt(w, r) {
			return
		}
		http.FileServer(http.Dir(root)).ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	base := srv.URL + "/"
	if connect { // a name that resolves nowhere: only Connect reaches the server
		base = strings.Replace(base, "127.0.0.1", "www.sitemapd.test", 1)
	}
	urlset := func(locs ...string) string {
		s := `<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">`
		for _, l := range locs {
			s += "<url><loc>" + base + l + "</loc><image:image><image:loc>" + base + "img.png</image:loc></image:image></url>"
		}
		return s + "</urlset>\n"
	}
	files := map[string]string{
		testKey + ".txt": testKey,
		"robots.txt":     "User-agent: *\nSitemap: " + base + "sitemap_index.xml\n",
		"sitemap_index.xml": `<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>` +
			base + `sitemap.xml</loc></sitemap><sitemap><loc>` + base + `blog/sitemap.xml</loc></sitemap></sitemapindex>` + "\n",
		"sitemap.xml":      urlset("", "about.html"),
		"blog/sitemap.xml": urlset("blog/", "blog/a.html"),
		"index.html":       "<title>home</title>",
		"about.html":       "<title>about</title>",
		"blog/index.html":  "<title>blog</title>",
		"blog/a.html":      "<title>a</title>",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	yaml := "root: www\nbase_url: " + base + "\nrobots_txt: true\nstate_dir: state\n" +
		"notify:\n  endpoints:\n    - {name: indexnow, kind: indexnow, url: https://in.sitemapd.test/indexnow, key: " + testKey + "}\n"
	cfg, err := config.Load([]byte(yaml), filepath.Join(dir, "sitemapd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return &site{cfg: cfg, root: root, srv: srv}
}

// on answers path with f, leaving other paths to the files.
func on(path string, f func(w http.ResponseWriter)) func(http.ResponseWriter, *http.Request) bool {
	return func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != path {
			return false
		}
		f(w)
		return true
	}
}

func redirect(to string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Location", to)
		w.WriteHeader(http.StatusMovedPermanently)
	}
}

func serve(ctype, body string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", ctype)
		w.Write([]byte(body))
	}
}

func notFound(w http.ResponseWriter) { http.Error(w, "no", http.StatusNotFound) }

// problems is the results with a problem.
func problems(rs []Result) []Result {
	var out []Result
	for _, r := range rs {
		if r.Problem != OK {
			out = append(out, r)
		}
	}
	return out
}

// TestCheckStrict: the daemon's check (every sitemap and page, no
// redirect followed) passes a site served as written, and each way of
// serving it wrong is one problem naming the URL, its kind and what was
// wrong.
func TestCheckStrict(t *testing.T) {
	keyPath := "/" + testKey + ".txt"
	tests := []struct {
		name    string
		breakIt func(http.ResponseWriter, *http.Request) bool
		what    What
		path    string
		problem Problem
		detail  string
	}{
		{"all served", nil, 0, "", OK, ""},
		{"key file redirected", on(keyPath, redirect("/keys/"+testKey+".txt")), KeyFile, keyPath, Redirect, "answered 301 to /keys/" + testKey + ".txt"},
		{"key file as HTML", on(keyPath, serve("text/html; charset=utf-8", testKey)), KeyFile, keyPath, ContentType, `is served as "text/html"`},
		{"key file with a BOM", on(keyPath, serve("text/plain", "\uFEFF"+testKey+"\n")), KeyFile, keyPath, Body, "UTF-8 byte order mark"},
		{"key file another body", on(keyPath, serve("text/plain", "<html>not found</html>")), KeyFile, keyPath, Body, `holds "<html>not found</html>"`},
		{"key file 404", on(keyPath, notFound), KeyFile, keyPath, BadStatus, "answered 404"},
		{"robots.txt 404", on("/robots.txt", notFound), Robots, "/robots.txt", BadStatus, "answered 404"},
		{"robots.txt redirected", on("/robots.txt", redirect("/r.txt")), Robots, "/robots.txt", Redirect, "answered 301 to /r.txt"},
		{"robots.txt without the Sitemap line", on("/robots.txt", serve("text/plain", "User-agent: *\nDisallow:\n")), Robots, "/robots.txt", Body, "has no Sitemap line for"},
		{"index other bytes", on("/sitemap_index.xml", serve("application/xml", "<sitemapindex/>")), Index, "/sitemap_index.xml", Body, "serves 15 bytes that are not"},
		{"index redirected", on("/sitemap_index.xml", redirect("https://www.sitemapd.test/sitemap_index.xml")), Index, "/sitemap_index.xml", Redirect, "answered 301 to https://www.sitemapd.test/"},
		{"sitemap as HTML", on("/blog/sitemap.xml", serve("text/html", "<html></html>")), Sitemap, "/blog/sitemap.xml", ContentType, `is served as "text/html"`},
		{"sitemap 404", on("/sitemap.xml", notFound), Sitemap, "/sitemap.xml", BadStatus, "answered 404"},
		{"page 404", on("/blog/a.html", notFound), Page, "/blog/a.html", BadStatus, "answered 404"},
		{"page redirected", on("/about.html", redirect("/about")), Page, "/about.html", Redirect, "answered 301 to /about"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSite(t, tt.breakIt, false)
			rs := New(s.cfg, Options{Strict: true, Sitemaps: -1, Pages: 100}).Check(context.Background())
			got := problems(rs)
			// key file, robots.txt, index, 2 sitemaps, 4 pages (not the images)
			if len(rs) != 9 {
				t.Fatalf("%d results, want 9: %v", len(rs), rs)
			}
			if tt.problem == OK {
				if len(got) != 0 {
					t.Fatalf("problems on a site served as written: %v", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("%d problems, want 1: %v", len(got), got)
			}
			p := got[0]
			if p.What != tt.what || p.URL != s.cfg.BaseURL+strings.TrimPrefix(tt.path, "/") || p.Problem != tt.problem || !strings.Contains(p.Detail, tt.detail) || p.Fix == "" {
				t.Errorf("got %s (%s, fix %q); want %s %s%s %s, detail saying %q", p, p.Problem, p.Fix, tt.what, s.cfg.BaseURL, tt.path[1:], tt.problem, tt.detail)
			}
		})
	}
}

// TestCheckNotStrict: check -reach's way follows a redirect of the
// index to the same bytes, noting the hop, and is no problem.
func TestCheckNotStrict(t *testing.T) {
	var s *site
	s = newSite(t, func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/sitemap_index.xml" {
			http.Redirect(w, r, "/moved/sitemap_index.xml", http.StatusFound)
			return true
		}
		if r.URL.Path == "/moved/sitemap_index.xml" {
			http.ServeFile(w, r, filepath.Join(s.root, "sitemap_index.xml"))
			return true
		}
		return false
	}, false)
	rs := New(s.cfg, Options{Sitemaps: -1}).Check(context.Background())
	if got := problems(rs); len(got) != 0 {
		t.Fatalf("problems: %v", got)
	}
	if rs[2].What != Index || len(rs[2].Hops) != 1 || !strings.HasPrefix(rs[2].Hops[0], "302 to ") {
		t.Fatalf("index result %+v: want one 302 hop", rs[2])
	}
	rs = New(s.cfg, Options{Strict: true, Sitemaps: -1}).Check(context.Background())
	if got := problems(rs); len(got) != 1 || got[0].Problem != Redirect {
		t.Fatalf("strict: %v, want the redirect", got)
	}
}

// TestCheckRewrittenDuringFetch: a publish that replaces the index
// between sitemapd's read of it and the web server's (the new bytes
// served, the old read from disk) is no difference; bytes that are
// neither are.
func TestCheckRewrittenDuringFetch(t *testing.T) {
	var s *site
	extra := ""
	s = newSite(t, func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != "/sitemap_index.xml" {
			return false
		}
		p := filepath.Join(s.root, "sitemap_index.xml")
		old, _ := os.ReadFile(p)
		now := append(old, "<!-- next -->"...)
		os.WriteFile(p, now, 0o644) // the publish lands
		w.Header().Set("Content-Type", "application/xml")
		w.Write(append(now, extra...))
		return true
	}, false)
	if got := problems(New(s.cfg, Options{Strict: true}).Check(context.Background())); len(got) != 0 {
		t.Fatalf("a publish during the fetch: %v", got)
	}
	extra = "<!-- a cache's -->"
	if got := problems(New(s.cfg, Options{Strict: true}).Check(context.Background())); len(got) != 1 || got[0].Problem != Body {
		t.Fatalf("bytes that are neither: %v, want one body problem", got)
	}
}

// TestCheckSample: Sitemaps and Pages bound what one check fetches, each
// round takes the next ones, and what is to be rechecked is checked
// besides while it is listed.
func TestCheckSample(t *testing.T) {
	var fetched []string
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) bool {
		fetched = append(fetched, r.URL.Path)
		return false
	}, false)
	check := func(round int, recheck ...string) []string {
		fetched = nil
		rc := map[string]bool{}
		for _, p := range recheck {
			rc[s.cfg.BaseURL+p] = true
		}
		New(s.cfg, Options{Strict: true, Sitemaps: 1, Pages: 1, Round: round, Recheck: rc}).Check(context.Background())
		return fetched
	}
	head := "/" + testKey + ".txt /robots.txt /sitemap_index.xml "
	for _, tc := range []struct {
		round   int
		recheck []string
		want    string
	}{
		{0, nil, head + "/sitemap.xml /"},
		{1, nil, head + "/blog/sitemap.xml /blog/a.html"},
		{2, nil, head + "/sitemap.xml /"},
		{3, nil, head + "/blog/sitemap.xml /blog/a.html"},
		{0, []string{"blog/sitemap.xml", "blog/"}, head + "/sitemap.xml /blog/sitemap.xml / /blog/"},
		{0, []string{"gone.html", "blog/gone/sitemap.xml"}, head + "/sitemap.xml /"},
	} {
		if got := strings.Join(check(tc.round, tc.recheck...), " "); got != tc.want {
			t.Errorf("round %d, recheck %v: fetched %s\nwant %s", tc.round, tc.recheck, got, tc.want)
		}
	}
}

// TestCheckConnect: with Connect, a base_url whose name resolves nowhere
// is fetched from the address given, with its own Host header.
func TestCheckConnect(t *testing.T) {
	var hosts []string
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) bool {
		hosts = append(hosts, r.Host)
		return false
	}, true)
	s.cfg.SelfCheck.Connect = s.srv.Listener.Addr().String()
	rs := New(s.cfg, Options{Strict: true, Sitemaps: -1, Pages: 100, Connect: s.cfg.SelfCheck.Connect}).Check(context.Background())
	if got := problems(rs); len(got) != 0 || len(rs) != 9 {
		t.Fatalf("%d results, problems %v", len(rs), got)
	}
	for _, h := range hosts {
		if !strings.HasPrefix(h, "www.sitemapd.test:") {
			t.Fatalf("Host %q, want base_url's", h)
		}
	}
}

// TestCheckUnreachable: a connection closed without an answer once is
// asked again (strict) and is no problem; a server that is gone is, for
// each URL, named unreachable.
func TestCheckUnreachable(t *testing.T) {
	keyPath := "/" + testKey + ".txt"
	var dropped atomic.Bool
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == keyPath && !dropped.Swap(true) {
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
			return true
		}
		return false
	}, false)
	if got := problems(New(s.cfg, Options{Strict: true, Sitemaps: -1, Pages: 100}).Check(context.Background())); len(got) != 0 || !dropped.Load() {
		t.Fatalf("a connection dropped once: %v", got)
	}
	s.srv.Close()
	got := problems(New(s.cfg, Options{Strict: true, Timeout: 2 * time.Second}).Check(context.Background()))
	if len(got) != 3 {
		t.Fatalf("server gone: %v, want the key file, robots.txt and the index unreachable", got)
	}
	for _, p := range got {
		if p.Problem != Unreachable || !strings.Contains(p.Fix, "connection refused") {
			t.Errorf("%s: %s, fix %q; want unreachable, connection refused", p, p.Problem, p.Fix)
		}
	}
}
