package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/sitemapd/sitemapd/internal/status"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

func writeConfig(t *testing.T, body string) (cfg, root string) {
	t.Helper()
	dir := t.TempDir()
	root = filepath.Join(dir, "site")
	os.MkdirAll(filepath.Join(root, "blog"), 0o755)
	os.WriteFile(filepath.Join(root, "index.html"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(root, "blog", "a.html"), []byte("x"), 0o644)
	cfg = filepath.Join(dir, "sitemapd.yaml")
	if !strings.Contains(body, "state_dir:") {
		body += "state_dir: state\n" // never the default, /var/lib/sitemapd
	}
	os.WriteFile(cfg, []byte("root: site\nbase_url: https://static.test/\nlog: {format: json}\n"+body), 0o644)
	return cfg, root
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"frobnicate"}, {"build", "-nope"}, {"build", "extra"}} {
		if code, _, stderr := runCLI(args...); code != ExitUsage || stderr == "" {
			t.Errorf("%q: exit %d, stderr %q; want %d and a message", args, code, stderr, ExitUsage)
		}
	}
	if code, out, _ := runCLI("version"); code != ExitOK || !strings.HasPrefix(out, "sitemapd ") {
		t.Errorf("version: exit %d, %q", code, out)
	}
}

func TestCheck(t *testing.T) {
	cfg, _ := writeConfig(t, "")
	if code, out, stderr := runCLI("check", "-config", cfg); code != ExitOK || !strings.Contains(out, "valid") {
		t.Errorf("good config: exit %d, %q %q", code, out, stderr)
	}
	bad, _ := writeConfig(t, "depht: 2\n")
	code, _, stderr := runCLI("check", "-config", bad)
	if code != ExitUsage || !strings.Contains(stderr, bad+`:4: depht: unknown key (did you mean "depth"?)`) {
		t.Errorf("bad config: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := runCLI("check", "-config", filepath.Join(t.TempDir(), "missing.yaml")); code != ExitUsage || !strings.Contains(stderr, "missing.yaml") {
		t.Errorf("missing config: exit %d, stderr %q", code, stderr)
	}
}

func TestBuild(t *testing.T) {
	cfg, root := writeConfig(t, "")
	code, _, stderr := runCLI("build", "-config", cfg)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, p := range []string{"sitemap.xml", "blog/sitemap.xml", "sitemap_index.xml"} {
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			t.Error(err)
		}
	}
	if !strings.Contains(stderr, `"msg":"build finished"`) || !strings.Contains(stderr, `"urls":2`) {
		t.Errorf("no summary line in the log:\n%s", stderr)
	}
}

func TestBuildRefusesForeignFile(t *testing.T) {
	cfg, root := writeConfig(t, "")
	hand := filepath.Join(root, "blog", "sitemap.xml")
	os.WriteFile(hand, []byte("<urlset/>"), 0o644)
	code, _, stderr := runCLI("build", "-config", cfg)
	if code != ExitFailure || !strings.Contains(stderr, "refusing to replace "+hand) {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(root, "sitemap.xml")); err != nil {
		t.Error("the other groups were not written")
	}
}

// TestBuildShrinkGuard: a build that would leave out every page is refused
// (exit 1, the sitemaps as they were, a message naming the cause); -force
// publishes it.
func TestBuildShrinkGuard(t *testing.T) {
	cfg, root := writeConfig(t, "")
	if code, _, stderr := runCLI("build", "-config", cfg); code != ExitOK {
		t.Fatalf("first build: exit %d: %s", code, stderr)
	}
	before, _ := os.ReadFile(filepath.Join(root, "blog", "sitemap.xml"))
	os.WriteFile(filepath.Join(root, "robots.txt"), []byte("Disallow: /blog/\nUser-agent: *\nDisallow: /\n"), 0o644)
	code, _, stderr := runCLI("build", "-config", cfg)
	if code != ExitFailure || !strings.Contains(stderr, "publish refused") ||
		!strings.Contains(stderr, `2 of 2 pages are disallowed by robots.txt for user agent \"*\"`) {
		t.Errorf("refused build: exit %d, stderr:\n%s", code, stderr)
	}
	if after, _ := os.ReadFile(filepath.Join(root, "blog", "sitemap.xml")); string(after) != string(before) {
		t.Error("a refused build changed blog/sitemap.xml")
	}
	if !strings.Contains(stderr, `"left_out":{"robots":2}`) {
		t.Errorf("no left-out counts in the log:\n%s", stderr)
	}
	if code, _, stderr := runCLI("build", "-config", cfg, "-force"); code != ExitOK {
		t.Fatalf("forced build: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(root, "blog", "sitemap.xml")); err == nil {
		t.Error("the forced build kept blog/sitemap.xml")
	}
}

// TestPing drives `sitemapd ping` against an endpoint on 127.0.0.1: -dry-run
// prints and sends nothing, -now pings the index, a failure exits 1 and
// keeps the ping owed for the next try.
func TestPing(t *testing.T) {
	var mu sync.Mutex
	var got []string
	answer := http.StatusServiceUnavailable
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, r.URL.Query().Get("sitemap"))
		w.WriteHeader(answer)
	}))
	defer srv.Close()
	cfg, _ := writeConfig(t, "state_dir: state\nnotify: {attempts: 1, endpoints: [{name: crawler, kind: ping, url: \""+srv.URL+"/?sitemap={sitemap}\"}]}\n")

	if code, out, stderr := runCLI("ping", "-config", cfg, "-now"); code != ExitFailure || !strings.Contains(stderr, "run sitemapd build first") {
		t.Errorf("-now before any build: exit %d, %q %q", code, out, stderr)
	}
	if code, _, stderr := runCLI("build", "-config", cfg); code != ExitOK {
		t.Fatalf("build: %s", stderr)
	}
	// The build wrote files, and recorded (as the daemon does) that ping
	// endpoints are owed the index.
	want := "crawler: GET " + srv.URL + "/?sitemap=https%3A%2F%2Fstatic.test%2Fsitemap_index.xml"
	if code, out, _ := runCLI("ping", "-config", cfg, "-dry-run"); code != ExitOK || !strings.Contains(out, want) {
		t.Errorf("dry run after a build: exit %d, %q, want %q", code, out, want)
	}
	if code, out, _ := runCLI("ping", "-config", cfg, "-now", "-dry-run"); code != ExitOK || !strings.Contains(out, want) {
		t.Errorf("dry run -now: exit %d, %q, want %q", code, out, want)
	}
	if len(got) != 0 {
		t.Fatalf("a dry run sent %v", got)
	}
	if code, out, _ := runCLI("ping", "-config", cfg); code != ExitFailure || !strings.Contains(out, "crawler: sent 0, owed 1: ") {
		t.Errorf("endpoint down: exit %d, %q", code, out)
	}
	mu.Lock()
	answer = http.StatusOK
	mu.Unlock()
	if code, out, _ := runCLI("ping", "-config", cfg); code != ExitOK || out != "crawler: sent 1, owed 0\n" {
		t.Errorf("endpoint up: exit %d, %q", code, out)
	}
	if want := []string{"https://static.test/sitemap_index.xml", "https://static.test/sitemap_index.xml"}; !slices.Equal(got, want) {
		t.Errorf("the endpoint received %v, want %v", got, want)
	}
	// Both requests are in the status page's history, with the answers
	// the endpoint gave (503, then 200); the dry runs made none.
	h, err := status.Open(filepath.Join(filepath.Dir(cfg), "state"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var answers []string
	for _, s := range h.Activity().Submissions {
		answers = append(answers, fmt.Sprintf("%s %d URL %d", s.Endpoint, s.URLs, s.Status))
	}
	slices.Sort(answers)
	if want := []string{"crawler 1 URL 200", "crawler 1 URL 503"}; !slices.Equal(answers, want) {
		t.Errorf("the history's submissions: %q, want %q", answers, want)
	}
}

// TestMain lets a test run the CLI as a child process (the test binary
// itself, its arguments one per line in SITEMAPD_CLI_ARGS), to send it
// signals and be its systemd.
func TestMain(m *testing.M) {
	if args := os.Getenv("SITEMAPD_CLI_ARGS"); args != "" {
		os.Exit(run(strings.Split(args, "\n"), os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestSystemdAndListen runs `sitemapd run` as systemd would (Type=notify,
// WatchdogSec): it must say READY=1 after the first build, WATCHDOG=1 from
// its loop, RELOADING=1 then READY=1 around a reload and STOPPING=1 on
// SIGTERM, and serve /healthz and /metrics on `listen`.
func TestSystemdAndListen(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cfg, _ := writeConfig(t, "listen: "+addr+"\n")
	// WatchdogSec=10s: keep-alives every 2.5 s, and /healthz says the
	// daemon is stalled after 5 s without a sign of life. With 200 ms, a
	// loaded machine's scheduling delay of 100 ms made /healthz unhealthy.
	c := startChild(t, cfg, "WATCHDOG_USEC=10000000")
	cmd := c.cmd
	expect := func(want string) string { t.Helper(); return c.expect(t, want) }
	expect("READY=1")
	for path, want := range map[string]string{
		"/healthz": `"status":"ok"`,
		"/metrics": `sitemapd_publishes_total{result="ok",trigger="initial build"} 1`,
	} {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(b), want) {
			t.Errorf("GET %s: %d, want 200 with %s:\n%.500s", path, resp.StatusCode, want, b)
		}
	}
	if code, out, stderr := runCLI("health", "-config", cfg); code != ExitOK || out != "ok\n" {
		t.Errorf("sitemapd health: exit %d, %q %q", code, out, stderr)
	}
	expect("WATCHDOG=1")
	f, _ := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("# edited\n")
	f.Close()
	if msg := expect("RELOADING=1"); !strings.Contains(msg, "MONOTONIC_USEC=") {
		t.Errorf("reload message %q lacks MONOTONIC_USEC", msg)
	}
	expect("READY=1")
	cmd.Process.Signal(syscall.SIGTERM)
	expect("STOPPING=1")
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit: %v, want 0", err)
	}
}

// TestCheckSitemaps: `check PATH|URL…` finds nothing in sitemapd's own
// output, on disk or served over HTTP, and reports planted problems with
// exit 1.
func TestCheckSitemaps(t *testing.T) {
	var root string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/other/sitemap.xml" { // the blog's sitemap, misplaced
			http.ServeFile(w, r, filepath.Join(root, "blog", "sitemap.xml"))
			return
		}
		http.FileServer(http.Dir(root)).ServeHTTP(w, r)
	}))
	defer srv.Close()
	cfg, dir := writeConfig(t, "")
	root = dir
	data, _ := os.ReadFile(cfg)
	os.WriteFile(cfg, bytes.Replace(data, []byte("https://static.test/"), []byte(srv.URL+"/"), 1), 0o644)
	if code, _, stderr := runCLI("build", "-config", cfg); code != ExitOK {
		t.Fatalf("build: %s", stderr)
	}
	files := []string{filepath.Join(root, "sitemap_index.xml"), filepath.Join(root, "sitemap.xml"), filepath.Join(root, "blog", "sitemap.xml")}
	code, out, stderr := runCLI(append([]string{"check", "-config", cfg}, files...)...)
	if code != ExitOK || strings.Count(out, ": ok, a ") != 3 {
		t.Errorf("own output: exit %d:\n%s%s", code, out, stderr)
	}

	// Over HTTP, a sitemap is checked against where it is served: moved to
	// another directory, its URLs are outside it.
	code, out, _ = runCLI("check", srv.URL+"/sitemap_index.xml", srv.URL+"/blog/sitemap.xml")
	if code != ExitOK || strings.Count(out, ": ok, a ") != 2 {
		t.Errorf("served sitemaps: exit %d:\n%s", code, out)
	}
	code, out, _ = runCLI("check", srv.URL+"/other/sitemap.xml", srv.URL+"/missing.xml")
	if code != ExitFailure || !strings.Contains(out, "is outside") || !strings.Contains(out, "missing.xml: HTTP 404") {
		t.Errorf("misplaced sitemap: exit %d:\n%s", code, out)
	}

	code, out, _ = runCLI("check", "../../internal/validate/testdata/broken/fields.xml")
	if code != ExitFailure || !strings.Contains(out, "fields.xml:11: <priority> \"1.5\"") {
		t.Errorf("broken sitemap: exit %d:\n%s", code, out)
	}

	// Another namespace's element fails the file; a namespace declared
	// and unused is a warning, and the file passes.
	ns := "../../internal/validate/testdata/namespaces/"
	code, out, _ = runCLI("check", ns+"pagemap.xml")
	if code != ExitFailure || !strings.Contains(out, `pagemap.xml:5: <pm:PageMap>: unknown namespace "http://www.google.com/schemas/sitemap-pagemap/1.0"`) {
		t.Errorf("PageMap sitemap: exit %d:\n%s", code, out)
	}
	code, out, _ = runCLI("check", ns+"unused-unknown.xml")
	if code != ExitOK || !strings.Contains(out, `unused-unknown.xml:3: warning: xmlns:foo="http://example.com/ns/foo"`) || !strings.Contains(out, "unused-unknown.xml: ok, a urlset of 1 entries") {
		t.Errorf("unused namespace: exit %d:\n%s", code, out)
	}
}
