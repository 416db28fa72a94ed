package build

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/sitemapd/sitemapd/internal/pagestore"
)

// TestPageStoreHeads checks that a build reads again only the heads of
// files changed since the last full build, across processes, and that a
// store it cannot trust (other head rules, a corrupt file) is not trusted.
func TestPageStoreHeads(t *testing.T) {
	dir := t.TempDir()
	root, state := filepath.Join(dir, "root"), filepath.Join(dir, "state")
	os.MkdirAll(state, 0o755)
	page := filepath.Join(root, "d", "p.html")
	listed := `<meta name=robots content="nofollow">`
	hidden := `<meta name=robots content="noindex,">` // the same length
	writeFile(t, page, listed, defaultMTime)
	// A pair of language versions that name each other, as an entry's
	// alternates must (package hreflang).
	pair := `<link rel=alternate hreflang=en href=/d/alt.html><link rel=alternate hreflang=de href=/de/alt.html>`
	writeFile(t, filepath.Join(root, "d", "alt.html"), pair, defaultMTime)
	writeFile(t, filepath.Join(root, "de", "alt.html"), pair, defaultMTime)
	writeFile(t, filepath.Join(root, "gone.html"), `<meta name=robots content=noindex>`, defaultMTime)
	build := func(pages string) (bool, *observer.ObservedLogs) {
		t.Helper()
		cfg := loadConfig(t, baseConfig, root, "state_dir: "+state+"\npages: "+pages+"\n")
		core, logs := observer.New(zap.InfoLevel)
		e, err := New(cfg, zap.New(core), WithProgress(0))
		if err != nil {
			t.Fatal(err)
		}
		mustBuild(t, e)
		e.Close()
		locs, alts := listedLocs(t, filepath.Join(root, "d", "sitemap.xml"))
		if !alts {
			t.Error("alternates lost")
		}
		return slices.Contains(locs, "d/p.html"), logs
	}
	if ok, _ := build("{}"); !ok {
		t.Fatal("page not listed at first")
	}
	store := filepath.Join(state, pagestore.Name)
	if _, err := os.Stat(store); err != nil {
		t.Fatalf("no page store: %v", err)
	}

	opened := watchOpens(t, page)
	if ok, _ := build("{}"); !ok || len(opened.take(t)) != 0 {
		t.Error("head read again though the page is unchanged since the last build")
	}
	if ok, logs := build("{canonical: false}"); !ok || len(opened.take(t)) != 1 {
		t.Error("a store of another configuration was used")
	} else if n := logs.FilterMessageSnippet("kept under other head rules").Len(); n != 1 {
		t.Errorf("%d notes of the store's heads not used, want 1", n)
	}
	// That build wrote a store for its own configuration; the next one,
	// of the first configuration, finds it not its own and reads again.
	if ok, _ := build("{}"); !ok || len(opened.take(t)) != 1 {
		t.Error("a store of other head rules was trusted for heads")
	}
	// Rewritten in place, its old mtime put back: read again all the same.
	writeFile(t, page, hidden, defaultMTime)
	if ok, _ := build("{}"); ok {
		t.Error("page listed after a rewrite in place that kept its size and mtime")
	}

	writeFile(t, page, listed, defaultMTime)
	b, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x40
	os.WriteFile(store, b, 0o644)
	if ok, logs := build("{}"); !ok {
		t.Error("a corrupt store was trusted")
	} else if logs.FilterMessageSnippet("page store").Len() != 1 {
		t.Error("a corrupt store went unremarked")
	}
}
