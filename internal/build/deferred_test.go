package build

import (
	"context"
	"maps"
	"path/filepath"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/pagestore"
)

// storedModel reports whether the page store in cfg's state_dir keeps a
// template model, and how many of its pages have a print.
func storedModel(t *testing.T, cfg *config.Config) (model bool, printed int) {
	t.Helper()
	s, err := pagestore.Open(filepath.Join(cfg.StateDir, pagestore.Name), pagestore.KeysFor(cfg))
	if err != nil || s == nil {
		t.Fatalf("page store: %v", err)
	}
	for _, dir := range []string{"", "docs", "blog"} {
		l := s.Listing(dir)
		if l == nil {
			continue
		}
		l.All(func(i int, name string) {
			if l.Page(i, name).Print != 0 {
				printed++
			}
		})
	}
	return s.Model() != nil, printed
}

// TestDeferredPrints: the daemon's engine (WithDeferredPrints) publishes a
// site it has no template model for without learning one or printing a
// page, and says prints are owed; a change meanwhile moves its page by its
// bytes (nothing to compare with yet); the next full build learns the
// model and prints every page, keeping every lastmod; from then on a
// template deploy moves nothing, in this engine and in the next process,
// which has the model from the store and owes nothing. `sitemapd build`'s
// engine (no option) prints at once.
func TestDeferredPrints(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	th := theme{year: "2026", css: "a1", built: "1"}
	writeThemed(t, root, th, nil, defaultMTime)
	cfg := loadConfig(t, baseConfig, root, "state_dir: "+t.TempDir()+"\n")
	e, _ := newEngine(t, cfg, WithChanges(), WithDeferredPrints())
	rep := mustBuild(t, e)
	if rep.Lastmods.Kept+rep.Lastmods.Moved+rep.Lastmods.MovedBytes != 0 {
		t.Errorf("a first build judged lastmods: %+v", rep.Lastmods)
	}
	if !rep.PrintsOwed {
		t.Fatal("a first build without a model does not owe prints")
	}
	if model, printed := storedModel(t, cfg); model || printed != 0 {
		t.Errorf("after the first build the store has a model: %v, %d pages printed; want none", model, printed)
	}

	// A footer change of one page before the prints: nothing to compare
	// it with, so its bytes decide; it stays owed.
	th.year = "2027"
	writeFile(t, filepath.Join(root, sitePages[2]), th.page(2, pageBody(2, "")), defaultMTime.Add(time.Hour))
	rep, err := e.Update(context.Background(), []string{"docs"}, map[string][]string{"docs": {"intro.html"}})
	if err != nil {
		t.Fatal(err)
	}
	if l := rep.Lastmods; l.MovedBytes != 1 || l.Kept+l.Moved != 0 {
		t.Errorf("a change before the prints: %+v; want it moved by its bytes", l)
	}
	if _, printed := storedModel(t, cfg); printed != 0 {
		t.Errorf("an Update printed %d pages while prints are deferred", printed)
	}

	before := lastmods(t, filepath.Join(root, "docs", "sitemap.xml"))
	rep = mustBuild(t, e) // the daemon's PagePrints
	if rep.PrintsOwed {
		t.Error("prints still owed after a second full build")
	}
	if l := rep.Lastmods; l.Kept+l.Moved+l.MovedBytes != 0 {
		t.Errorf("the build that prints judged lastmods: %+v; the bytes did not change", l)
	}
	if model, printed := storedModel(t, cfg); !model || printed != len(sitePages) {
		t.Errorf("after the build that prints: model %v, %d pages printed; want a model and %d", model, printed, len(sitePages))
	}
	th.css = "b2"
	writeThemed(t, root, th, nil, defaultMTime.Add(2*time.Hour))
	if rep := mustBuild(t, e); rep.Lastmods.Kept != len(sitePages) {
		t.Errorf("a template deploy after the prints: %+v; want every page kept", rep.Lastmods)
	}
	if got := lastmods(t, filepath.Join(root, "docs", "sitemap.xml")); !maps.Equal(got, before) {
		t.Errorf("a template deploy moved lastmods:\n%v\nwere\n%v", got, before)
	}

	// The next process reads the model from the store: nothing is owed.
	e.Close()
	e, _ = newEngine(t, cfg, WithChanges(), WithDeferredPrints())
	th.year = "2028"
	writeThemed(t, root, th, nil, defaultMTime.Add(3*time.Hour))
	if rep := mustBuild(t, e); rep.Lastmods.Kept != len(sitePages) || rep.PrintsOwed {
		t.Errorf("after a restart: %+v, owed %v; want every page kept, nothing owed", rep.Lastmods, rep.PrintsOwed)
	}

	// `sitemapd build` prints at once.
	one := loadConfig(t, baseConfig, root, "state_dir: "+t.TempDir()+"\n")
	e, _ = newEngine(t, one)
	rep = mustBuild(t, e)
	if model, printed := storedModel(t, one); rep.PrintsOwed || !model || printed != len(sitePages) {
		t.Errorf("without deferral: owed %v, model %v, %d printed; want a model and %d", rep.PrintsOwed, model, printed, len(sitePages))
	}
}
