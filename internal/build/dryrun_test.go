package build

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/publish"
	"github.com/sitemapd/sitemapd/internal/textrecord"
)

// snapshot lists every file and directory below dir: path, mode, size,
// mtime, inode and the bytes' hash. Any write, temp file, rename or
// removal shows in it (a temp file made and removed changes its
// directory's mtime).
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		st, err := os.Lstat(p)
		if err != nil {
			return err
		}
		sys := st.Sys().(*syscall.Stat_t)
		sum := ""
		if st.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum = fmt.Sprintf("%x", sha256.Sum256(data))
		}
		fmt.Fprintf(&b, "%s %v %d %d %d %s\n", p, st.Mode(), st.Size(), st.ModTime().UnixNano(), sys.Ino, sum)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// dryConfig is a configuration that writes every kind of file: XML and
// text sitemaps, the stylesheet, an IndexNow key file, robots.txt lines,
// the page store.
func dryConfig(t *testing.T, root, state string) *config.Config {
	t.Helper()
	cfg, err := config.Load([]byte(fmt.Sprintf(`root: %q
state_dir: %q
base_url: https://www.sitemapd.test/
formats: [xml, txt]
stylesheet: builtin
robots_txt: true
notify:
  endpoints: [{name: in, kind: indexnow, url: "http://127.0.0.1:9/", key: 0123456789abcdef}]
`, root, state)), filepath.Join(root, "..", "sitemapd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// relNames makes absolute paths relative to dir, sorted.
func relNames(dir string, paths []string) []string {
	out := []string{}
	for _, p := range paths {
		rel, _ := filepath.Rel(dir, p)
		out = append(out, rel)
	}
	slices.Sort(out)
	return out
}

// planned lists the files a plan gives an action out of acts.
func planned(p *Plan, acts ...Action) []string {
	out := []string{}
	for _, f := range p.Files {
		if slices.Contains(acts, f.Action) {
			out = append(out, f.Name)
		}
	}
	return out
}

// TestDryRun: a dry run on a real tree, with every kind of work pending
// (new, changed and removed sitemaps, a foreign file in the way, a stale
// temp file, robots.txt lines to restore, the record of text sitemaps and
// the page store to rewrite), changes nothing on disk, in the output or
// state_dir, and reports exactly what the real build then does.
func TestDryRun(t *testing.T) {
	top := t.TempDir()
	root, state := filepath.Join(top, "site"), filepath.Join(top, "state")
	os.MkdirAll(state, 0o700)
	for _, p := range []string{"index.html", "about.html", "blog/a.html", "docs/d.html", "old/o.html", "old/p.html"} {
		mustWrite(t, filepath.Join(root, p), defaultMTime)
	}
	cfg := dryConfig(t, root, state)
	e, _ := newEngine(t, cfg)
	mustBuild(t, e)
	e.Close()

	mustWrite(t, filepath.Join(root, "blog/new.html"), defaultMTime.Add(time.Hour))
	mustWrite(t, filepath.Join(root, "news/n.html"), defaultMTime)
	os.Remove(filepath.Join(root, "old/o.html"))
	os.Remove(filepath.Join(root, "old/p.html"))
	os.WriteFile(filepath.Join(root, "docs/sitemap.xml"), []byte("<urlset>by hand</urlset>"), 0o644)
	os.WriteFile(filepath.Join(root, "robots.txt"), []byte("User-agent: *\nDisallow:\n"), 0o644)
	stale := filepath.Join(root, "blog", publish.TempPrefix+"0123"+publish.TempSuffix)
	writeFile(t, stale, "left by a crash", time.Now().Add(-time.Hour))
	time.Sleep(10 * time.Millisecond) // a write in the dry run would show a later mtime

	before := snapshot(t, top)
	dry, _ := newEngine(t, cfg, WithDryRun())
	drep, derr := dry.Build(context.Background())
	if after := snapshot(t, top); after != before {
		t.Fatalf("the dry run changed the disk:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	var fe *publish.ForeignError
	if !errors.As(derr, &fe) || !strings.HasSuffix(fe.Path, "docs/sitemap.xml") {
		t.Fatalf("dry run: err %v, want the foreign docs/sitemap.xml", derr)
	}
	plan := dry.Plan()
	if plan == nil {
		t.Fatal("no plan")
	}

	record, _ := os.ReadFile(filepath.Join(root, textrecord.Name))
	store, _ := os.Stat(filepath.Join(state, "pages"))
	real, _ := newEngine(t, cfg)
	rep, err := real.Build(context.Background())
	if !errors.As(err, &fe) || !strings.HasSuffix(fe.Path, "docs/sitemap.xml") {
		t.Fatalf("real build: err %v, want the foreign docs/sitemap.xml", err)
	}

	written, removed := relNames(root, rep.Written), relNames(root, rep.Removed)
	if got := relNames(root, drep.Written); !slices.Equal(got, written) {
		t.Errorf("dry run would write %q, the build wrote %q", got, written)
	}
	if got := relNames(root, drep.Removed); !slices.Equal(got, removed) {
		t.Errorf("dry run would remove %q, the build removed %q", got, removed)
	}
	wantWritten := []string{"blog/sitemap.txt", "blog/sitemap.xml", "news/sitemap.txt", "news/sitemap.xml", "robots.txt", "sitemap_index.xml"}
	if !slices.Equal(written, wantWritten) || !slices.Equal(removed, []string{"old/sitemap.txt", "old/sitemap.xml"}) {
		t.Errorf("the scenario changed: wrote %q, removed %q", written, removed)
	}
	if got := planned(plan, Create, Replace); !slices.Equal(got, append([]string{textrecord.Name}, written...)) {
		t.Errorf("plan writes %q, want %q and the record", got, written)
	}
	if got := planned(plan, Create); !slices.Equal(got, []string{"news/sitemap.txt", "news/sitemap.xml"}) {
		t.Errorf("plan creates %q", got)
	}
	if got := planned(plan, Remove); !slices.Equal(got, removed) {
		t.Errorf("plan removes %q, want %q", got, removed)
	}
	if got := planned(plan, Refuse); !slices.Equal(got, []string{"docs/sitemap.xml"}) {
		t.Errorf("plan refuses %q", got)
	}
	if got := planned(plan, Clean); !slices.Equal(got, []string{"blog/" + filepath.Base(stale)}) {
		t.Errorf("plan cleans %q", got)
	}
	if _, err := os.Stat(stale); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the build left the stale temp file: %v", err)
	}
	if now, _ := os.ReadFile(filepath.Join(root, textrecord.Name)); string(now) == string(record) {
		t.Error("the build did not rewrite the record, the plan says it would")
	}
	if now, err := os.Stat(filepath.Join(state, "pages")); err != nil || os.SameFile(now, store) || plan.PageStore != filepath.Join(state, "pages") {
		t.Errorf("page store: plan %q, written %v", plan.PageStore, err)
	}
	var urls []string
	for _, g := range plan.Groups {
		urls = append(urls, fmt.Sprintf("%s:%d:%s", g.Dir, g.URLs, strings.Join(g.Sitemaps, ",")))
	}
	if want := []string{":2:sitemap.xml", "blog:2:blog/sitemap.xml", "docs:1:docs/sitemap.xml", "news:1:news/sitemap.xml", "old:0:"}; !slices.Equal(urls, want) {
		t.Errorf("groups %q, want %q", urls, want)
	}
	if plan.Unchanged == 0 {
		t.Error("no file counted unchanged")
	}

	// Once built, a dry run has nothing to do but the refusal.
	e2, _ := newEngine(t, cfg, WithDryRun())
	if _, err := e2.Build(context.Background()); !errors.As(err, &fe) {
		t.Fatalf("second dry run: %v", err)
	}
	if got := planned(e2.Plan(), Create, Replace, Remove, Clean); len(got) != 0 {
		t.Errorf("after the build, a dry run would still do %q", got)
	}
}

// TestDryRunShrinkGuard: the shrink guard's refusal is reported by a dry
// run as by a build, with the groups it read, and nothing is planned.
func TestDryRunShrinkGuard(t *testing.T) {
	top := t.TempDir()
	root, state := filepath.Join(top, "site"), filepath.Join(top, "state")
	os.MkdirAll(state, 0o700)
	for _, p := range []string{"index.html", "blog/a.html", "blog/b.html", "blog/c.html", "docs/d.html"} {
		mustWrite(t, filepath.Join(root, p), defaultMTime)
	}
	cfg := dryConfig(t, root, state)
	e, _ := newEngine(t, cfg)
	mustBuild(t, e)
	// docs/ changes, but blog/'s pages, most of the site, are shut out.
	mustWrite(t, filepath.Join(root, "docs/e.html"), defaultMTime)
	os.WriteFile(filepath.Join(root, "robots.txt"), []byte("User-agent: *\nDisallow: /blog/\n"), 0o644)
	before := snapshot(t, top)
	dry, _ := newEngine(t, cfg, WithDryRun())
	_, err := dry.Build(context.Background())
	var se *ShrinkError
	if !errors.As(err, &se) {
		t.Fatalf("err %v, want a ShrinkError", err)
	}
	if snapshot(t, top) != before {
		t.Error("the dry run changed the disk")
	}
	if p := dry.Plan(); p == nil || len(p.Files) != 0 || len(p.Groups) != 3 || p.PageStore != "" {
		t.Errorf("plan %+v, want the groups read and no file", p)
	}
	forced, _ := newEngine(t, cfg, WithDryRun(), WithForce())
	if _, err := forced.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := planned(forced.Plan(), Remove); !slices.Equal(got, []string{"blog/sitemap.txt", "blog/sitemap.xml"}) {
		t.Errorf("forced dry run removes %q", got)
	}
	if got := planned(forced.Plan(), Replace); !slices.Contains(got, "docs/sitemap.xml") {
		t.Errorf("forced dry run replaces %q, want docs/sitemap.xml among them", got)
	}
	if snapshot(t, top) != before {
		t.Error("the forced dry run changed the disk")
	}
}

// TestDryRunNoStateDir: a dry run does not create state_dir, nor a
// separate output tree's directories, and says whether it could.
func TestDryRunNoStateDir(t *testing.T) {
	top := t.TempDir()
	root, out, state := filepath.Join(top, "site"), filepath.Join(top, "out"), filepath.Join(top, "state", "sub")
	mustWrite(t, filepath.Join(root, "blog/a.html"), defaultMTime)
	os.MkdirAll(out, 0o755)
	cfg := dryConfig(t, root, state)
	cfg.OutputDir = out
	before := snapshot(t, top)
	dry, logs := newEngine(t, cfg, WithDryRun())
	rep, err := dry.Build(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if snapshot(t, top) != before {
		t.Error("the dry run changed the disk")
	}
	if logs.Len() != 0 {
		t.Errorf("warnings: %v", logs.All())
	}
	if got := relNames(out, rep.Written); !slices.Contains(got, "blog/sitemap.xml") {
		t.Errorf("would write %q", got)
	}
	if p := dry.Plan(); p.PageStore != "" {
		t.Errorf("page store %q planned in a state_dir a build does not create", p.PageStore)
	}
	e, _ := newEngine(t, cfg)
	real := mustBuild(t, e)
	if !slices.Equal(relNames(out, real.Written), relNames(out, rep.Written)) {
		t.Errorf("build wrote %q, dry run said %q", relNames(out, real.Written), relNames(out, rep.Written))
	}
}
