package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// journalBuild runs `sitemapd build` at log level debug with stderr a
// file, which JOURNAL_STREAM names (or not) as systemd names the journal's
// stream, and returns the log. The build meets an error (a hand-made
// sitemap in its way), a warning (no state_dir for content hashes), info
// (its summary) and debug (a page robots.txt leaves out).
func journalBuild(t *testing.T, format string, journal func(dev, ino uint64) string) string {
	t.Helper()
	cfg, root := siteConfig(t, "state_dir: \"\"\nlog: {level: debug, format: "+format+"}\n")
	os.WriteFile(filepath.Join(root, "blog", "sitemap.xml"), []byte("<urlset/>"), 0o644)
	os.WriteFile(filepath.Join(root, "private.html"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(root, "robots.txt"), []byte("User-agent: *\nDisallow: /private.html\n"), 0o644)
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	t.Setenv("JOURNAL_STREAM", journal(uint64(st.Dev), uint64(st.Ino)))
	var out strings.Builder
	if code := run([]string{"build", "-config", cfg}, &out, f); code != ExitFailure {
		t.Errorf("exit %d, want 1 (the hand-made sitemap)", code)
	}
	log, _ := os.ReadFile(f.Name())
	return string(log)
}

var prefixRE = regexp.MustCompile(`^<([0-7])>`)

// TestJournalPriorities: under journald, each line starts with its
// level's priority, <3> error, <4> warning, <6> info, <7> debug, as
// readable text (format auto) or JSON (format json); elsewhere, no line
// does.
func TestJournalPriorities(t *testing.T) {
	here := func(dev, ino uint64) string { return fmt.Sprintf("%d:%d", dev, ino) }
	for _, tc := range []struct {
		format string
		levels map[string]string // priority -> a line of it holds this
	}{
		{"auto", map[string]string{"3": "ERROR\tbuild problem", "4": "WARN\tbuild\tlastmod taken from mtimes", "6": "INFO\tbuild finished", "7": "DEBUG\tscan\t"}},
		{"console", map[string]string{"3": "ERROR\tbuild problem", "6": "INFO\tbuild finished"}},
		{"json", map[string]string{"3": `{"level":"error",`, "4": `{"level":"warn",`, "6": `{"level":"info",`, "7": `{"level":"debug",`}},
	} {
		t.Run(tc.format, func(t *testing.T) {
			log := journalBuild(t, tc.format, here)
			seen := map[string]bool{}
			for _, line := range strings.Split(strings.TrimSuffix(log, "\n"), "\n") {
				m := prefixRE.FindStringSubmatch(line)
				if m == nil {
					t.Fatalf("a line without a priority: %q", line)
				}
				want := map[string]string{"3": "error", "4": "warn", "6": "info", "7": "debug"}[m[1]]
				if lower := strings.ToLower(line); !strings.Contains(lower, want) {
					t.Errorf("priority <%s> on a line not at level %s: %q", m[1], want, line)
				}
				for p, s := range tc.levels {
					seen[p] = seen[p] || (m[1] == p && strings.Contains(line, s))
				}
				if tc.format != "json" && regexp.MustCompile(`\d{4}-\d\d-\d\dT`).MatchString(line) {
					t.Errorf("a time on a text line (the journal stamps its entries): %q", line)
				}
				if strings.Contains(line, "\x1b[") {
					t.Errorf("colours in the journal: %q", line)
				}
			}
			for p, s := range tc.levels {
				if !seen[p] {
					t.Errorf("no <%s> line with %q in:\n%s", p, s, log)
				}
			}
		})
	}
	// Not the journal: JOURNAL_STREAM unset, or naming another stream (a
	// child of a service whose stderr was redirected inherits it).
	for name, env := range map[string]func(dev, ino uint64) string{
		"unset":   func(uint64, uint64) string { return "" },
		"other":   func(dev, ino uint64) string { return fmt.Sprintf("%d:%d", dev, ino+1) },
		"garbage": func(uint64, uint64) string { return "journal" },
	} {
		log := journalBuild(t, "auto", env)
		if !strings.HasPrefix(log, `{"level":`) || strings.Contains(log, "\n<") || strings.HasPrefix(log, "<") {
			t.Errorf("%s: want JSON lines without a priority:\n%s", name, log)
		}
	}
}
