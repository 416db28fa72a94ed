package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
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
	os.WriteFile(cfg, []byte("root: site\nbase_url: https://example.com/\nlog: {format: json}\n"+body), 0o644)
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
	if code, out, _ := runCLI("ping", "-config", cfg, "-dry-run"); code != ExitOK || !strings.Contains(out, "nothing is owed") {
		t.Errorf("dry run with nothing owed: exit %d, %q", code, out)
	}
	code2, out, _ := runCLI("ping", "-config", cfg, "-now", "-dry-run")
	if want := "crawler: GET " + srv.URL + "/?sitemap=https%3A%2F%2Fexample.com%2Fsitemap_index.xml"; code2 != ExitOK || !strings.Contains(out, want) {
		t.Errorf("dry run: exit %d, %q, want %q", code2, out, want)
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
	if want := []string{"https://example.com/sitemap_index.xml", "https://example.com/sitemap_index.xml"}; !slices.Equal(got, want) {
		t.Errorf("the endpoint received %v, want %v", got, want)
	}
}
