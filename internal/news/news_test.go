package news

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/sitemap"
	"github.com/sitemapd/sitemapd/internal/xsdtest"
)

var now = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)

func article(loc string, age time.Duration) Article {
	return Article{Loc: loc, Published: now.Add(-age), Title: "T " + loc, Publication: Publication{"The Daily Test", "en"}}
}

// TestWindow: the fixtures, published 1 h, 47 h 59 m 30 s and
// 49 h ago: two listed; the boundary one leaves 30 s later, at 48 h to
// the nanosecond; one still to come enters at its time.
func TestWindow(t *testing.T) {
	arts := []Article{
		article("https://www.news.test/a", time.Hour),
		article("https://www.news.test/b", 47*time.Hour+59*time.Minute+30*time.Second),
		article("https://www.news.test/c", 49*time.Hour),
		article("https://www.news.test/d", -10*time.Minute), // to come
	}
	locs := func(at time.Time) string {
		var s []string
		for _, a := range Select(arts, at) {
			s = append(s, strings.TrimPrefix(a.Loc, "https://www.news.test/"))
		}
		return strings.Join(s, " ")
	}
	boundary := now.Add(30 * time.Second)
	for _, tc := range []struct {
		at   time.Time
		want string
		next time.Time
	}{
		{now, "a b", boundary},
		{boundary.Add(-time.Nanosecond), "a b", boundary},
		{boundary, "a", now.Add(10 * time.Minute)},
		{now.Add(40 * time.Second), "a", now.Add(10 * time.Minute)},
		{now.Add(10 * time.Minute), "d a", now.Add(47 * time.Hour)},
		{now.Add(48 * time.Hour), "d", now.Add(10*time.Minute + Window)},
		{now.Add(60 * time.Hour), "", time.Time{}},
	} {
		if got := locs(tc.at); got != tc.want {
			t.Errorf("at %v: %q, want %q", tc.at, got, tc.want)
		}
		if got := Next(arts, tc.at); !got.Equal(tc.next) {
			t.Errorf("at %v: next %v, want %v", tc.at, got, tc.next)
		}
	}
}

func TestSelectOrder(t *testing.T) {
	arts := []Article{
		article("https://www.news.test/b", time.Hour),
		article("https://www.news.test/a", time.Hour),
		article("https://www.news.test/c", time.Minute),
		article("https://www.news.test/a", 2*time.Hour), // the same URL again
	}
	var got []string
	for _, a := range Select(arts, now) {
		got = append(got, a.Loc[len("https://www.news.test/"):]+" "+now.Sub(a.Published).String())
	}
	if want := "c 1m0s,a 1h0m0s,b 1h0m0s"; strings.Join(got, ",") != want {
		t.Errorf("%q, want %q", got, want)
	}
}

func TestPack(t *testing.T) {
	long := strings.Repeat("é", MaxTitle) // 2 bytes each
	for _, tc := range []struct {
		at    time.Time
		title string
		want  string
	}{
		{now.Add(123 * time.Nanosecond), "Rates rise", "Rates rise"},
		{time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC), "", ""},
		{now, long, long[:MaxTitle]},
		{now, "a" + long, "a" + long[:MaxTitle-2]},
	} {
		p := Pack(tc.at, tc.title)
		at, title, ok := Unpack(p)
		if !ok || !at.Equal(tc.at) || at.Location() != time.UTC || title != tc.want {
			t.Errorf("Pack(%v, %.20q): %v %.20q %v", tc.at, tc.title, at, title, ok)
		}
	}
	if Pack(time.Time{}, "x") != "" {
		t.Error("a zero time packs")
	}
	if _, _, ok := Unpack(""); ok {
		t.Error("\"\" unpacks")
	}
}

func TestRules(t *testing.T) {
	n := &config.News{
		Publication:  config.Publication{Name: "Daily", Language: "en"},
		Publications: []config.NewsPublication{{Match: "/de/**", Name: "Täglich", Language: "de"}, {Match: "*.zh.html", Name: "Zh", Language: "zh-cn"}},
		Paths:        []string{"/news/**", "/de/**", "/zh/**"},
	}
	r := NewRules(n)
	for p, want := range map[string]string{
		"/news/a.html":        "Daily en",
		"/news/x/b.zh.html":   "Zh zh-cn",
		"/de/nachrichten/":    "Täglich de",
		"/zh/a.zh.html":       "Zh zh-cn",
		"/about.html":         "",
		"/newsletter/a.html":  "",
		"/news":               "Daily en",   // ** matches no segment too, as pages.exclude's
		"/de/a.zh.html":       "Täglich de", // the first match wins
		"/news/späte/ä.html":  "Daily en",
		"/news/a%20b.html":    "Daily en",
		"/blog/news/a.html":   "",
		"/news/a.html?x=/de/": "Daily en",
	} {
		pub, ok := r.Of(p)
		got := ""
		if ok {
			got = pub.Name + " " + pub.Language
		}
		if got != want {
			t.Errorf("%s: %q, want %q", p, got, want)
		}
	}
	if NewRules(&config.News{}) != nil {
		t.Error("rules without a publication name")
	}
	if pub, ok := NewRules(&config.News{Publication: n.Publication}).Of("/anything"); !ok || pub.Name != "Daily" {
		t.Error("without paths, every path is the site's publication's")
	}
}

// TestEncodeValid: the documents validate against sitemap.xsd with
// Google's sitemap-news.xsd (xmllint), titles and names with what XML
// escapes among them, and 1,001 articles are two documents of 1,000 and 1.
func TestEncodeValid(t *testing.T) {
	var arts []Article
	for i := range 1001 {
		a := article(fmt.Sprintf("https://www.news.test/n/%04d.html?a=1&b=2", i), time.Duration(i)*time.Minute)
		a.Title = fmt.Sprintf(`"Quotes" & <tags> 'n' %d: Ünïcødé`, i)
		if i%2 == 1 {
			a.Publication = Publication{"Die <Zeitung> & Co", "de"}
		}
		if i == 3 {
			a.Publication.Language = "zh-tw"
		}
		arts = append(arts, a)
	}
	docs := Encode(sitemap.Encoder{Stylesheet: "https://www.news.test/s.xsl"}.Header(), Select(arts, now))
	if len(docs) != 2 {
		t.Fatalf("%d documents", len(docs))
	}
	dir := t.TempDir()
	var files []string
	for i, d := range docs {
		if !sitemap.HasMarker(d) {
			t.Errorf("document %d has no marker", i)
		}
		f := filepath.Join(dir, fmt.Sprintf("news-%d.xml", i))
		if err := os.WriteFile(f, d, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if n0, n1 := strings.Count(string(docs[0]), "<url>"), strings.Count(string(docs[1]), "<url>"); n0 != MaxURLs || n1 != 1 {
		t.Errorf("%d and %d URLs", n0, n1)
	}
	if !strings.Contains(string(docs[1]), "/n/1000.html") {
		t.Error("the oldest article is not in the second document")
	}
	xsdtest.Validate(t, files...)
	// And an invalid one is told apart: the oracle says no to a language
	// the schema does not know.
	bad := strings.Replace(string(docs[1]), "<news:language>de</news:language>", "<news:language>de-DE</news:language>", 1)
	bad = strings.Replace(bad, "<news:language>en</news:language>", "<news:language>de-DE</news:language>", 1)
	f := filepath.Join(dir, "bad.xml")
	if err := os.WriteFile(f, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if v := xsdtest.Verdicts(t, f)[f]; v.Valid {
		t.Errorf("xmllint takes a language of de-DE:\n%s", bad)
	}
}

func TestEncodeNothing(t *testing.T) {
	if docs := Encode(sitemap.Encoder{}.Header(), nil); docs != nil {
		t.Errorf("%d documents of no articles", len(docs))
	}
}
