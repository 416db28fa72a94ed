package significant

import (
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The generator tests build small sites with real site generators (the
// Debian packages hugo, python3-sphinx with python3-sphinx-rtd-theme,
// mkdocs with mkdocs-material, jekyll with jekyll-theme-minima), learn a
// model from the built pages, and rebuild after changes: a change to the
// template only must move no page's Print under the model learnt before
// it (the page-by-page deploy rule: a new-template page under the old
// model), but for the pages it adds or renames; a change to content must
// move exactly the edited pages', in the parts edited. Outside CI a
// missing generator skips; under CI (CI=true) it fails.

// needTools fails or skips the test when a generator is missing.
func needTools(t *testing.T, names ...string) {
	t.Helper()
	for _, name := range names {
		if _, err := exec.LookPath(name); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed (CI=true: a missing generator fails the test)", name)
			}
			t.Skipf("%s is not installed: skipped outside CI", name)
		}
	}
}

// files are a site's sources, by path.
type files map[string]string

func (f files) clone() files { return maps.Clone(f) }

func (f files) write(t *testing.T, dir string) {
	t.Helper()
	for name, content := range f {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// edit replaces old with new in a file, which must hold it.
func (f files) edit(t *testing.T, name, old, new string) {
	t.Helper()
	if !strings.Contains(f[name], old) {
		t.Fatalf("%s does not contain %q", name, old)
	}
	f[name] = strings.Replace(f[name], old, new, 1)
}

// generator builds a site: src holds the sources, the pages go to out.
type generator struct {
	tools []string
	build func(t *testing.T, src, out string, env []string)
}

// run runs a generator in dir with a temporary HOME, without network
// (a network namespace of its own where unshare works, proxies that go
// nowhere otherwise), within a minute.
func run(t *testing.T, dir string, env []string, name string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := exec.LookPath("unshare"); err == nil && exec.Command("unshare", "--net", "true").Run() == nil {
		args = append([]string{"--net", name}, args...)
		name = "unshare"
	}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append([]string{
		"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "LC_ALL=C.UTF-8",
		"http_proxy=http://127.0.0.1:9", "https_proxy=http://127.0.0.1:9", "no_proxy=",
	}, env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// site is a built site's pages by URL path.
type site map[string][]byte

func buildSite(t *testing.T, g generator, src files, env []string) site {
	t.Helper()
	dir := t.TempDir()
	if keep := os.Getenv("SIG_KEEP"); keep != "" {
		// For TestDebugDump: the built sites are kept there.
		var err error
		if dir, err = os.MkdirTemp(keep, "site"); err != nil {
			t.Fatal(err)
		}
		t.Logf("building in %s", dir)
	}
	srcDir, out := filepath.Join(dir, "src"), filepath.Join(dir, "out")
	src.write(t, srcDir)
	g.build(t, srcDir, out, env)
	pages := site{}
	err := filepath.WalkDir(out, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".html") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(out, path)
		pages["/"+filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Fatal("the build wrote no page")
	}
	return pages
}

func (s site) paths() []string { return slices.Sorted(maps.Keys(s)) }

// read reads every page of the site.
func (s site) read(t *testing.T) map[string]*Page {
	t.Helper()
	out := map[string]*Page{}
	for path, b := range s {
		p, err := Read(b, Options{URL: path})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out[path] = p
	}
	return out
}

func learn(pages map[string]*Page) *Model {
	l := NewLearner(nil)
	for _, p := range pages {
		l.Add(p)
	}
	return l.Model()
}

// change is an edit of a site's sources and what it must move.
type change struct {
	name string
	edit func(t *testing.T, f files)
	env  []string // the build's environment, if not the base's
	// want: pages whose Print must move, in exactly these parts; atLeast:
	// pages that must move in at least these parts (a renamed page: its
	// title, its heading, its anchors); may: pages that may move, and why.
	// Every other page must keep its Print.
	want, atLeast map[string]Parts
	may           map[string]string
}

// checkSite builds base, learns its model, then builds each change and
// checks the Prints that moved under that model.
func checkSite(t *testing.T, g generator, base files, env []string, changes []change) {
	needTools(t, g.tools...)
	start := time.Now()
	before := buildSite(t, g, base, env)
	pages := before.read(t)
	model := learn(pages)
	seen, roots, tmpl := model.Regions()
	stored, err := model.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("base: %d pages; model: %d regions seen, %d content roots, %d repeating regions, %d bytes stored", len(before), seen, roots, tmpl, len(stored))
	prints := map[string]Print{}
	for path, p := range pages {
		prints[path] = model.Print(p)
		if pr := prints[path]; pr.Text == 0 && !strings.Contains(path, "search") && !strings.Contains(path, "genindex") && !strings.Contains(path, "404") {
			t.Errorf("%s: no content text under the model", path)
		}
	}
	for _, c := range changes {
		t.Run(c.name, func(t *testing.T) {
			src := base.clone()
			c.edit(t, src)
			e := env
			if c.env != nil {
				e = c.env
			}
			after := buildSite(t, g, src, e)
			var moved, added []string
			for _, path := range after.paths() {
				old, ok := prints[path]
				if !ok {
					added = append(added, path)
					continue
				}
				p, _ := Read(after[path], Options{URL: path})
				d := old.Diff(model.Print(p))
				if d != 0 {
					moved = append(moved, path+" ("+d.String()+")")
				}
				switch want, ok := c.want[path]; {
				case ok:
					if d != want {
						t.Errorf("%s: moved in %s, want %s", path, d, want)
					}
				case c.atLeast[path] != 0:
					if d&c.atLeast[path] != c.atLeast[path] {
						t.Errorf("%s: moved in %s, want at least %s", path, d, c.atLeast[path])
					}
				case c.may[path] != "":
				case d != 0:
					t.Errorf("%s: moved in %s, but the change should not move it", path, d)
				}
			}
			t.Logf("%d pages, %d added %v; moved: %v", len(after), len(added), added, moved)
		})
	}
	t.Logf("took %s", time.Since(start).Round(time.Millisecond))
}

// para is a paragraph of text that no other page has.
func para(page string, i int) string {
	words := []string{"widgets", "gears", "levers", "springs", "bolts", "valves", "pulleys", "cams"}
	var b strings.Builder
	b.WriteString("The " + page + " page explains, in paragraph " + string(rune('A'+i%26)) + ", how ")
	for j := range 12 {
		b.WriteString(words[(len(page)+i*3+j*5)%len(words)] + " ")
	}
	b.WriteString("fit together on " + page + " when the machine runs.")
	return b.String()
}
