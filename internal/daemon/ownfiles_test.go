package daemon

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// sitemapd's own files under a deploy that mirrors a tree without them
// (rm, rsync -a --delete, and the rsync recipe of docs/operations.md):
// restored as they were, or never deleted.

// ownFiles reads sitemapd's files under root (sitemaps and the index):
// their bytes by path relative to root.
func ownFiles(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), "sitemap") {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(root, p)
			out[rel] = string(b)
		}
		return nil
	})
	return out
}

// TestRemovedOwnFilesAreRestored removes a group's sitemap and the root
// index as a deploy that mirrors a tree lacking them does (rm; and a real
// rsync -a --delete of a copy of the site without them): the daemon writes
// them again at once, with the bytes they had, and the index lists the
// sitemaps with the lastmods they had.
func TestRemovedOwnFilesAreRestored(t *testing.T) {
	for _, how := range []string{"rm", "rsync"} {
		t.Run(how, func(t *testing.T) {
			if how == "rsync" {
				if _, err := exec.LookPath("rsync"); err != nil {
					t.Skip("rsync is not installed")
				}
			}
			h := start(t, "")
			release(t, h.root, releasePages())
			h.sync()
			want := ownFiles(t, h.root)
			if want["a/sitemap.xml"] == "" || want["sitemap_index.xml"] == "" {
				t.Fatalf("sitemaps before: %v", want)
			}
			time.Sleep(1100 * time.Millisecond) // a lastmod moved would show
			switch how {
			case "rm":
				os.Remove(h.path("a/sitemap.xml"))
				os.Remove(h.path("sitemap_index.xml"))
			case "rsync":
				src := filepath.Join(h.dir, "new")
				if out, err := exec.Command("cp", "-a", h.root+"/.", src).CombinedOutput(); err != nil {
					t.Fatalf("cp: %v: %s", err, out)
				}
				for rel := range want {
					os.Remove(filepath.Join(src, rel))
				}
				if out, err := exec.Command("rsync", "-a", "--delete", src+"/", h.root+"/").CombinedOutput(); err != nil {
					t.Fatalf("rsync: %v: %s", err, out)
				}
			}
			// The bound only stops a broken test: the restore is a publish
			// of its own, which a busy machine may delay.
			deadline := time.Now().Add(60 * time.Second)
			for {
				got := ownFiles(t, h.root)
				if fmt.Sprint(got) == fmt.Sprint(want) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("sitemapd's files not restored as they were: have %d of %d, the same bytes: %v\nindex now: %s\nindex before: %s",
						len(got), len(want), sameKeys(got, want), got["sitemap_index.xml"], want["sitemap_index.xml"])
				}
				time.Sleep(20 * time.Millisecond)
			}
			h.checkOracle()
		})
	}
}

// sameKeys lists the keys of want whose values got has.
func sameKeys(got, want map[string]string) []string {
	var same []string
	for k, v := range want {
		if got[k] == v {
			same = append(same, k)
		}
	}
	slices.Sort(same)
	return same
}

// docsRsyncFilters returns the --filter arguments of the rsync recipe in
// docs/operations.md, the key file's name put for KEY: the test runs the
// recipe the documentation gives.
func docsRsyncFilters(t *testing.T, key string) []string {
	t.Helper()
	b, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i := strings.Index(doc, "rsync -a --delete \\")
	if i < 0 {
		t.Fatal("no rsync recipe in docs/operations.md")
	}
	block := doc[i:]
	block = block[:strings.Index(block, "```")]
	var filters []string
	for _, m := range regexp.MustCompile(`--filter='([^']+)'`).FindAllStringSubmatch(block, -1) {
		filters = append(filters, "--filter="+strings.ReplaceAll(m[1], "KEY", key))
	}
	if len(filters) == 0 {
		t.Fatalf("no filters in the recipe:\n%s", block)
	}
	return filters
}

// isOwn reports whether a base name is one of the files sitemapd writes
// in the configuration of TestRsyncRecipeKeepsOwnFiles.
func isOwn(name string) bool {
	return strings.HasPrefix(name, "sitemap") || strings.HasPrefix(name, ".sitemapd") || name == "changes.atom" || name == "0123456789abcdef.txt"
}

// TestRsyncRecipeKeepsOwnFiles runs the rsync recipe of docs/operations.md
// (rsync -a --delete with protect filters) from a build of the site that
// has none of sitemapd's files and lacks a directory: rsync deletes
// pages, and nothing of sitemapd's (every kind of file it writes is
// there: parts, index, text sitemaps, the feed, the stylesheet, the key
// file, the lock, the record). The dropped directory's sitemap, which
// rsync may not delete, sitemapd removes once its pages are gone, and the
// next rsync removes the directory.
func TestRsyncRecipeKeepsOwnFiles(t *testing.T) {
	if _, err := exec.LookPath("rsync"); err != nil {
		t.Skip("rsync is not installed")
	}
	rc := newReceiver(t)
	h := start(t, "part_size: 3\nformats: [xml, txt]\nstylesheet: builtin\nfeed: {name: changes.atom, entries: 10}\n"+rc.notify())
	pages := releasePages()
	pages["old/gone.html"] = "A page of a section the new build drops."
	release(t, h.root, pages)
	h.sync()
	own := map[string]bool{}
	filepath.WalkDir(h.root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && isOwn(d.Name()) {
			rel, _ := filepath.Rel(h.root, p)
			own[rel] = true
		}
		return nil
	})
	for _, f := range []string{"sitemap_index.xml", "a/sitemap.xml", "a/sitemap.txt", "changes.atom", "sitemap.xsl", "0123456789abcdef.txt", ".sitemapd.lock", "old/sitemap.xml"} {
		if !own[f] {
			t.Fatalf("%s not written: %v", f, own)
		}
	}
	keyed := regexp.MustCompile(`^sitemap-[0-9a-f]{12}\.xml$`)
	if !slices.ContainsFunc(slices.Collect(maps.Keys(own)), func(rel string) bool { return keyed.MatchString(filepath.Base(rel)) }) {
		t.Fatalf("no part sitemap-<hash>.xml written: %v", own)
	}
	src := filepath.Join(h.dir, "build")
	if out, err := exec.Command("cp", "-a", h.root+"/.", src).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v: %s", err, out)
	}
	for rel := range own {
		os.Remove(filepath.Join(src, rel))
	}
	os.RemoveAll(filepath.Join(src, "old"))
	rsync := func() string {
		t.Helper()
		args := append([]string{"-a", "--delete", "-i"}, docsRsyncFilters(t, "0123456789abcdef")...)
		out, err := exec.Command("rsync", append(args, src+"/", h.root+"/")...).CombinedOutput()
		if err != nil && !strings.Contains(string(out), "cannot delete non-empty directory") {
			t.Fatalf("rsync: %v: %s", err, out)
		}
		return string(out)
	}
	out := rsync()
	if !strings.Contains(out, "*deleting   old/gone.html") {
		t.Errorf("rsync did not delete old/gone.html:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if rel, ok := strings.CutPrefix(line, "*deleting   "); ok && own[rel] {
			t.Errorf("rsync deleted sitemapd's %s", rel)
		}
	}
	h.waitFor("old/'s sitemaps removed", func() bool {
		return !fileExists(h.path("old/sitemap.xml")) && !fileExists(h.path("old/sitemap.txt"))
	})
	h.sync()
	rsync()
	if fileExists(h.path("old")) {
		t.Errorf("old/ left by the second rsync")
	}
	h.checkOracle()
}
