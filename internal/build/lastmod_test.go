package build

import (
	"context"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/pagestore"
)

// lastmods reads a sitemap with encoding/xml: loc -> lastmod as written.
func lastmods(t *testing.T, path string) map[string]string {
	t.Helper()
	var set struct {
		URLs []struct {
			Loc     string `xml:"loc"`
			LastMod string `xml:"lastmod"`
		} `xml:"url"`
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(b, &set); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := map[string]string{}
	for _, u := range set.URLs {
		out[u.Loc] = u.LastMod
	}
	return out
}

// cfgIndexName is the index's name in baseConfig.
const cfgIndexName = "sitemap_index.xml"

func w3c(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// rewrite writes a file's bytes again with a new mtime: in place, or
// through a temp file renamed over it (a new inode), as generators do.
func rewrite(t *testing.T, p string, mt time.Time, byRename bool) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	target := p
	if byRename {
		target = filepath.Join(filepath.Dir(p), ".tmp-"+filepath.Base(p))
	}
	writeFile(t, target, string(b), mt)
	if byRename {
		if err := os.Rename(target, p); err != nil {
			t.Fatal(err)
		}
	}
}

// TestContentLastMod builds as `sitemapd build` does, a new engine (a new
// process) each time: a page rewritten with the same bytes keeps its
// lastmod and writes nothing, whether its new mtime is later or earlier;
// one whose bytes change takes its new mtime. In mtime mode the same
// rewrite moves the lastmod.
func TestContentLastMod(t *testing.T) {
	root := site(t)
	t0 := defaultMTime
	pages := []string{"index.html", "docs/a.html", "docs/b.html", "docs/manual.pdf", "blog/x y.html"}
	for _, p := range pages {
		writeFile(t, filepath.Join(root, p), "<!doctype html><title>"+p+"</title>", t0)
	}
	state := t.TempDir()
	build := func(mode string) *Report {
		t.Helper()
		cfg := loadConfig(t, baseConfig, root, "state_dir: "+state+"\npages: {lastmod: "+mode+"}\n")
		e, logs := newEngine(t, cfg)
		rep := mustBuild(t, e)
		e.Close()
		if w := warnings(logs, root); w != "\n" {
			t.Errorf("warnings: %s", w)
		}
		return rep
	}
	build("content")

	t1 := t0.Add(24 * time.Hour)
	for i, p := range pages {
		rewrite(t, filepath.Join(root, p), t1, i%2 == 0)
	}
	if rep := build("content"); len(rep.Written) != 0 {
		t.Errorf("a redeploy of the same bytes wrote %v", rep.Written)
	}
	if lm := lastmods(t, filepath.Join(root, "docs/sitemap.xml")); lm["https://static.test/docs/a.html"] != w3c(t0) {
		t.Errorf("docs/a.html lastmod %q after a rewrite of the same bytes, want %s", lm["https://static.test/docs/a.html"], w3c(t0))
	}

	t2 := t1.Add(time.Hour)
	writeFile(t, filepath.Join(root, "docs/a.html"), "<!doctype html><title>new</title>", t2)
	rep := build("content")
	for _, p := range rep.Written {
		if !strings.HasSuffix(p, "/docs/sitemap.xml") && !strings.HasSuffix(p, "/"+cfgIndexName) {
			t.Errorf("an edit of docs/a.html wrote %s", p)
		}
	}
	if len(rep.Written) == 0 {
		t.Error("an edit of docs/a.html wrote nothing")
	}
	lm := lastmods(t, filepath.Join(root, "docs/sitemap.xml"))
	if lm["https://static.test/docs/a.html"] != w3c(t2) || lm["https://static.test/docs/b.html"] != w3c(t0) {
		t.Errorf("after an edit: %v", lm)
	}

	earlier := t0.Add(-time.Hour)
	rewrite(t, filepath.Join(root, "docs/b.html"), earlier, false)
	if rep := build("content"); len(rep.Written) != 0 {
		t.Errorf("same bytes with an older mtime wrote %v", rep.Written)
	}
	if lm := lastmods(t, filepath.Join(root, "docs/sitemap.xml")); lm["https://static.test/docs/b.html"] != w3c(t0) {
		t.Errorf("same bytes with an older mtime: lastmod %q, want %s", lm["https://static.test/docs/b.html"], w3c(t0))
	}

	rewrite(t, filepath.Join(root, "docs/b.html"), t2, true)
	build("mtime")
	if lm := lastmods(t, filepath.Join(root, "docs/sitemap.xml")); lm["https://static.test/docs/b.html"] != w3c(t2) {
		t.Errorf("mtime mode: lastmod %q, want the mtime %s", lm["https://static.test/docs/b.html"], w3c(t2))
	}
}

// TestNoOpBuildReadsNoBytes: a build opens no file whose stamp is
// unchanged (inotify's IN_OPEN says), and reads again one rewritten in
// place behind sitemapd's back with its size and mtime put back (ctime
// tells), or only touched.
func TestNoOpBuildReadsNoBytes(t *testing.T) {
	root := site(t)
	page, pdf := filepath.Join(root, "p.html"), filepath.Join(root, "f.pdf")
	writeFile(t, page, `<meta name=robots content="nofollow">`, defaultMTime)
	writeFile(t, pdf, "%PDF-1.4 one", defaultMTime)
	cfg := loadConfig(t, baseConfig, root, "")
	build := func() map[string]string {
		t.Helper()
		e, _ := newEngine(t, cfg)
		mustBuild(t, e)
		e.Close()
		return lastmods(t, filepath.Join(root, "sitemap.xml"))
	}
	build()
	opened := watchOpens(t, page, pdf)
	build()
	if got := opened.take(t); len(got) != 0 {
		t.Errorf("a no-op build opened %v", got)
	}
	writeFile(t, page, `<meta name=robots content="noindex,">`, defaultMTime) // the same length
	writeFile(t, pdf, "%PDF-1.4 two", defaultMTime)
	opened.take(t)
	lm := build()
	if _, ok := lm["https://static.test/p.html"]; ok {
		t.Error("a page rewritten in place with its old size and mtime was not read again")
	}
	if got := opened.take(t); len(got) != 2 {
		t.Errorf("files rewritten in place: %v opened, want both", got)
	}
	later := defaultMTime.Add(time.Minute)
	os.Chtimes(pdf, later, later)
	lm = build()
	if got := opened.take(t); !slices.Equal(got, []string{pdf}) {
		t.Errorf("after a touch of f.pdf: %v opened, want f.pdf alone", got)
	}
	if lm["https://static.test/f.pdf"] != w3c(defaultMTime) {
		t.Errorf("f.pdf: lastmod %q, want %s: its bytes are those it had", lm["https://static.test/f.pdf"], w3c(defaultMTime))
	}
}

// TestContentLastModFallback: without a state_dir to keep hashes in,
// lastmods are mtimes, with one warning saying why.
func TestContentLastModFallback(t *testing.T) {
	root := site(t, "a.html")
	blocker := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocker, nil, 0o600)
	for name, extra := range map[string]string{
		"a file in the way": "state_dir: " + filepath.Join(blocker, "state") + "\n",
		"none":              "state_dir: \"\"\n",
	} {
		t.Run(name, func(t *testing.T) {
			cfg := loadConfig(t, baseConfig, root, extra)
			e, logs := newEngine(t, cfg)
			mustBuild(t, e)
			if n := logs.FilterMessageSnippet("lastmod taken from mtimes").Len(); n != 1 || logs.Len() != 1 {
				t.Errorf("%d warnings of the fallback, want 1 and no other: %s", n, warnings(logs, root))
			}
			rewrite(t, filepath.Join(root, "a.html"), defaultMTime.Add(time.Hour), false)
			mustBuild(t, e)
			if lm := lastmods(t, filepath.Join(root, "sitemap.xml")); lm["https://static.test/a.html"] != w3c(defaultMTime.Add(time.Hour)) {
				t.Errorf("lastmod %v, want the mtime", lm)
			}
		})
	}
}

// TestPageStoreDamaged: a store whose header is damaged, or a directory
// where the store should be, is moved aside with a warning that says what
// is lost, and a new one is written; a store cut short at its end keeps
// what precedes the cut.
func TestPageStoreDamaged(t *testing.T) {
	root := site(t)
	writeFile(t, filepath.Join(root, "a.html"), "<title>a</title>", defaultMTime)
	state := t.TempDir()
	store := filepath.Join(state, pagestore.Name)
	cfg := loadConfig(t, baseConfig, root, "state_dir: "+state+"\n")
	build := func() string {
		t.Helper()
		e, logs := newEngine(t, cfg)
		mustBuild(t, e)
		e.Close()
		return warnings(logs, root)
	}
	build()
	good, _ := os.ReadFile(store)

	damaged := append([]byte{}, good...)
	damaged[3] ^= 1
	os.WriteFile(store, damaged, 0o600)
	if w := build(); !strings.Contains(w, "moved it aside") || !strings.Contains(w, "take their new mtime") {
		t.Errorf("damaged header: warnings %q", w)
	}
	if m, _ := filepath.Glob(store + ".corrupt-*"); len(m) != 1 {
		t.Errorf("moved aside: %v", m)
	}
	if b, _ := os.ReadFile(store); string(b) != string(good) {
		t.Error("no new store written in place of the damaged one")
	}

	os.Remove(store)
	os.Mkdir(store, 0o700)
	if w := build(); !strings.Contains(w, "moved it aside") {
		t.Errorf("a directory in the store's place: warnings %q", w)
	}
	if st, err := os.Stat(store); err != nil || !st.Mode().IsRegular() {
		t.Errorf("no store written after the directory was moved aside: %v", err)
	}

	// A rewrite of the same bytes is known as such after a torn append:
	// the whole store before the tear holds.
	b, _ := os.ReadFile(store)
	os.WriteFile(store, append(b, 0x20, 1, 2), 0o600) // a block cut short
	rewrite(t, filepath.Join(root, "a.html"), defaultMTime.Add(time.Hour), true)
	if w := build(); !strings.Contains(w, "cut short") {
		t.Errorf("torn store: warnings %q", w)
	}
	if lm := lastmods(t, filepath.Join(root, "sitemap.xml")); lm["https://static.test/a.html"] != w3c(defaultMTime) {
		t.Errorf("after a torn store: %v", lm)
	}
}

// TestHeadDates: a date the head states is the page's lastmod, whatever
// its mtime; one in the future shows no lastmod until it comes, with one
// warning for all such pages; pages.head_dates: false ignores them.
func TestHeadDates(t *testing.T) {
	root := site(t)
	next := time.Now().AddDate(1, 0, 0).UTC().Format(time.RFC3339)
	writeFile(t, filepath.Join(root, "hugo.html"), `<meta property="article:modified_time" content="2021-03-04T05:06:07+01:00">`, defaultMTime)
	writeFile(t, filepath.Join(root, "ld.html"), `<script type="application/ld+json">{"@type":"WebPage","dateModified":"2020-01-02"}</script>`, defaultMTime)
	for _, p := range []string{"f1.html", "f2.html"} {
		writeFile(t, filepath.Join(root, p), `<meta property="og:updated_time" content="`+next+`">`, defaultMTime)
	}
	for _, on := range []bool{true, false} {
		cfg := loadConfig(t, baseConfig, root, "pages: {head_dates: "+map[bool]string{true: "true", false: "false"}[on]+"}\n")
		e, logs := newEngine(t, cfg)
		mustBuild(t, e)
		lm := lastmods(t, filepath.Join(root, "sitemap.xml"))
		want := map[string]string{
			"https://static.test/hugo.html": "2021-03-04T04:06:07Z", "https://static.test/ld.html": "2020-01-02T00:00:00Z",
			"https://static.test/f1.html": "", "https://static.test/f2.html": "",
		}
		if !on {
			for loc := range want {
				want[loc] = w3c(defaultMTime)
			}
		}
		for loc, w := range want {
			if lm[loc] != w {
				t.Errorf("head_dates %v: %s lastmod %q, want %q", on, loc, lm[loc], w)
			}
		}
		if n := logs.FilterMessageSnippet("in the future").Len(); on && n != 1 {
			t.Errorf("%d warnings of future head dates, want 1", n)
		}
	}
}

// TestWrittenDuringWalk: a file whose mtime is past the walk's start but
// not past the clock when the walk meets it (a deploy landing during a
// build) gets its lastmod, with no warning; one still to come gets none,
// and one warning counts all such pages.
func TestWrittenDuringWalk(t *testing.T) {
	root := site(t)
	start := defaultMTime.Add(time.Hour)
	writeFile(t, filepath.Join(root, "during.html"), "<title>d</title>", start.Add(time.Second))
	for _, p := range []string{"f1.html", "f2.html", "f3.html"} {
		writeFile(t, filepath.Join(root, p), "<title>"+p+"</title>", start.Add(time.Hour))
	}
	calls := 0
	clock := func() time.Time { // the walk's start, then a minute later
		calls++
		if calls == 1 {
			return start
		}
		return start.Add(time.Minute)
	}
	cfg := loadConfig(t, baseConfig, root, "")
	e, logs := newEngine(t, cfg, withClock(clock))
	mustBuild(t, e)
	lm := lastmods(t, filepath.Join(root, "sitemap.xml"))
	if lm["https://static.test/during.html"] != w3c(start.Add(time.Second)) || lm["https://static.test/f1.html"] != "" {
		t.Errorf("lastmods %v", lm)
	}
	fut := logs.FilterMessageSnippet("in the future")
	if fut.Len() != 1 || fut.All()[0].ContextMap()["pages"] != int64(3) {
		t.Errorf("future warnings: %s", warnings(logs, root))
	}
	if due := e.Due(); !due.Equal(start.Add(time.Hour)) {
		t.Errorf("Due() = %v, want %v", due, start.Add(time.Hour))
	}
}

// TestUnreadableDirectoryKeepsItsState: a full build that cannot read one
// directory keeps what the page store knew of it, in a new process's build
// (the store) as in the daemon (memory): once readable again, its pages
// rewritten with the same bytes meanwhile keep their lastmod.
func TestUnreadableDirectoryKeepsItsState(t *testing.T) {
	for _, daemon := range []bool{false, true} {
		t.Run(map[bool]string{false: "build", true: "daemon"}[daemon], func(t *testing.T) {
			root := site(t)
			writeFile(t, filepath.Join(root, "docs/a.html"), "<title>a</title>", defaultMTime)
			writeFile(t, filepath.Join(root, "docs/deep/b.html"), "<title>b</title>", defaultMTime)
			cfg := loadConfig(t, baseConfig, root, "")
			var opts []Option
			if daemon {
				opts = append(opts, WithChanges())
			}
			e, _ := newEngine(t, cfg, opts...)
			mustBuild(t, e)
			if !daemon {
				e.Close()
			}

			later := defaultMTime.Add(time.Hour)
			rewrite(t, filepath.Join(root, "docs/deep/b.html"), later, true)
			deny := filepath.Join(root, "docs/deep")
			if !daemon {
				e, _ = newEngine(t, cfg)
			}
			e.opts.openDir = func(p string) (*os.File, error) {
				if p == deny {
					return nil, &os.PathError{Op: "open", Path: p, Err: os.ErrPermission}
				}
				return os.Open(p)
			}
			if _, err := e.Build(context.Background()); err == nil {
				t.Fatal("no error for the unreadable directory")
			}
			e.opts.openDir = os.Open
			if !daemon {
				e.Close()
				e, _ = newEngine(t, cfg)
			}
			mustBuild(t, e)
			if lm := lastmods(t, filepath.Join(root, "docs/sitemap.xml")); lm["https://static.test/docs/deep/b.html"] != w3c(defaultMTime) {
				t.Errorf("after the directory was unreadable for a build: %v", lm)
			}
		})
	}
}

// TestGroupWithSymlinksKeepsItsState: the daemon does not remember a group
// that follows symlinks (it is walked whole on each change), but it holds
// what it knows of its pages: one rewritten with the same bytes keeps its
// lastmod.
func TestGroupWithSymlinksKeepsItsState(t *testing.T) {
	root := site(t)
	writeFile(t, filepath.Join(root, "docs/a.html"), "<title>a</title>", defaultMTime)
	writeFile(t, filepath.Join(root, "common/s.html"), "<title>s</title>", defaultMTime)
	if err := os.Symlink("../common", filepath.Join(root, "docs/linked")); err != nil {
		t.Fatal(err)
	}
	cfg := loadConfig(t, baseConfig, root, "")
	e, _ := newEngine(t, cfg, WithChanges())
	mustBuild(t, e)
	rewrite(t, filepath.Join(root, "docs/a.html"), defaultMTime.Add(time.Hour), true)
	rep, err := e.Update(context.Background(), []string{"docs"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Written) != 0 || !rep.Changes.Empty() {
		t.Errorf("a rewrite of the same bytes in a group with symlinks wrote %v, changed %+v", rep.Written, rep.Changes)
	}
	if lm := lastmods(t, filepath.Join(root, "docs/sitemap.xml")); lm["https://static.test/docs/a.html"] != w3c(defaultMTime) || len(lm) != 2 {
		t.Errorf("lastmods %v", lm)
	}
}

// TestPageStoreCompacts: the daemon's appends grow the page store until it
// is written whole again from itself, which loses nothing: a new process
// then knows a page rewritten with the same bytes as such. (Each change
// rewrites a third of the directory's pages: a few pages changed are
// appended as such, storebase.go, and take long to grow it.)
func TestPageStoreCompacts(t *testing.T) {
	root := site(t)
	for i := range 6000 {
		mustWrite(t, filepath.Join(root, "big", fmt.Sprintf("page-with-a-longish-name-%05d.html", i)), defaultMTime)
	}
	state := t.TempDir()
	cfg := loadConfig(t, baseConfig, root, "state_dir: "+state+"\n")
	e, _ := newEngine(t, cfg, WithChanges())
	mustBuild(t, e)
	store := filepath.Join(state, pagestore.Name)
	base, _ := os.Stat(store)
	compacted := false
	for i := range 12 {
		for j := range 2000 {
			mustWrite(t, filepath.Join(root, "big", fmt.Sprintf("page-with-a-longish-name-%05d.html", (i*2000+j)%6000)), defaultMTime.Add(time.Duration(i+1)*time.Hour))
		}
		if _, err := e.Update(context.Background(), []string{"big"}, nil); err != nil {
			t.Fatal(err)
		}
		if st, _ := os.Stat(store); st.Size() < base.Size()+int64(i)*base.Size()/2 {
			compacted = true
		}
	}
	if !compacted {
		t.Fatal("the page store was never written whole again")
	}
	e.Close()
	rewrite(t, filepath.Join(root, "big", "page-with-a-longish-name-00003.html"), defaultMTime.Add(99*time.Hour), true)
	fresh, _ := newEngine(t, cfg)
	if rep := mustBuild(t, fresh); len(rep.Written) != 0 {
		t.Errorf("after compaction, a rewrite of the same bytes wrote %v", rep.Written)
	}
}
