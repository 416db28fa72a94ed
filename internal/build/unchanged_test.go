package build

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestUnchangedGroupsKeepTheirFiles builds as `sitemapd build` does, a new
// engine each time, with one change between two builds: the second build
// encodes the groups the change touched, and only those. Whatever it kept,
// its files must be what a build that encodes every group writes: a third
// build without the groups record (the oracle) finds nothing to write.
func TestUnchangedGroupsKeepTheirFiles(t *testing.T) {
	t0 := defaultMTime
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, root, state string) (extra string) // extra config for the second build
		encode []string                                              // the groups encoded again
		writes bool                                                  // whether the second build writes or removes a part
	}{
		{name: "nothing changed"},
		{
			name: "every page rewritten with the same bytes",
			change: func(t *testing.T, root, _ string) string {
				filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
					if err == nil && strings.HasSuffix(p, ".html") {
						rewrite(t, p, t0.Add(time.Hour), true)
					}
					return nil
				})
				return ""
			},
		},
		{
			name: "a page edited",
			change: func(t *testing.T, root, _ string) string {
				mustWrite(t, filepath.Join(root, "docs/p3.html"), t0.Add(time.Hour))
				return ""
			},
			encode: []string{"docs"}, writes: true,
		},
		{
			name: "a page added",
			change: func(t *testing.T, root, _ string) string {
				mustWrite(t, filepath.Join(root, "blog/new.html"), t0)
				return ""
			},
			encode: []string{"blog"}, writes: true,
		},
		{
			name: "a page removed",
			change: func(t *testing.T, root, _ string) string {
				os.Remove(filepath.Join(root, "blog/p2.html"))
				return ""
			},
			encode: []string{"blog"}, writes: true,
		},
		{
			name: "a page's head now says noindex",
			change: func(t *testing.T, root, _ string) string {
				writeFile(t, filepath.Join(root, "docs/p1.html"), `<meta name="robots" content="noindex">`, t0.Add(time.Hour))
				return ""
			},
			encode: []string{"docs"}, writes: true,
		},
		{
			name: "a part edited, its size and mtime kept",
			change: func(t *testing.T, root, _ string) string {
				p := firstPart(t, root, "docs")
				fi, err := os.Stat(p)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := os.ReadFile(p)
				b = []byte(strings.Replace(string(b), "p1.html", "p9.html", 1))
				os.WriteFile(p, b, 0o644)
				os.Chtimes(p, fi.ModTime(), fi.ModTime())
				return ""
			},
			encode: []string{"docs"}, writes: true,
		},
		{
			name: "a part removed",
			change: func(t *testing.T, root, _ string) string {
				os.Remove(firstPart(t, root, "blog"))
				return ""
			},
			encode: []string{"blog"}, writes: true,
		},
		{
			name: "robots.txt disallows a page",
			change: func(t *testing.T, root, _ string) string {
				writeFile(t, filepath.Join(root, "robots.txt"), "User-agent: *\nDisallow: /blog/p1.html\n", t0)
				return ""
			},
			encode: []string{"blog"}, writes: true,
		},
		{
			name: "another configuration",
			change: func(*testing.T, string, string) string {
				return "part_size: 4\n"
			},
			encode: []string{"", "blog", "docs"}, writes: true,
		},
		{
			name: "the record damaged",
			change: func(t *testing.T, _, state string) string {
				os.WriteFile(filepath.Join(state, groupsName), []byte(`{"version":1,"key":`), 0o600)
				return ""
			},
			encode: []string{"", "blog", "docs"},
		},
		{
			name: "the record written under another key (another sitemapd)",
			change: func(t *testing.T, _, state string) string {
				p := filepath.Join(state, groupsName)
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				os.WriteFile(p, []byte(strings.Replace(string(b), `"key":"`, `"key":"0`, 1)), 0o600)
				return ""
			},
			encode: []string{"", "blog", "docs"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, state := site(t), t.TempDir()
			mustWrite(t, filepath.Join(root, "index.html"), t0)
			for i := range 7 {
				mustWrite(t, filepath.Join(root, fmt.Sprintf("docs/p%d.html", i)), t0)
				mustWrite(t, filepath.Join(root, fmt.Sprintf("blog/p%d.html", i)), t0)
			}
			build := func(extra string, keepRecord bool) (*Engine, *Report) {
				t.Helper()
				if !keepRecord {
					os.Remove(filepath.Join(state, groupsName))
				}
				if extra == "" {
					extra = "part_size: 3\n" // parts of several pages, several parts a group
				}
				cfg := loadConfig(t, baseConfig, root, "state_dir: "+state+"\n"+extra)
				e, logs := newEngine(t, cfg)
				rep := mustBuild(t, e)
				if w := warnings(logs, root); w != "\n" {
					t.Errorf("warnings: %s", w)
				}
				return e, rep
			}
			build("", true)
			if _, err := os.Stat(filepath.Join(state, groupsName)); err != nil {
				t.Fatalf("no groups record after a build: %v", err)
			}
			extra := ""
			if tc.change != nil {
				extra = tc.change(t, root, state)
			}
			e, rep := build(extra, true)
			want := 0
			for _, g := range tc.encode {
				want += len(parts(t, root, g))
			}
			if e.enc.parts != want {
				t.Errorf("encoded %d parts, want %d (those of groups %q)", e.enc.parts, want, tc.encode)
			}
			if wrote := slices.ContainsFunc(rep.Written, isPartPath) || slices.ContainsFunc(rep.Removed, isPartPath); wrote != tc.writes {
				t.Errorf("wrote %v, removed %v; want a part written or removed: %v", rep.Written, rep.Removed, tc.writes)
			}
			if _, rep := build(extra, false); len(rep.Written) != 0 {
				t.Errorf("a build encoding every group rewrote %v: the build before left them untrue", rep.Written)
			}
			if e, _ := build(extra, true); e.enc.parts != 0 {
				t.Errorf("the build after encoded %d parts", e.enc.parts)
			}
		})
	}
}

// parts lists a group's sitemap parts in a build's output.
func parts(t *testing.T, root, group string) []string {
	t.Helper()
	ps, err := filepath.Glob(filepath.Join(root, group, "sitemap*.xml"))
	if err != nil {
		t.Fatal(err)
	}
	return slices.DeleteFunc(ps, func(p string) bool { return !isPartPath(p) })
}

func firstPart(t *testing.T, root, group string) string {
	t.Helper()
	ps := parts(t, root, group)
	if len(ps) == 0 {
		t.Fatalf("group %q has no parts", group)
	}
	return ps[0]
}

func isPartPath(p string) bool {
	return strings.HasPrefix(filepath.Base(p), "sitemap") && !strings.HasSuffix(p, cfgIndexName)
}

// TestDueGroupIsEncoded: a page whose time was still to come has none in
// the record's build; when its time comes, its group is encoded again
// and the page gets its lastmod, though no file changed.
func TestDueGroupIsEncoded(t *testing.T) {
	t0 := defaultMTime
	root, state := site(t), t.TempDir()
	mustWrite(t, filepath.Join(root, "docs/a.html"), t0)
	mustWrite(t, filepath.Join(root, "docs/soon.html"), t0.Add(time.Hour))
	mustWrite(t, filepath.Join(root, "blog/b.html"), t0)
	cfg := loadConfig(t, baseConfig, root, "state_dir: "+state+"\n")
	build := func(now time.Time) *Engine {
		t.Helper()
		e, _ := newEngine(t, cfg, withClock(func() time.Time { return now }))
		mustBuild(t, e)
		return e
	}
	build(t0)
	if lm := lastmods(t, filepath.Join(root, "docs/sitemap.xml")); lm["https://static.test/docs/soon.html"] != "" {
		t.Fatalf("a page still to come has lastmod %q", lm["https://static.test/docs/soon.html"])
	}
	if e := build(t0.Add(time.Minute)); e.enc.parts != 1 {
		t.Errorf("before its time: %d parts encoded, want 1 (its group is not kept while a page is to come)", e.enc.parts)
	}
	build(t0.Add(2 * time.Hour))
	if lm := lastmods(t, filepath.Join(root, "docs/sitemap.xml")); lm["https://static.test/docs/soon.html"] != w3c(t0.Add(time.Hour)) {
		t.Errorf("when its time came: lastmod %q, want %s", lm["https://static.test/docs/soon.html"], w3c(t0.Add(time.Hour)))
	}
	if e := build(t0.Add(3 * time.Hour)); e.enc.parts != 0 {
		t.Errorf("after: %d parts encoded, want none", e.enc.parts)
	}
}
