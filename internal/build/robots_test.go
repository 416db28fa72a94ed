package build

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestRobotsTxt: with robots_txt on, a build adds the Sitemap line to the
// site's robots.txt, keeping its other bytes and its mode; a second build
// changes nothing; with the option off the file is never touched.
func TestRobotsTxt(t *testing.T) {
	root := site(t, "index.html")
	p := filepath.Join(root, "robots.txt")
	const theirs = "User-agent: *\nDisallow: /tmp/\n"
	os.WriteFile(p, []byte(theirs), 0o640)

	off, _ := newEngine(t, loadConfig(t, baseConfig, root, ""))
	mustBuild(t, off)
	if got := read(t, p); got != theirs {
		t.Fatalf("robots.txt changed with robots_txt off: %q", got)
	}

	e, _ := newEngine(t, loadConfig(t, baseConfig, root, "robots_txt: true\n"))
	mustBuild(t, e)
	if got, want := read(t, p), theirs+"Sitemap: https://static.test/sitemap_index.xml\n"; got != want {
		t.Errorf("robots.txt = %q, want %q", got, want)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want the file's own 0640", st.Mode().Perm())
	}
	if rep := mustBuild(t, e); len(rep.Written) != 0 {
		t.Errorf("second build wrote %v", rep.Written)
	}

	if os.Geteuid() != 0 { // root may write anything
		os.Chmod(p, 0o444)
		os.WriteFile(filepath.Join(root, "x.html"), nil, 0o644)
		e2, logs := newEngine(t, loadConfig(t, baseConfig, root, "robots_txt: true\nindex_name: other_index.xml\n"))
		mustBuild(t, e2)
		if logs.FilterMessageSnippet("not writable").Len() != 1 || strings.Contains(read(t, p), "other_index") {
			t.Errorf("an unwritable robots.txt was not left alone with a warning")
		}
	}
}

// TestRobotsRules: pages the docroot's robots.txt disallows for the
// configured agent are left out; Allow, agent groups, the switch and the
// host-root condition all count; only a change of rules (not of Sitemap
// lines) asks for a full read.
func TestRobotsRules(t *testing.T) {
	root := site(t, "index.html", "private/secret.html", "private/open.html", "blog/a.html", "a b/c.html")
	robots := "User-agent: *\nDisallow: /private/\nAllow: /private/open.html\nDisallow: /a%20b/\n\nUser-agent: Googlebot\nDisallow: /\n"
	os.WriteFile(filepath.Join(root, "robots.txt"), []byte(robots), 0o644)
	// The same configuration served below the host root.
	base, _ := os.ReadFile(baseConfig)
	prefixed := filepath.Join(t.TempDir(), "prefixed.yaml")
	os.WriteFile(prefixed, []byte(strings.Replace(string(base), "https://static.test/", "https://static.test/site/", 1)), 0o644)
	listed := func(extra string) []string {
		t.Helper()
		for _, f := range []string{"sitemap.xml", "private/sitemap.xml", "blog/sitemap.xml", "a b/sitemap.xml"} {
			os.Remove(filepath.Join(root, f))
		}
		file := baseConfig
		if extra == "prefixed" {
			file, extra = prefixed, ""
		}
		e, _ := newEngine(t, loadConfig(t, file, root, extra))
		mustBuild(t, e)
		var out []string
		for _, f := range []string{"sitemap.xml", "private/sitemap.xml", "blog/sitemap.xml", "a b/sitemap.xml"} {
			b, _ := os.ReadFile(filepath.Join(root, f))
			for _, m := range regexp.MustCompile(`<loc>([^<]*)</loc>`).FindAllStringSubmatch(string(b), -1) {
				out = append(out, strings.TrimPrefix(m[1], "https://static.test"))
			}
		}
		return out
	}
	for _, tc := range []struct {
		extra string
		want  []string
	}{
		{"", []string{"/", "/private/open.html", "/blog/a.html"}},
		// Google matches agents whole: Googlebot-News would fall to "*".
		// Everything disallowed lists nothing, which only a build without
		// the shrink guard publishes.
		{"pages: {robots_agent: googlebot}\nshrink_guard: false\n", nil},
		{"pages: {robots_agent: Googlebot-News}\n", []string{"/", "/private/open.html", "/blog/a.html"}},
		{"pages: {robots_txt: false}\n", []string{"/", "/private/open.html", "/private/secret.html", "/blog/a.html", "/a%20b/c.html"}},
		{"prefixed", []string{"/site/", "/site/private/open.html", "/site/private/secret.html", "/site/blog/a.html", "/site/a%20b/c.html"}},
	} {
		got := listed(tc.extra)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: listed %v, want %v", tc.extra, got, tc.want)
		}
	}

	e, _ := newEngine(t, loadConfig(t, baseConfig, root, ""))
	os.WriteFile(filepath.Join(root, "robots.txt"), []byte(robots+"Sitemap: https://static.test/sitemap_index.xml\n"), 0o644)
	if e.RobotsChanged() {
		t.Error("a new Sitemap line counted as a change of rules")
	}
	os.WriteFile(filepath.Join(root, "robots.txt"), []byte("User-agent: *\nDisallow: /blog/\n"), 0o644)
	if !e.RobotsChanged() {
		t.Error("new rules not noticed")
	}
}

// TestRobotsWarnedOncePerBuild: a robots.txt larger than crawlers read is
// warned of once a build, not once when the engine is made and again when
// it builds.
func TestRobotsWarnedOncePerBuild(t *testing.T) {
	root := site(t, "index.html")
	big := "User-agent: *\nDisallow: /private/\n" + strings.Repeat("# padding\n", 60<<10)
	if err := os.WriteFile(filepath.Join(root, "robots.txt"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	e, logs := newEngine(t, loadConfig(t, baseConfig, root, ""))
	mustBuild(t, e)
	if n := logs.FilterMessageSnippet("larger than crawlers read").Len(); n != 1 {
		t.Errorf("%d warnings of the robots.txt's size for one build, want 1", n)
	}
	mustBuild(t, e)
	if n := logs.FilterMessageSnippet("larger than crawlers read").Len(); n != 2 {
		t.Errorf("%d warnings after two builds, want 2", n)
	}
}
