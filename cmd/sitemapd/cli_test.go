package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
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
