package validate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sitemapd/sitemapd/internal/xsdtest"
)

const extHead = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" xmlns:video="http://www.google.com/schemas/sitemap-video/1.1" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">
<url><loc>https://example.com/a</loc>
`

const goodVideo = `<video:thumbnail_loc>https://example.com/t.jpg</video:thumbnail_loc><video:title>Steaks</video:title><video:description>How to grill</video:description><video:content_loc>https://example.com/v.mp4</video:content_loc>`

const goodNews = `<news:publication><news:name>The Times</news:name><news:language>en</news:language></news:publication><news:publication_date>2026-01-02</news:publication_date><news:title>Hello</news:title>`

// extensionCases are <url> contents, valid or not by Google's schemas
// (xmllint is the judge), and for some what check must say.
var extensionCases = []struct {
	name, body string
	want       string // in a problem, when set
}{
	{"video-good", `<video:video>` + goodVideo + `</video:video>`, ""},
	{"video-all", `<video:video>` + goodVideo + `<video:player_loc allow_embed="yes" autoplay="ap=1">https://example.com/p</video:player_loc><video:duration>600</video:duration><video:expiration_date>2027-01-01T00:00:00+00:00</video:expiration_date><video:rating>4.2</video:rating><video:view_count>12</video:view_count><video:publication_date>2026-01-01</video:publication_date><video:tag>a</video:tag><video:tag>b</video:tag><video:category>Food</video:category><video:family_friendly>yes</video:family_friendly><video:restriction relationship="allow">IE GB</video:restriction><video:gallery_loc title="g">https://example.com/g</video:gallery_loc><video:price currency="EUR" type="rent" resolution="HD">1.99</video:price><video:requires_subscription>no</video:requires_subscription><video:uploader info="https://example.com/u">me</video:uploader><video:tvshow><video:show_title>S</video:show_title><video:video_type>full</video:video_type><video:season_number>1</video:season_number></video:tvshow><video:platform relationship="deny">tv</video:platform><video:live>no</video:live><video:id type="url">x</video:id></video:video>`, ""},
	{"video-no-title", `<video:video><video:thumbnail_loc>https://example.com/t.jpg</video:thumbnail_loc><video:description>d</video:description><video:content_loc>https://example.com/v.mp4</video:content_loc></video:video>`, "a.xml:4: <video:video> has no <title>"},
	{"video-no-thumbnail", `<video:video><video:title>t</video:title><video:description>d</video:description><video:content_loc>https://example.com/v.mp4</video:content_loc></video:video>`, "has no <thumbnail_loc>"},
	{"video-order", `<video:video><video:title>t</video:title><video:thumbnail_loc>https://example.com/t.jpg</video:thumbnail_loc><video:description>d</video:description></video:video>`, ""},
	{"video-long-title", `<video:video><video:thumbnail_loc>https://example.com/t.jpg</video:thumbnail_loc><video:title>` + strings.Repeat("x", 101) + `</video:title><video:description>d</video:description><video:content_loc>https://example.com/v.mp4</video:content_loc></video:video>`, "longer than the 100"},
	{"video-duration", `<video:video>` + goodVideo + `<video:duration>28801</video:duration></video:video>`, "<video:duration>"},
	{"video-rating", `<video:video>` + goodVideo + `<video:rating>5.5</video:rating></video:video>`, ""},
	{"video-yes", `<video:video>` + goodVideo + `<video:family_friendly>maybe</video:family_friendly></video:video>`, ""},
	{"video-restriction-no-rel", `<video:video>` + goodVideo + `<video:restriction>IE</video:restriction></video:video>`, "no relationship attribute"},
	{"video-restriction-lower", `<video:video>` + goodVideo + `<video:restriction relationship="allow">ie</video:restriction></video:video>`, ""},
	{"video-unknown-attr", `<video:video>` + goodVideo + `<video:live foo="1">no</video:live></video:video>`, ""},
	{"video-unknown-child", `<video:video>` + goodVideo + `<video:colour>red</video:colour></video:video>`, "not an element it holds"},
	{"video-too-many-tags", `<video:video>` + goodVideo + strings.Repeat(`<video:tag>t</video:tag>`, 33) + `</video:video>`, "more than 32 times"},
	{"video-text", `<video:video>text` + goodVideo + `</video:video>`, ""},
	{"video-tvshow-type", `<video:video>` + goodVideo + `<video:tvshow><video:show_title>S</video:show_title><video:video_type>movie</video:video_type></video:tvshow></video:video>`, ""},
	{"video-neither-loc", `<video:video><video:thumbnail_loc>https://example.com/t.jpg</video:thumbnail_loc><video:title>t</video:title><video:description>d</video:description></video:video>`, "neither <content_loc> nor <player_loc>"},
	{"video-bare-child", `<video:title>t</video:title>`, "declares no such element"},
	{"news-order", `<news:news>` + goodNews + `<news:genres>Blog, OpEd</news:genres></news:news>`, "not in its place"},
	{"news-all", `<news:news><news:publication><news:name>T</news:name><news:language>zh-cn</news:language></news:publication><news:access>Subscription</news:access><news:genres>Blog, OpEd</news:genres><news:publication_date>2026-01-02T10:00:00Z</news:publication_date><news:title>Hello</news:title><news:keywords>a, b</news:keywords><news:stock_tickers>NASDAQ:A, NYSE:B</news:stock_tickers></news:news>`, ""},
	{"news-no-publication", `<news:news><news:publication_date>2026-01-02</news:publication_date><news:title>Hello</news:title></news:news>`, "has no <publication>"},
	{"news-no-language", `<news:news><news:publication><news:name>T</news:name></news:publication><news:publication_date>2026-01-02</news:publication_date><news:title>Hello</news:title></news:news>`, "has no <language>"},
	{"news-language", `<news:news><news:publication><news:name>T</news:name><news:language>en-GB</news:language></news:publication><news:publication_date>2026-01-02</news:publication_date><news:title>Hello</news:title></news:news>`, "not a language code"},
	{"news-date", `<news:news><news:publication><news:name>T</news:name><news:language>en</news:language></news:publication><news:publication_date>yesterday</news:publication_date><news:title>Hello</news:title></news:news>`, ""},
	{"news-no-title", `<news:news><news:publication><news:name>T</news:name><news:language>en</news:language></news:publication><news:publication_date>2026-01-02</news:publication_date></news:news>`, "has no <title>"},
	{"news-genres", `<news:news>` + goodNews + `</news:news>`, ""},
	{"news-bad-genres", `<news:news><news:publication><news:name>T</news:name><news:language>en</news:language></news:publication><news:genres>Gossip</news:genres><news:publication_date>2026-01-02</news:publication_date><news:title>Hello</news:title></news:news>`, ""},
	{"image-good", `<image:image><image:loc>https://example.com/i.png</image:loc><image:caption>c</image:caption><image:title>t</image:title><image:license>https://example.com/l</image:license></image:image>`, ""},
	{"image-no-loc", `<image:image><image:caption>c</image:caption></image:image>`, "has no <loc>"},
	{"image-two-locs", `<image:image><image:loc>https://example.com/i.png</image:loc><image:loc>https://example.com/j.png</image:loc></image:image>`, ""},
	{"image-bad-loc", `<image:image><image:loc>http://[bad</image:loc></image:image>`, ""},
}

func extensionFiles(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	var files []string
	for _, tc := range extensionCases {
		f := filepath.Join(dir, tc.name+".xml")
		if err := os.WriteFile(f, []byte(extHead+tc.body+"\n</url>\n</urlset>\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	js, _ := filepath.Glob("testdata/sitemapjs/*.xml")
	if len(js) == 0 {
		t.Fatal("no testdata/sitemapjs")
	}
	return append(files, js...)
}

// TestExtensionsAgainstXmllint: for each sitemap with Google's image, video
// or news elements, check's schema verdict is xmllint's with Google's
// schemas.
func TestExtensionsAgainstXmllint(t *testing.T) {
	files := extensionFiles(t)
	verdicts := xsdtest.Verdicts(t, files...)
	for _, f := range files {
		agree(t, filepath.Base(f), check(t, f, ""), verdicts[f])
	}
}

// TestExtensionProblems: what check says names the file, the line and
// the element.
func TestExtensionProblems(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range extensionCases {
		if tc.want == "" {
			continue
		}
		f := filepath.Join(dir, "a.xml")
		os.WriteFile(f, []byte(extHead+tc.body+"\n</url>\n</urlset>\n"), 0o644)
		res := check(t, f, "")
		var all []string
		found := false
		for _, p := range res.Problems {
			all = append(all, p.String())
			found = found || strings.Contains(p.String(), tc.want)
		}
		if !found {
			t.Errorf("%s: no problem says %q:\n%s", tc.name, tc.want, strings.Join(all, "\n"))
		}
	}
}
