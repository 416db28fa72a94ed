package daemon

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/xsdtest"
)

// TestNewsArticleLeavesOnTime: in the running daemon, on the real clock,
// the fixtures (news articles published 1 h, 47 h 59 m 30 s and
// 49 h ago): the news sitemap lists two; then, with no file touched, the
// boundary article leaves when it turns 48 h, by the daemon's timer (a
// publish of trigger "pages due", not before that time), some 30 s later.
// The exact arithmetic, on a fake clock, is internal/build's
// TestNewsWindow; this is the timer, for real.
func TestNewsArticleLeavesOnTime(t *testing.T) {
	if testing.Short() {
		t.Skip("waits 30 s for an article to turn 48 h old")
	}
	h := start(t, "news: {publication: {name: The Daily Test, language: en}}\n")
	t0 := time.Now().Truncate(time.Second)
	article := func(rel, title string, published time.Time) {
		t.Helper()
		page := `<!doctype html><html><head><title>` + title + `</title><meta property="og:type" content="article">` +
			`<meta property="article:published_time" content="` + published.UTC().Format(time.RFC3339) + `"></head><body><p>` + title + "</p></body></html>"
		tmp := filepath.Join(h.root, ".tmp")
		if err := os.WriteFile(tmp, []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Dir(h.path(rel)), 0o755)
		if err := os.Rename(tmp, h.path(rel)); err != nil {
			t.Fatal(err)
		}
	}
	article("news/fresh.html", "Fresh", t0.Add(-time.Hour))
	article("news/boundary.html", "Boundary", t0.Add(-(47*time.Hour + 59*time.Minute + 30*time.Second)))
	article("news/stale.html", "Stale", t0.Add(-49*time.Hour))
	h.sync()
	boundary := t0.Add(30 * time.Second)
	newsPath := h.path("sitemap-news.xml")
	listed := func() string {
		b, _ := os.ReadFile(newsPath)
		var locs []string
		for _, s := range []string{"fresh", "boundary", "stale"} {
			if strings.Contains(string(b), "/news/"+s+".html</loc>") {
				locs = append(locs, s)
			}
		}
		return strings.Join(locs, " ")
	}
	if got := listed(); got != "fresh boundary" {
		t.Fatalf("at start the news sitemap lists %q, want \"fresh boundary\"", got)
	}
	if time.Now().After(boundary) {
		t.Fatal("the daemon took 30 s to publish: the boundary is past before it could be seen")
	}
	xsdtest.Validate(t, newsPath)

	// The file lands before its publish is logged: both are waited for.
	var dueAt time.Time
	h.waitFor("the boundary article to leave, by a publish logged", func() bool {
		for _, e := range h.logs.FilterMessage("published").All() {
			if trig, _ := e.ContextMap()["trigger"].(string); trig == Due.String() && dueAt.IsZero() {
				dueAt = e.Time
			}
		}
		return listed() == "fresh" && !dueAt.IsZero()
	})
	switch {
	case dueAt.IsZero():
		t.Error("no publish of trigger \"pages due\": the article left by some other publish")
	case dueAt.Before(boundary):
		t.Errorf("published at %v, before the boundary article turned 48 h (%v)", dueAt, boundary)
	}
	xsdtest.Validate(t, newsPath)
	if b, _ := os.ReadFile(h.path("sitemap_index.xml")); !strings.Contains(string(b), "<loc>https://static.test/sitemap-news.xml</loc>") {
		t.Error("the index does not list the news sitemap")
	}
	h.checkOracle()
}
