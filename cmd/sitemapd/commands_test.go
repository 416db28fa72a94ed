package main

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// siteConfig writes a site of two pages and a configuration for it (with
// a base URL of the .test domain, which RFC 2606 reserves for tests), and
// returns the configuration's path and the root.
func siteConfig(t *testing.T, body string) (cfg, root string) {
	t.Helper()
	dir := t.TempDir()
	root = filepath.Join(dir, "site")
	for _, p := range []string{"index.html", "blog/a.html"} {
		os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755)
		os.WriteFile(filepath.Join(root, p), []byte("<title>x</title>"), 0o644)
	}
	cfg = filepath.Join(dir, "sitemapd.yaml")
	if !strings.Contains(body, "state_dir:") {
		body += "state_dir: state\n"
	}
	os.WriteFile(cfg, []byte("root: site\nbase_url: https://www.sitemapd.test/\n"+body), 0o644)
	return cfg, root
}

// TestCommandHelp: COMMAND -h, -help and --help, and help COMMAND, print
// that command's usage to stdout and exit 0, doing nothing else (run -h
// starts no daemon: it would block).
func TestCommandHelp(t *testing.T) {
	for _, c := range commands {
		for _, args := range [][]string{{c.name, "-h"}, {c.name, "-help"}, {c.name, "--help"}, {"help", c.name}} {
			code, out, stderr := runCLI(args...)
			if code != ExitOK || stderr != "" || !strings.HasPrefix(out, "usage: sitemapd "+c.name+" ") {
				t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, stderr)
			}
			if c.config && !strings.Contains(out, "-config file") {
				t.Errorf("%q: no -config in\n%s", args, out)
			}
		}
	}
	if _, out, _ := runCLI("build", "-h"); !strings.Contains(out, "-dry-run") || !strings.Contains(out, "-force") {
		t.Errorf("build -h:\n%s", out)
	}
	// A flag set before -h is parsed as usual; help wins.
	if code, out, _ := runCLI("ping", "-config", "/nonexistent", "-now", "-h"); code != ExitOK || !strings.Contains(out, "-now") {
		t.Errorf("ping ... -h: exit %d, %q", code, out)
	}
	for _, args := range [][]string{{"-h"}, {"--help"}, {"help"}} {
		if code, out, _ := runCLI(args...); code != ExitOK || !strings.HasPrefix(out, "usage: sitemapd COMMAND") {
			t.Errorf("%q: exit %d, %q", args, code, out)
		}
	}
	// A bad flag is still bad usage, with the command's usage on stderr.
	if code, out, stderr := runCLI("build", "-nope"); code != ExitUsage || out != "" || !strings.Contains(stderr, "usage: sitemapd build") {
		t.Errorf("build -nope: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
}

// TestUnknownCommand: a typo gets the nearest command suggested.
func TestUnknownCommand(t *testing.T) {
	for typo, want := range map[string]string{
		"biuld": "build", "bulid": "build", "buidl": "build", "bild": "build", "Build": "build",
		"chekc": "check", "chek": "check", "rnu": "run", "pign": "ping", "verison": "version",
		"versoin": "version", "helth": "health", "healht": "health", "vers": "version", "stauts": "status",
	} {
		code, out, stderr := runCLI(typo)
		if code != ExitUsage || out != "" || !strings.Contains(stderr, `unknown command "`+typo+`": did you mean "`+want+`"?`) {
			t.Errorf("%s: exit %d, stderr %q; want %q suggested", typo, code, stderr, want)
		}
	}
	for _, far := range []string{"frobnicate", "x", "deploy", "report"} {
		if code, _, stderr := runCLI(far); code != ExitUsage || strings.Contains(stderr, "did you mean") || !strings.Contains(stderr, "usage:") {
			t.Errorf("%s: exit %d, stderr %q; want no suggestion and the usage", far, code, stderr)
		}
	}
	if _, _, stderr := runCLI("-config", "x.yaml", "run"); !strings.Contains(stderr, "the command comes first") {
		t.Errorf("flags first: %q", stderr)
	}
	for a, b := range map[[2]string]int{{"biuld", "build"}: 1, {"ca", "abc"}: 3, {"", "run"}: 3, {"check", "check"}: 0, {"abcd", "badc"}: 2} {
		if d := editDistance(a[0], a[1]); d != b {
			t.Errorf("editDistance(%q, %q) = %d, want %d", a[0], a[1], d, b)
		}
	}
}

// TestVersion: version, commit and Go version, on three lines; the commit
// from a link-time stamp, or the VCS stamp of the build info.
func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"-version"}, {"--version"}} {
		code, out, _ := runCLI(args...)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if code != ExitOK || len(lines) != 3 || !strings.HasPrefix(lines[0], "sitemapd ") || !strings.HasPrefix(lines[1], "commit: ") ||
			lines[2] != "go: "+runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH {
			t.Errorf("%q: exit %d:\n%s", args, code, out)
		}
	}
	if code, _, _ := runCLI("version", "extra"); code != ExitUsage {
		t.Errorf("version extra: exit %d", code)
	}
	defer func(v, c string) { version, commit = v, c }(version, commit)
	version, commit = "v1.2.3", "0123abc"
	if _, out, _ := runCLI("version"); !strings.HasPrefix(out, "sitemapd v1.2.3\ncommit: 0123abc\n") {
		t.Errorf("stamped: %q", out)
	}
	rev := []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "879a0b0c"}}
	for _, tc := range []struct {
		bi   *debug.BuildInfo
		want string
	}{
		{nil, "unknown (built without version control information)"},
		{&debug.BuildInfo{}, "unknown (built without version control information)"},
		{&debug.BuildInfo{Settings: rev}, "879a0b0c"},
		{&debug.BuildInfo{Settings: append(rev, debug.BuildSetting{Key: "vcs.modified", Value: "false"})}, "879a0b0c"},
		{&debug.BuildInfo{Settings: append(rev, debug.BuildSetting{Key: "vcs.modified", Value: "true"})}, "879a0b0c (modified)"},
	} {
		if got := commitOf(tc.bi); got != tc.want {
			t.Errorf("commitOf(%v) = %q, want %q", tc.bi, got, tc.want)
		}
	}
}
