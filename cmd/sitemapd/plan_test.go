package main

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/lock"
)

// listing is every file and directory below dir with its mode, size,
// mtime, inode and bytes.
func listing(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		st, _ := os.Lstat(p)
		data, _ := os.ReadFile(p)
		fmt.Fprintf(&b, "%s %v %d %d %d %x\n", p, st.Mode(), st.Size(), st.ModTime().UnixNano(), st.Sys().(*syscall.Stat_t).Ino, sha256.Sum256(data))
		return nil
	})
	return b.String()
}

// TestBuildDryRun: `build -dry-run` prints the groups with their URL
// counts and each file a build would write, remove or refuse, touches
// nothing (state_dir is not even created), and exits as the build would.
func TestBuildDryRun(t *testing.T) {
	cfg, root := siteConfig(t, "formats: [xml, txt]\n")
	top := filepath.Dir(root)
	before := listing(t, top)
	code, out, stderr := runCLI("build", "-config", cfg, "-dry-run")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if after := listing(t, top); after != before {
		t.Fatalf("the dry run changed the disk:\n%s\n%s", before, after)
	}
	for _, want := range []string{
		"Dry run of " + cfg + ": nothing was written.\n",
		"group   urls  sitemaps\n/          1  sitemap.xml\n/blog/     1  blog/sitemap.xml\ntotal      2  in 2 groups\n",
		"would    file\ncreate   .sitemapd-text.sha256  (new)\ncreate   blog/sitemap.txt       (new)\n",
		"create   sitemap_index.xml      (new)\n0 files unchanged.\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(top, "state")); err == nil {
		t.Error("the dry run made state_dir")
	}

	if code, _, stderr := runCLI("build", "-config", cfg); code != ExitOK {
		t.Fatalf("build: exit %d: %s", code, stderr)
	}
	os.WriteFile(filepath.Join(root, "blog", "b.html"), []byte("<title>b</title>"), 0o644)
	os.MkdirAll(filepath.Join(root, "docs"), 0o755)
	os.WriteFile(filepath.Join(root, "docs", "d.html"), []byte("<title>d</title>"), 0o644)
	os.WriteFile(filepath.Join(root, "docs", "sitemap.xml"), []byte("<urlset/>"), 0o644)
	os.Remove(filepath.Join(root, "index.html"))
	before = listing(t, top)
	code, out, _ = runCLI("build", "-config", cfg, "-dry-run")
	if after := listing(t, top); after != before {
		t.Fatalf("the dry run changed the disk:\n%s\n%s", before, after)
	}
	for _, want := range []string{
		"/          0  - (no page listed)\n/blog/     2  blog/sitemap.xml\n/docs/     1  docs/sitemap.xml\ntotal      3  in 3 groups\n",
		"replace  blog/sitemap.xml\n",
		"replace  .sitemapd-text.sha256\nreplace  blog/sitemap.txt\n",
		"refuse   docs/sitemap.xml       (refused: it was not written by sitemapd",
		"remove   sitemap.txt\nremove   sitemap.xml\nreplace  sitemap_index.xml\n",
		"the page store, " + filepath.Join(top, "state", "pages") + ", rewritten whole.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if code != ExitFailure {
		t.Errorf("exit %d, want 1 as the build (a file refused)", code)
	}

	os.Remove(filepath.Join(root, "docs", "sitemap.xml"))
	runCLI("build", "-config", cfg)
	if code, out, _ := runCLI("build", "-config", cfg, "-dry-run"); code != ExitOK || !strings.Contains(out, "No file would change.\n") {
		t.Errorf("after the build: exit %d:\n%s", code, out)
	}

	// A dry run takes no lock: it neither waits for a build holding the
	// tree nor writes a lock file.
	held, err := lock.Acquire(filepath.Join(root, lock.OutputName), root, lock.Holder{PID: 12345, Command: "build", Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	before = listing(t, top)
	done := make(chan int, 1)
	go func() { code, _, _ := runCLI("build", "-config", cfg, "-dry-run"); done <- code }()
	select {
	case code := <-done:
		if code != ExitOK {
			t.Errorf("dry run beside a build: exit %d", code)
		}
	case <-time.After(time.Minute): // one that waits would wait for ever: only a broken test meets this
		t.Fatal("the dry run waits for the build holding the tree")
	}
	if after := listing(t, top); after != before {
		t.Errorf("the dry run beside a build changed the disk:\n%s\n%s", before, after)
	}
	held.Close()

	// The shrink guard's refusal, as the build would meet it.
	os.WriteFile(filepath.Join(root, "robots.txt"), []byte("User-agent: *\nDisallow: /\n"), 0o644)
	code, out, _ = runCLI("build", "-config", cfg, "-dry-run")
	if code != ExitFailure || !strings.Contains(out, "The build would be refused, and write nothing: publish refused") {
		t.Errorf("shrink: exit %d:\n%s", code, out)
	}
}

// TestBuildDryRunAlternates: `build -dry-run` counts the hreflang
// alternates a build would not list, by reason (docs/output.md): the home
// page names /blog/a.html, which names it back, and /fr/, which is no
// page of the site; blog/a.html names the home page and another host.
func TestBuildDryRunAlternates(t *testing.T) {
	cfg, root := siteConfig(t, "")
	os.WriteFile(filepath.Join(root, "index.html"), []byte(`<link rel=alternate hreflang=en href=/><link rel=alternate hreflang=de href=/blog/a.html><link rel=alternate hreflang=fr href=/fr/>`), 0o644)
	os.WriteFile(filepath.Join(root, "blog", "a.html"), []byte(`<link rel=alternate hreflang=de href=/blog/a.html><link rel=alternate hreflang=en href=/><link rel=alternate hreflang=es href=https://elsewhere.test/es/>`), 0o644)
	code, out, stderr := runCLI("build", "-config", cfg, "-dry-run")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if want := "hreflang alternates not listed: other_host 1, unlisted 1 (4 listed).\n"; !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
}
