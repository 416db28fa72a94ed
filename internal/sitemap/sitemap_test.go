package sitemap

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/xsdtest"
)

func TestAppendTime(t *testing.T) {
	tokyo := time.FixedZone("JST", 9*3600)
	for _, tc := range []struct {
		in   time.Time
		want string
	}{
		{time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC), "2024-05-06T07:08:09Z"},
		{time.Date(2024, 5, 6, 7, 8, 9, 999_999_999, time.UTC), "2024-05-06T07:08:09Z"},
		{time.Date(2024, 1, 1, 8, 0, 0, 0, tokyo), "2023-12-31T23:00:00Z"},
		{time.Date(999, 12, 31, 23, 59, 59, 0, time.UTC), "0999-12-31T23:59:59Z"},
		{time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), "10000-01-01T00:00:00Z"},
	} {
		if got := string(AppendTime(nil, tc.in)); got != tc.want {
			t.Errorf("AppendTime(%v) = %q, want %q", tc.in, got, tc.want)
		}
		if tc.in.Year() < 10000 {
			if want := tc.in.UTC().Format(time.RFC3339); string(AppendTime(nil, tc.in)) != want {
				t.Errorf("AppendTime(%v) disagrees with time.Format: %q", tc.in, want)
			}
		}
	}
}

func TestAppendEscaped(t *testing.T) {
	for in, want := range map[string]string{
		"":                      "",
		"plain":                 "plain",
		`a&b<c>'d"e`:            "a&amp;b&lt;c&gt;&apos;d&quot;e",
		"]]>":                   "]]&gt;",
		"https://x.org/?a=1&b=": "https://x.org/?a=1&amp;b=",
	} {
		got := string(AppendEscaped(nil, in))
		if got != want {
			t.Errorf("AppendEscaped(%q) = %q, want %q", in, got, want)
		}
		// Round trip through a real XML parser.
		var v struct {
			S string `xml:",chardata"`
		}
		if err := xml.Unmarshal([]byte("<s>"+got+"</s>"), &v); err != nil || v.S != in {
			t.Errorf("parse %q = %q, %v; want %q", got, v.S, err, in)
		}
	}
}

type urlset struct {
	XMLName xml.Name `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 urlset"`
	URLs    []struct {
		Loc        string `xml:"loc"`
		LastMod    string `xml:"lastmod"`
		ChangeFreq string `xml:"changefreq"`
		Priority   string `xml:"priority"`
	} `xml:"url"`
}

func collect(t *testing.T, urls []URL) [][]byte {
	t.Helper()
	var parts [][]byte
	if err := EncodeURLSet(urls, func(p []byte) error {
		parts = append(parts, bytes.Clone(p))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return parts
}

func TestEncodeURLSetRoundTrip(t *testing.T) {
	in := []URL{
		{Loc: "https://example.com/", LastMod: time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC), ChangeFreq: "daily", Priority: "1.0"},
		{Loc: "https://example.com/a&b'c.html"},
	}
	parts := collect(t, in)
	if len(parts) != 1 {
		t.Fatalf("got %d parts, want 1", len(parts))
	}
	if !HasMarker(parts[0]) {
		t.Error("output lacks the generator marker")
	}
	var got urlset
	if err := xml.Unmarshal(parts[0], &got); err != nil {
		t.Fatal(err)
	}
	if len(got.URLs) != 2 || got.URLs[0].Loc != in[0].Loc || got.URLs[0].LastMod != "2024-05-06T07:08:09Z" ||
		got.URLs[0].ChangeFreq != "daily" || got.URLs[0].Priority != "1.0" || got.URLs[1].Loc != in[1].Loc || got.URLs[1].LastMod != "" {
		t.Errorf("round trip = %+v", got.URLs)
	}
}

func TestEncodeEmptyWritesNothing(t *testing.T) {
	if parts := collect(t, nil); len(parts) != 0 {
		t.Errorf("empty input gave %d parts; an empty urlset is invalid", len(parts))
	}
}

func TestSplitByCount(t *testing.T) {
	for _, n := range []int{MaxItems - 1, MaxItems, MaxItems + 1, 2*MaxItems + 3} {
		urls := make([]URL, n)
		for i := range urls {
			urls[i].Loc = fmt.Sprintf("https://example.com/p%06d.html", i)
		}
		parts := collect(t, urls)
		want := (n + MaxItems - 1) / MaxItems
		if len(parts) != want {
			t.Fatalf("%d URLs: %d parts, want %d", n, len(parts), want)
		}
		total := 0
		for i, p := range parts {
			c := bytes.Count(p, []byte("<url>"))
			if c > MaxItems {
				t.Errorf("%d URLs: part %d holds %d", n, i, c)
			}
			total += c
		}
		if total != n {
			t.Errorf("%d URLs: parts hold %d", n, total)
		}
	}
}

func TestSplitBySize(t *testing.T) {
	// 2,000-character URLs: 50 MiB is reached after about 25,000 of them.
	long := "https://example.com/" + strings.Repeat("x", 1980)
	urls := make([]URL, 30_000)
	for i := range urls {
		urls[i].Loc = fmt.Sprintf("%s%06d", long, i)
	}
	parts := collect(t, urls)
	if len(parts) != 2 {
		t.Fatalf("got %d parts, want 2", len(parts))
	}
	for i, p := range parts {
		if len(p) > MaxBytes {
			t.Errorf("part %d is %d bytes, over %d", i, len(p), MaxBytes)
		}
		if !bytes.HasSuffix(p, []byte(urlsetClose)) {
			t.Errorf("part %d is not closed", i)
		}
	}
	if len(parts[0]) < MaxBytes-4096 {
		t.Errorf("part 0 is %d bytes: split too early", len(parts[0]))
	}
}

func TestEncodeValidatesAgainstXSD(t *testing.T) {
	urls := []URL{
		{Loc: "https://example.com/", LastMod: time.Unix(1700000000, 0), ChangeFreq: "always", Priority: "0.0"},
		{Loc: "https://example.com/%E6%97%A5.html", Priority: "1.0"},
		{Loc: "https://example.com/a&b'c(d)*.html", ChangeFreq: "never"},
		{Loc: "https://example.com/en/", Alternates: []Alternate{
			{Lang: "de-DE", Href: "https://example.de/?a=1&b=2"}, {Lang: "x-default", Href: "https://example.com/"},
		}},
	}
	parts := collect(t, urls)
	p := filepath.Join(t.TempDir(), "sitemap.xml")
	if err := os.WriteFile(p, parts[0], 0o644); err != nil {
		t.Fatal(err)
	}
	xsdtest.Validate(t, p)
}

// TestAlternates checks the xhtml:link entries and that the xhtml namespace
// is declared only in sitemaps that use it.
func TestAlternates(t *testing.T) {
	plain := collect(t, []URL{{Loc: "https://example.com/a.html"}})[0]
	if bytes.Contains(plain, []byte("xhtml")) {
		t.Errorf("a sitemap without alternates mentions xhtml:\n%s", plain)
	}
	doc := collect(t, []URL{
		{Loc: "https://example.com/a.html"},
		{Loc: "https://example.com/en/", Priority: "0.5", Alternates: []Alternate{{Lang: "fr", Href: "https://example.com/fr/?x=1&y='2'"}}},
	})[0]
	for _, want := range []string{
		`<urlset xmlns="` + Namespace + `" xmlns:xhtml="` + XHTMLNamespace + `">`,
		"<url><loc>https://example.com/en/</loc><priority>0.5</priority>" +
			`<xhtml:link rel="alternate" hreflang="fr" href="https://example.com/fr/?x=1&amp;y=&apos;2&apos;"/></url>` + "\n",
	} {
		if !bytes.Contains(doc, []byte(want)) {
			t.Errorf("missing %s in\n%s", want, doc)
		}
	}
}

// TestText checks text sitemaps: one URL a line, as given (already
// percent-encoded, never XML-escaped), split at MaxItems.
func TestText(t *testing.T) {
	urls := make([]URL, MaxItems+2)
	for i := range urls {
		urls[i] = URL{Loc: fmt.Sprintf("https://example.com/a&b/%d.html", i), Priority: "0.5"}
	}
	var parts [][]byte
	if err := Text(urls, func(p []byte) error { parts = append(parts, bytes.Clone(p)); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(parts) != 2 {
		t.Fatalf("%d parts, want 2", len(parts))
	}
	if n := bytes.Count(parts[0], []byte("\n")); n != MaxItems {
		t.Errorf("part 1 has %d lines, want %d", n, MaxItems)
	}
	want := "https://example.com/a&b/50000.html\nhttps://example.com/a&b/50001.html\n"
	if string(parts[1]) != want {
		t.Errorf("part 2 = %q, want %q", parts[1], want)
	}
	if err := Text(nil, func([]byte) error { t.Error("emitted a part for no URLs"); return nil }); err != nil {
		t.Fatal(err)
	}
}

func TestEncodeIndex(t *testing.T) {
	refs := make([]Ref, MaxItems+1)
	for i := range refs {
		refs[i] = Ref{Loc: fmt.Sprintf("https://example.com/d%d/sitemap.xml", i), LastMod: time.Unix(1700000000, 0)}
	}
	var parts [][]byte
	if err := EncodeIndex(refs, func(p []byte) error { parts = append(parts, bytes.Clone(p)); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(parts) != 2 {
		t.Fatalf("got %d index parts, want 2", len(parts))
	}
	var idx struct {
		XMLName  xml.Name `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 sitemapindex"`
		Sitemaps []struct {
			Loc     string `xml:"loc"`
			LastMod string `xml:"lastmod"`
		} `xml:"sitemap"`
	}
	if err := xml.Unmarshal(parts[1], &idx); err != nil {
		t.Fatal(err)
	}
	if len(idx.Sitemaps) != 1 || idx.Sitemaps[0].Loc != refs[MaxItems].Loc || idx.Sitemaps[0].LastMod != "2023-11-14T22:13:20Z" {
		t.Errorf("second index part = %+v", idx.Sitemaps)
	}
}

// BenchmarkEncodeURLSet measures the encoder alone, in URLs per second.
func BenchmarkEncodeURLSet(b *testing.B) {
	urls := make([]URL, MaxItems)
	mt := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	for i := range urls {
		urls[i] = URL{Loc: fmt.Sprintf("https://example.com/section-%d/some-article-name-%d.html", i%50, i), LastMod: mt.Add(time.Duration(i) * time.Second)}
	}
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for b.Loop() {
		if err := EncodeURLSet(urls, func(p []byte) error { n += len(p); return nil }); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(urls))/b.Elapsed().Seconds(), "urls/s")
	b.SetBytes(int64(n / b.N))
}

// TestImages checks the image:image entries, after the alternates, and
// that the image namespace is declared only in sitemaps that use it.
func TestImages(t *testing.T) {
	plain := collect(t, []URL{{Loc: "https://example.com/a.html", Alternates: []Alternate{{Lang: "fr", Href: "https://example.com/fr/"}}}})[0]
	if bytes.Contains(plain, []byte("image")) {
		t.Errorf("a sitemap without images mentions them:\n%s", plain)
	}
	doc := collect(t, []URL{
		{Loc: "https://example.com/a.html"},
		{Loc: "https://example.com/en/", Alternates: []Alternate{{Lang: "fr", Href: "https://example.com/fr/"}},
			Images: []string{"https://example.com/a.jpg", "https://cdn.example.net/b.png?w=1&h='2'"}},
	})[0]
	for _, want := range []string{
		`<urlset xmlns="` + Namespace + `" xmlns:xhtml="` + XHTMLNamespace + `" xmlns:image="` + ImageNamespace + `">`,
		"<url><loc>https://example.com/en/</loc>" +
			`<xhtml:link rel="alternate" hreflang="fr" href="https://example.com/fr/"/>` +
			"<image:image><image:loc>https://example.com/a.jpg</image:loc></image:image>" +
			"<image:image><image:loc>https://cdn.example.net/b.png?w=1&amp;h=&apos;2&apos;</image:loc></image:image></url>\n",
	} {
		if !bytes.Contains(doc, []byte(want)) {
			t.Errorf("missing %s in\n%s", want, doc)
		}
	}
	// Read back: the page's URL, not an image's.
	got := map[string]string{}
	if err := ReadURLs(bytes.NewReader(doc), got); err != nil || len(got) != 2 || got["https://example.com/en/"] != "" {
		t.Errorf("ReadURLs = %v, %v", got, err)
	}
}

// TestImagesValidateAgainstXSD validates a sitemap with images against
// sitemap.xsd and Google's image schema.
func TestImagesValidateAgainstXSD(t *testing.T) {
	parts := collect(t, []URL{
		{Loc: "https://example.com/", LastMod: time.Unix(1700000000, 0), Images: []string{"https://example.com/a.jpg", "https://example.com/%C3%A9.png?x=1&y=2"}},
		{Loc: "https://example.com/b.html", Alternates: []Alternate{{Lang: "de", Href: "https://example.com/de/b.html"}}, Images: []string{"https://cdn.example.net/c.webp"}},
	})
	p := filepath.Join(t.TempDir(), "sitemap.xml")
	if err := os.WriteFile(p, parts[0], 0o644); err != nil {
		t.Fatal(err)
	}
	xsdtest.Validate(t, p)
	// The image schema is read: an image without its loc is invalid.
	bad := filepath.Join(t.TempDir(), "bad.xml")
	if err := os.WriteFile(bad, bytes.Replace(parts[0], []byte("<image:loc>https://cdn.example.net/c.webp</image:loc>"), nil, 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if v := xsdtest.Verdicts(t, bad)[bad]; v.Valid {
		t.Errorf("an image:image without image:loc validates")
	}
}

// TestReadURLsLongLine reads back an entry of MaxImages images of
// MaxLocLen characters, escaped: its line is over 12 MB.
func TestReadURLsLongLine(t *testing.T) {
	img := "https://example.com/" + strings.Repeat("&", MaxLocLen-len("https://example.com/"))
	u := URL{Loc: "https://example.com/many.html", Images: make([]string, MaxImages)}
	for i := range u.Images {
		u.Images[i] = img
	}
	line := AppendURL(nil, &u)
	if len(line) > maxEncodedLen(&u) || len(line) > maxLine {
		t.Fatalf("entry of %d bytes: over maxEncodedLen %d or maxLine %d", len(line), maxEncodedLen(&u), maxLine)
	}
	got := map[string]string{}
	if err := ReadURLs(bytes.NewReader(line), got); err != nil || len(got) != 1 {
		t.Errorf("ReadURLs of a %d-byte line = %v, %v", len(line), len(got), err)
	}
}
