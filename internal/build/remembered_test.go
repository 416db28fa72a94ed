package build

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDaemonKeepsRemembered: a daemon's full build that finds a group's
// pages as its memory has them (the page prints build after a first
// publish) keeps its files as they are, and remembers the listings read
// (their prints: TestDeferredPrints's template deploy after it moves
// nothing); a part someone edited or removed is written again as it was,
// and a group with a page whose time moved is published anew.
func TestDaemonKeepsRemembered(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	th := theme{year: "2026", css: "a1", built: "1"}
	writeThemed(t, root, th, nil, defaultMTime)
	cfg := loadConfig(t, baseConfig, root, "state_dir: "+t.TempDir()+"\n")
	e, _ := newEngine(t, cfg, WithChanges(), WithDeferredPrints())
	mustBuild(t, e)
	docs, blog := filepath.Join(root, "docs", "sitemap.xml"), filepath.Join(root, "blog", "sitemap.xml")
	want := map[string][]byte{docs: readBytes(t, docs), blog: readBytes(t, blog)}
	before, blogBefore := lastmods(t, docs), lastmods(t, blog)

	rep := mustBuild(t, e) // the daemon's page prints build
	if len(rep.Written) != 0 {
		t.Errorf("the page prints build wrote %v; nothing changed", rep.Written)
	}
	if l := e.model.mem.Dir("docs"); l == nil || l.Len() == 0 {
		t.Fatal("docs not remembered")
	} else if pr, _ := l.Print(0); pr == 0 {
		t.Error("memory kept the listing of before the prints: docs' first page has no print")
	}

	// Someone edits one part and removes the other: both come back.
	if err := os.WriteFile(docs, []byte(strings.Replace(string(want[docs]), "<loc>", "<loc>x", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(blog); err != nil {
		t.Fatal(err)
	}
	mustBuild(t, e)
	for p, b := range want {
		if got, err := os.ReadFile(p); err != nil || string(got) != string(b) {
			t.Errorf("%s after a full build: %q (%v), want it as it was", p, got, err)
		}
	}

	// A page of docs written anew (its time moves) is listed anew.
	page := filepath.Join(root, sitePages[3])
	writeFile(t, page, th.page(3, pageBody(3, "<p>A new paragraph.</p>")), defaultMTime.Add(24*time.Hour))
	mustBuild(t, e)
	after := lastmods(t, docs)
	moved := 0
	for u, lm := range after {
		if before[u] != lm {
			moved++
			if !strings.HasSuffix(u, "/"+sitePages[3]) || !strings.HasPrefix(lm, "2024-05-07") {
				t.Errorf("%s moved to %s; only %s should, to 2024-05-07", u, lm, sitePages[3])
			}
		}
	}
	if moved != 1 {
		t.Errorf("%d lastmods moved in docs, want 1", moved)
	}
	if got := lastmods(t, blog); !maps.Equal(got, blogBefore) {
		t.Errorf("blog's lastmods moved: %v, were %v", got, blogBefore)
	}
}

func readBytes(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
