package build

import (
	"context"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/xsdtest"
)

const newsExtra = "news:\n  publication: {name: The Daily Test, language: en}\n" +
	"  publications: [{match: \"/de/**\", name: Der Test, language: de}]\n"

// ldArticle is a page whose JSON-LD says it is a NewsArticle.
func ldArticle(title string, published time.Time) string {
	return `<!doctype html><html><head><title>site title</title><script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle",` +
		`"headline":` + fmt.Sprintf("%q", title) + `,"datePublished":"` + published.Format(time.RFC3339) + `"}</script></head><body><p>` + title + "</p></body></html>\n"
}

// ogArticle is a page whose Open Graph metas say it is an article.
func ogArticle(title string, published time.Time) string {
	return `<!doctype html><html><head><title>` + title + ` | site</title><meta property="og:type" content="article">` +
		`<meta property="og:title" content="` + title + `"><meta property="article:published_time" content="` + published.Format(time.RFC3339) +
		`"></head><body><p>` + title + "</p></body></html>\n"
}

// newsEntry is what a reader of a news sitemap finds of one URL.
type newsEntry struct {
	Loc  string `xml:"loc"`
	News struct {
		Name     string `xml:"publication>name"`
		Language string `xml:"publication>language"`
		Date     string `xml:"publication_date"`
		Title    string `xml:"title"`
	} `xml:"http://www.google.com/schemas/sitemap-news/0.9 news"`
}

// readNews reads a news sitemap with encoding/xml and says each entry in
// a line: URL path, publication, language, date, title.
func readNews(t *testing.T, path string) []string {
	t.Helper()
	var doc struct {
		URLs []newsEntry `xml:"url"`
	}
	if err := xml.Unmarshal([]byte(read(t, path)), &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []string
	for _, u := range doc.URLs {
		out = append(out, strings.Join([]string{strings.TrimPrefix(u.Loc, "https://static.test"), u.News.Name, u.News.Language, u.News.Date, u.News.Title}, " | "))
	}
	return out
}

// clock is a fake clock the tests move.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

// TestNewsWindow: the fixtures, published 1 h, 47 h 59 m 30 s and
// 49 h ago: two listed at the start, with their publications, dates and
// titles as encoding/xml reads them, valid by Google's schema (xmllint),
// listed in the index; Due is when the boundary article turns 48 h; 40 s
// later, with no file changed, a rebuild of what is due drops it, as a
// fresh full build at that time does; once none is left, the news sitemap
// goes, and the index no longer lists it.
func TestNewsWindow(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	clk := &clock{now: t0}
	root := filepath.Join(t.TempDir(), "root")
	old := t0.Add(-50 * time.Hour) // the files' mtimes: the past
	writeFile(t, filepath.Join(root, "news/fresh.html"), ldArticle("Fresh & new", t0.Add(-time.Hour)), old)
	writeFile(t, filepath.Join(root, "news/boundary.html"), ogArticle("On the edge", t0.Add(-(47*time.Hour+59*time.Minute+30*time.Second))), old)
	writeFile(t, filepath.Join(root, "news/stale.html"), ldArticle("Old news", t0.Add(-49*time.Hour)), old)
	writeFile(t, filepath.Join(root, "de/nachricht.html"), ldArticle("Neues", t0.Add(-2*time.Hour)), old)
	writeFile(t, filepath.Join(root, "news/later.html"), ldArticle("Embargoed", t0.Add(time.Hour)), old)
	mustWrite(t, filepath.Join(root, "about.html"), old)
	// Not listed: a page the sitemaps leave out, and one whose date is
	// not one; the second, and the embargoed one, are logged once.
	writeFile(t, filepath.Join(root, "news/hidden.html"), strings.Replace(ldArticle("Hidden", t0.Add(-time.Hour)), "<title>", `<meta name="robots" content="noindex"><title>`, 1), old)
	writeFile(t, filepath.Join(root, "news/undated.html"), strings.Replace(ogArticle("Undated", t0), t0.Format(time.RFC3339), "yesterday", 1), old)
	cfg := loadConfig(t, baseConfig, root, newsExtra)
	e, logs := newEngine(t, cfg, WithChanges(), withClock(clk.Now))
	rep := mustBuild(t, e)
	newsPath := filepath.Join(root, "sitemap-news.xml")
	if !slices.Contains(rep.Written, newsPath) {
		t.Errorf("the news sitemap was not written: %v", rep.Written)
	}
	want := []string{
		"/news/fresh.html | The Daily Test | en | 2026-11-25T11:00:00Z | Fresh & new",
		"/de/nachricht.html | Der Test | de | 2026-11-25T10:00:00Z | Neues",
		"/news/boundary.html | The Daily Test | en | 2026-11-23T12:00:30Z | On the edge",
	}
	if got := readNews(t, newsPath); !slices.Equal(got, want) {
		t.Errorf("news sitemap:\n got %q\nwant %q", got, want)
	}
	xsdtest.Validate(t, newsPath)
	if !strings.Contains(read(t, filepath.Join(root, "sitemap_index.xml")), "<loc>https://static.test/sitemap-news.xml</loc>") {
		t.Error("the index does not list the news sitemap")
	}
	boundary := t0.Add(30 * time.Second)
	if !e.Due().Equal(boundary) {
		t.Errorf("due %v, want %v (the boundary article at 48 h)", e.Due(), boundary)
	}

	// 40 s later: what the daemon's timer does, with no file event.
	clk.set(t0.Add(40 * time.Second))
	rep, err := e.Rebuild(context.Background(), e.DueGroups(clk.Now()))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(rep.Written, newsPath) {
		t.Errorf("the rebuild did not write the news sitemap: %v", rep.Written)
	}
	if got := readNews(t, newsPath); !slices.Equal(got, want[:2]) {
		t.Errorf("40 s later:\n got %q\nwant %q", got, want[:2])
	}
	if !e.Due().Equal(t0.Add(time.Hour)) {
		t.Errorf("due %v, want %v (the embargoed article's time)", e.Due(), t0.Add(time.Hour))
	}
	// Incremental = full: a fresh engine at this time writes nothing.
	fresh, _ := newEngine(t, cfg, withClock(clk.Now))
	if rep := mustBuild(t, fresh); len(rep.Written) != 0 {
		t.Errorf("a fresh full build wrote %v", rep.Written)
	}

	// The embargoed article enters at its time.
	clk.set(t0.Add(time.Hour))
	if _, err := e.Rebuild(context.Background(), e.DueGroups(clk.Now())); err != nil {
		t.Fatal(err)
	}
	if got := readNews(t, newsPath); len(got) != 3 || !strings.HasPrefix(got[0], "/news/later.html") {
		t.Errorf("at its time, the embargoed article is not first: %q", got)
	}
	// Past all of them: no news sitemap, and the index lists none.
	for due := e.Due(); !due.IsZero(); due = e.Due() {
		clk.set(due)
		if _, err := e.Rebuild(context.Background(), e.DueGroups(clk.Now())); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(newsPath); !os.IsNotExist(err) {
		t.Errorf("the news sitemap is still there once every article left: %v", err)
	}
	for msg, path := range map[string]string{
		`not in the news sitemap: news article: article:published_time "yesterday" is not a W3C date`: "news/undated.html",
		"news article published in the future: not in the news sitemap until then":                    "news/later.html",
	} {
		if got := logs.FilterMessage(msg).All(); len(got) != 1 || got[0].ContextMap()["path"] != filepath.Join(root, path) {
			t.Errorf("%q logged %d times (%v), want once for %s", msg, len(got), got, path)
		}
	}
	if strings.Contains(read(t, filepath.Join(root, "sitemap_index.xml")), "sitemap-news") {
		t.Error("the index lists a news sitemap that is gone")
	}
}

// TestNewsParts: 1,001 fresh articles give two news sitemaps of 1,000 and
// 1, both in the index and valid (xmllint); one article fewer, by a change
// of its directory, and the second file goes. Paths limit what is listed.
func TestNewsParts(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	clk := &clock{now: t0}
	root := filepath.Join(t.TempDir(), "root")
	for i := range 1001 {
		writeFile(t, filepath.Join(root, fmt.Sprintf("news/%04d.html", i)), ldArticle(fmt.Sprintf("Article %d", i), t0.Add(-time.Duration(i)*time.Second)), t0)
	}
	writeFile(t, filepath.Join(root, "elsewhere/a.html"), ldArticle("Not news", t0), t0)
	cfg := loadConfig(t, baseConfig, root, newsExtra+"  paths: [\"/news/**\"]\n")
	e, _ := newEngine(t, cfg, WithChanges(), withClock(clk.Now))
	mustBuild(t, e)
	one, two := filepath.Join(root, "sitemap-news.xml"), filepath.Join(root, "sitemap-news-2.xml")
	a, b := readNews(t, one), readNews(t, two)
	if len(a) != 1000 || len(b) != 1 || !strings.HasPrefix(b[0], "/news/1000.html |") {
		t.Fatalf("%d and %d articles (%q)", len(a), len(b), b)
	}
	if slices.ContainsFunc(a, func(s string) bool { return strings.Contains(s, "elsewhere") }) {
		t.Error("a page outside news.paths is listed")
	}
	xsdtest.Validate(t, one, two)
	index := read(t, filepath.Join(root, "sitemap_index.xml"))
	if !strings.Contains(index, "/sitemap-news.xml</loc>") || !strings.Contains(index, "/sitemap-news-2.xml</loc>") {
		t.Errorf("the index does not list both:\n%s", index)
	}
	if err := os.Remove(filepath.Join(root, "news/0007.html")); err != nil {
		t.Fatal(err)
	}
	rep, err := e.Update(context.Background(), []string{"news"}, map[string][]string{"news": {"0007.html"}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(rep.Removed, two) {
		t.Errorf("the second news sitemap was not removed: %v", rep.Removed)
	}
	if got := readNews(t, one); len(got) != 1000 || slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, "/news/0007.html") }) {
		t.Errorf("%d articles after the removal", len(got))
	}
	if strings.Contains(read(t, filepath.Join(root, "sitemap_index.xml")), "sitemap-news-2.xml") {
		t.Error("the index lists the second news sitemap, removed")
	}
}

// TestNewsGzip: with gzip on, the news sitemap is sitemap-news.xml.gz,
// and the index lists it so.
func TestNewsGzip(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	root := filepath.Join(t.TempDir(), "root")
	writeFile(t, filepath.Join(root, "a.html"), ldArticle("A", t0.Add(-time.Hour)), t0)
	cfg := loadConfig(t, baseConfig, root, newsExtra+"gzip: true\n")
	e, _ := newEngine(t, cfg, withClock(func() time.Time { return t0 }))
	mustBuild(t, e)
	b, err := os.ReadFile(filepath.Join(root, "sitemap-news.xml.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(gunzip(t, b)), "<news:title>A</news:title>") {
		t.Errorf("sitemap-news.xml.gz:\n%s", gunzip(t, b))
	}
	if index := string(gunzip(t, []byte(read(t, filepath.Join(root, "sitemap_index.xml.gz"))))); !strings.Contains(index, "/sitemap-news.xml.gz</loc>") {
		t.Errorf("the index does not list sitemap-news.xml.gz:\n%s", index)
	}
}

// TestNewsOff: turned off, a full build removes the news sitemap it
// wrote; pages never keep articles then.
func TestNewsOff(t *testing.T) {
	t0 := time.Now().UTC().Truncate(time.Second)
	root := filepath.Join(t.TempDir(), "root")
	writeFile(t, filepath.Join(root, "a.html"), ldArticle("A", t0.Add(-time.Hour)), t0)
	state := t.TempDir()
	cfg := loadConfig(t, baseConfig, root, newsExtra+"state_dir: "+state+"\n")
	e, _ := newEngine(t, cfg)
	mustBuild(t, e)
	newsPath := filepath.Join(root, "sitemap-news.xml")
	if _, err := os.Stat(newsPath); err != nil {
		t.Fatal(err)
	}
	e.Close()
	off := loadConfig(t, baseConfig, root, "state_dir: "+state+"\n")
	e2, _ := newEngine(t, off)
	rep := mustBuild(t, e2)
	if !slices.Contains(rep.Removed, newsPath) {
		t.Errorf("the news sitemap was not removed with news off: %v", rep.Removed)
	}
}

// TestNewsForeignFile: a hand-made sitemap-news.xml is never replaced; the
// publish says so, and the timer tries again a minute on, not at once
// (which would be a loop).
func TestNewsForeignFile(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	clk := &clock{now: t0}
	root := filepath.Join(t.TempDir(), "root")
	writeFile(t, filepath.Join(root, "a.html"), ldArticle("A", t0.Add(-time.Hour)), t0)
	mine := "<urlset>hand-made</urlset>\n"
	writeFile(t, filepath.Join(root, "sitemap-news.xml"), mine, t0)
	cfg := loadConfig(t, baseConfig, root, newsExtra)
	e, _ := newEngine(t, cfg, WithChanges(), withClock(clk.Now))
	_, err := e.Build(context.Background())
	if err == nil || !strings.Contains(err.Error(), "sitemap-news.xml") {
		t.Errorf("Build: %v, want an error naming the news sitemap", err)
	}
	if got := read(t, filepath.Join(root, "sitemap-news.xml")); got != mine {
		t.Errorf("the hand-made file was replaced: %q", got)
	}
	if due := e.Due(); !due.Equal(t0.Add(time.Minute)) {
		t.Errorf("due %v, want a minute on (%v)", due, t0.Add(time.Minute))
	}
}

// TestNewsRestored: a news sitemap someone removed (a deploy's rsync
// --delete) is lost to the root group, and Restore writes it again.
func TestNewsRestored(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	root := filepath.Join(t.TempDir(), "root")
	writeFile(t, filepath.Join(root, "news/a.html"), ldArticle("A", t0.Add(-time.Hour)), t0)
	cfg := loadConfig(t, baseConfig, root, newsExtra)
	e, _ := newEngine(t, cfg, WithChanges(), withClock(func() time.Time { return t0 }))
	mustBuild(t, e)
	newsPath := filepath.Join(root, "sitemap-news.xml")
	want := read(t, newsPath)
	if err := os.Remove(newsPath); err != nil {
		t.Fatal(err)
	}
	if !e.OwnsName("sitemap-news.xml") || !e.OwnsName("sitemap-news-2.xml") {
		t.Error("the news sitemap's names are not sitemapd's own")
	}
	lost := e.Lost([]string{""})
	if !slices.Equal(lost, []string{""}) {
		t.Fatalf("lost %q, want the root group", lost)
	}
	if _, err := e.Restore(context.Background(), lost); err != nil {
		t.Fatal(err)
	}
	if got := read(t, newsPath); got != want {
		t.Errorf("restored:\n%s\nwant:\n%s", got, want)
	}
}
