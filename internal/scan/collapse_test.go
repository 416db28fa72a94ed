package scan

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/siteurl"
)

// walkTree loads the configuration yaml (as the file path) and walks its
// tree (Tree, not yet Summary), what is logged at level and above in logs.
func walkTree(t *testing.T, yaml, path string, level zapcore.Level) (w *Walk, logs *observer.ObservedLogs) {
	t.Helper()
	cfg, err := config.Load([]byte(yaml), path)
	if err != nil {
		t.Fatal(err)
	}
	core, logs := observer.New(level)
	s := New(cfg, zap.New(core), siteurl.New(cfg), Options{MTimeOnly: true})
	if w, err = s.NewWalk(context.Background(), WalkOptions{}); err != nil {
		t.Fatal(err)
	}
	w.Tree(func(*Group) {})
	return w, logs
}

// TestWarningsCollapse: a walk over pages that share problems logs each
// kind once, with how many pages it concerned and the first page by path,
// whatever the values the messages quote; debug lines pass one a page.
func TestWarningsCollapse(t *testing.T) {
	root := t.TempDir()
	for i := range 40 {
		head := fmt.Sprintf(`<link rel="alternate" hreflang="bad%d lang" href="/x%d">`, i, i)
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("p%02d.html", i)), []byte("<head>"+head+"</head>"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w, logs := walkTree(t, "root: "+root+"\nbase_url: https://docs.sitemapd.test/\nstate_dir: \"\"\n", filepath.Join(root, "sitemapd.yaml"), zap.DebugLevel)
	if n := logs.FilterLevelExact(zap.WarnLevel).Len(); n != 0 {
		t.Errorf("%d warnings logged during the walk, want none until its end", n)
	}
	w.Summary()
	warns := logs.FilterLevelExact(zap.WarnLevel).All()
	if len(warns) != 1 {
		t.Fatalf("%d warnings, want 1: %v", len(warns), warns)
	}
	ctx := warns[0].ContextMap()
	if ctx["pages"] != int64(40) || ctx["path"] != filepath.Join(root, "p00.html") {
		t.Errorf("warning %q %v, want pages=40 and the first page's path", warns[0].Message, ctx)
	}
}
