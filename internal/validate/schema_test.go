package validate

import (
	"bytes"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/sitemap"
	"github.com/sitemapd/sitemapd/internal/xsdtest"
)

// alternates returns the hreflang sitemaps of testdata/alternates
// (Google's example, Hugo's and Yoast's kind of output, and one mistake a
// file) and one of sitemapd's own, written to dir.
func alternates(t *testing.T, dir string) []string {
	t.Helper()
	files, _ := filepath.Glob("testdata/alternates/*.xml")
	if len(files) == 0 {
		t.Fatal("no testdata/alternates")
	}
	var own bytes.Buffer
	urls := []sitemap.URL{
		{Loc: "https://example.com/en/", LastMod: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Alternates: []sitemap.Alternate{
			{Lang: "de", Href: "https://example.com/de/?a=1&b=2"}, {Lang: "x-default", Href: "https://example.com/"},
		}},
		{Loc: "https://example.com/de/%C3%BCber.html", Alternates: []sitemap.Alternate{{Lang: "en-GB", Href: "https://example.com/en/about.html"}}},
	}
	if err := sitemap.EncodeURLSet(urls, func(p []byte) error { own.Write(p); return nil }); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "sitemapd.xml")
	if err := os.WriteFile(p, own.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return append(files, p)
}

// TestAlternates: what check says of each hreflang sitemap, schema
// problems and protocol problems told apart (testdata/alternates.golden,
// refreshed with -update).
func TestAlternates(t *testing.T) {
	var out strings.Builder
	for _, f := range alternates(t, t.TempDir()) {
		res := check(t, f, "")
		if len(res.Problems) == 0 {
			fmt.Fprintf(&out, "%-8s %s: ok\n", "", filepath.Base(f))
		}
		for _, p := range res.Problems {
			kind := "protocol"
			if p.Schema {
				kind = "schema"
			}
			fmt.Fprintf(&out, "%-8s %s\n", kind, p)
		}
	}
	golden := "testdata/alternates.golden"
	if *update {
		os.WriteFile(golden, []byte(out.String()), 0o644)
	}
	want, _ := os.ReadFile(golden)
	if out.String() != string(want) {
		t.Errorf("problems found:\n%s\nwant (%s):\n%s", out.String(), golden, want)
	}
}

// TestAlternatesAgainstXmllint: check finds a schema problem in exactly
// the hreflang sitemaps xmllint rejects with sitemap.xsd and XHTML's link
// element.
func TestAlternatesAgainstXmllint(t *testing.T) {
	files := alternates(t, t.TempDir())
	verdicts := xsdtest.Verdicts(t, files...)
	for _, f := range files {
		res := check(t, f, "")
		agree(t, filepath.Base(f), res, verdicts[f])
	}
}

func agree(t *testing.T, what string, res *Result, v xsdtest.Verdict) {
	t.Helper()
	if res.SchemaValid() == v.Valid {
		return
	}
	var found strings.Builder
	for _, p := range res.Problems {
		fmt.Fprintf(&found, "\t%s (schema: %v)\n", p, p.Schema)
	}
	if v.Valid {
		t.Errorf("%s: xmllint takes it, check finds a schema problem:\n%s", what, &found)
	} else {
		t.Errorf("%s: xmllint rejects it:\n%scheck finds no schema problem:\n%s", what, v.Output, &found)
	}
}

// typeCases are values for each place a sitemap holds a typed value:
// <url>'s elements and the attributes of XHTML's link element. Whether
// each is valid is xmllint's to say.
var typeCases = map[string][]string{
	"loc": {
		"https://example.com/", "http://a.b/", "http://ab.c/", "  http://a.b/  ", " https://example.com/a ",
		"/relative/path.html", "https://example.com/a b", "https://example.com/%zz", "https://example.com/%2F",
		"https://example.com/a#b#c", "https://example.com/[a]", "https://example.com/#[a]", "https://[::1]/",
		"https://example.com:/", "https://example.com:8080/", "https://example.com:99999999999/", "https://u@v@example.com/",
		"https://example.com/ä", "https://example.com/{x}|^`", "::", "a:b", "1a:b", "%41:b", "mailto:a@example.com",
		"https://example.com/" + strings.Repeat("a", 2028), "https://example.com/" + strings.Repeat("a", 2029),
		"https://example.com/" + strings.Repeat("ä", 2028), "",
	},
	"lastmod": {
		"2024-01-01", " 2024-01-01 ", "2024", "2024-01", "2024-01-01T10:00Z", "2024-01-01T10:00:00",
		"2024-01-01T10:00:00Z", "2024-01-01T10:00:00.5+02:00", "2024-01-01T10:00:00+14:00", "2024-01-01T10:00:00+14:01",
		"2024-01-01T10:00:00+24:00", "2024-01-01T10:00:00.Z", "2024-01-01T24:00:00Z", "2024-01-01T24:00:01Z",
		"2024-01-01T23:59:60Z", "2024-02-29", "2023-02-29", "1900-02-29", "2000-02-29", "0000-01-01", "-0001-01-01",
		"-0004-02-29", "-0100-02-29", "12024-01-01", "02024-01-01", "+2024-01-01", "2024-1-01", "2024-01-01Z",
		"2024-01-01+01:00", "2024-01-01T10:00:00 Z", "2024-01-01 T10:00:00Z", "2024-13-01", "2024-04-31",
		"2024-01-01T10:00:00+0200", "2024-01-01t10:00:00z", "10:00:00", "", "2024-01-01T10:00:00+00:60",
	},
	"changefreq": {"daily", " daily", "daily\n", "Daily", "never", "sometimes", ""},
	"priority": {
		"0", "1", "0.5", "1.0", "1.00000", "1.0001", "-0", "-0.0", "+0.5", ".5", "0.", "1.", "5.", ".", " 0.5 ",
		"0.5.", "1e0", "-0.1", "00.5", "+", "", "0,5", "2", "NaN", "Inf", "0x1", "0.123456789012345678901234",
	},
	"hreflang": {
		"de", "EN", "x-default", "X-Default", "i-klingon", "zh-Hant-TW", "de-CH-1901", "en-US-x-abc", "abcdefgh",
		"abcdefghi", "en-abcdefghi", "en-US-", "-en", "en--US", "a1", "123", "en_GB", "", " ", "  en-GB  ",
		"en GB", "ä",
	},
	"href": {
		"https://example.com/de/", "", "/de/", "de", "?lang=de", "#de", "https://example.com/de/ seite",
		"https://example.com/de/%zz", "https://example.com/de/#a#b", "https://example.com/de/[x]", "https://[::1/",
		"https://example.com:/", "https://example.com:80x/", "//example.com/de/", "javascript:alert(1)", "::",
		"https://example.com/de/ä", "  https://example.com/de/  ",
	},
	"rel":      {"alternate", "alternate stylesheet", "  alternate ", "", "canonical", "alt/ernate", "alternate,x"},
	"id":       {"de", "_de", "de-1.x", "1de", "-de", "de:x", "", " de ", "d e", "ä"},
	"dir":      {"ltr", "rtl", " rtl ", "RTL", "", "auto"},
	"media":    {"screen", "only screen and (max-width: 640px)", "", "  ", "a,b", "a, b", "a ,b", "a,,b", ",a", "a,"},
	"xml:lang": {"de", "", " ", "de_DE", "  de  "},
	"lang":     {"de", "", "de_DE"},
	"class":    {"a", "a b", "", "a/b"},
}

// TestTypesAgainstXmllint: for every value of typeCases, check finds a
// schema problem exactly where xmllint rejects the sitemap holding it.
func TestTypesAgainstXmllint(t *testing.T) {
	dir := t.TempDir()
	type sample struct{ what, path string }
	var samples []sample
	var files []string
	for where, values := range typeCases {
		for i, v := range values {
			v := html.EscapeString(v)
			var body string
			switch where {
			case "loc":
				body = "<url><loc>" + v + "</loc></url>"
			case "lastmod", "changefreq", "priority":
				body = fmt.Sprintf("<url><loc>https://example.com/</loc><%s>%s</%s></url>", where, v, where)
			default:
				extra := ` rel="alternate" hreflang="de" href="https://example.com/de/"`
				if where == "rel" || where == "hreflang" || where == "href" {
					extra = ""
				}
				body = fmt.Sprintf(`<url><loc>https://example.com/</loc><xhtml:link %s="%s"%s/></url>`, where, v, extra)
			}
			p := filepath.Join(dir, fmt.Sprintf("%s-%d.xml", strings.ReplaceAll(where, ":", "-"), i))
			doc := `<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
				`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">` + "\n" +
				body + "\n</urlset>\n"
			if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
			samples = append(samples, sample{fmt.Sprintf("%s %q", where, values[i]), p})
			files = append(files, p)
		}
	}
	verdicts := xsdtest.Verdicts(t, files...)
	for _, s := range samples {
		agree(t, s.what, check(t, s.path, ""), verdicts[s.path])
	}
}

// structureCases are <urlset>s (without their start and end tags) laid
// out rightly or wrongly: where other namespaces' elements may be,
// attributes, text, and <url>'s order.
var structureCases = map[string]string{
	"urlset attribute":           `<url><loc>https://example.com/</loc></url>`,
	"xsi:schemaLocation":         `<url xsi:schemaLocation="http://www.sitemaps.org/schemas/sitemap/0.9 sitemap.xsd"><loc>https://example.com/</loc></url>`,
	"xsi:noNamespaceSchemaLoc":   `<url><loc xsi:noNamespaceSchemaLocation="x.xsd">https://example.com/</loc></url>`,
	"xsi:nil":                    `<url xsi:nil="false"><loc>https://example.com/</loc></url>`,
	"xsi:type":                   `<url><loc xsi:type="x">https://example.com/</loc></url>`,
	"url attribute":              `<url id="a"><loc>https://example.com/</loc></url>`,
	"loc attribute":              `<url><loc type="url">https://example.com/</loc></url>`,
	"loc xml:lang":               `<url><loc xml:lang="en">https://example.com/</loc></url>`,
	"text in url":                `<url>x<loc>https://example.com/</loc></url>`,
	"text in urlset":             `x<url><loc>https://example.com/</loc></url>`,
	"space reference in url":     `<url>&#32;<loc>https://example.com/</loc></url>`,
	"no-break space in url":      `<url>&#160;<loc>https://example.com/</loc></url>`,
	"CDATA space in url":         `<url><![CDATA[ ]]><loc>https://example.com/</loc></url>`,
	"empty CDATA in url":         `<url><![CDATA[]]><loc>https://example.com/</loc></url>`,
	"comment and PI in url":      `<url><!-- c --><loc>https://example.com/</loc><?pi x?></url>`,
	"empty url":                  `<url/>`,
	"empty urlset":               ``,
	"element in no namespace":    `<url><loc>https://example.com/</loc><foo xmlns=""/></url>`,
	"unknown sitemap element":    `<url><loc>https://example.com/</loc><image/></url>`,
	"url in url":                 `<url><loc>https://example.com/</loc><url><loc>https://example.com/b</loc></url></url>`,
	"empty lastmod":              `<url><loc>https://example.com/</loc><lastmod/></url>`,
	"element in loc":             `<url><loc>https://example.com/<b/></loc></url>`,
	"comment in loc":             `<url><loc>https://example.com/<!-- x -->a</loc></url>`,
	"CDATA loc":                  `<url><loc><![CDATA[https://example.com/?a=1&b=2]]></loc></url>`,
	"loc on lines":               "<url><loc>\n  https://example.com/\n</loc></url>",
	"two links before url":       `<xhtml:link rel="alternate" hreflang="de" href="https://example.com/de/"/><xhtml:link rel="alternate" hreflang="fr" href="https://example.com/fr/"/><url><loc>https://example.com/</loc></url>`,
	"link between urls":          `<url><loc>https://example.com/a</loc></url><xhtml:link rel="alternate" hreflang="de" href="https://example.com/de/"/><url><loc>https://example.com/b</loc></url>`,
	"bad link before url":        `<xhtml:link hreflang="de_DE"/><url><loc>https://example.com/</loc></url>`,
	"priority twice":             `<url><loc>https://example.com/</loc><priority>0.5</priority><priority>0.5</priority></url>`,
	"loc twice":                  `<url><loc>https://example.com/</loc><loc>https://example.com/</loc></url>`,
	"changefreq before lastmod":  `<url><loc>https://example.com/</loc><changefreq>daily</changefreq><lastmod>2024-01-01</lastmod></url>`,
	"lastmod before loc":         `<url><lastmod>2024-01-01</lastmod><loc>https://example.com/</loc></url>`,
	"all in order":               `<url><loc>https://example.com/</loc><lastmod>2024-01-01</lastmod><changefreq>daily</changefreq><priority>0.5</priority><xhtml:link rel="alternate" hreflang="de" href="https://example.com/de/"/></url>`,
	"link between fields":        `<url><loc>https://example.com/</loc><lastmod>2024-01-01</lastmod><xhtml:link rel="alternate" hreflang="de" href="https://example.com/de/"/><priority>0.5</priority></url>`,
	"xhtml meta":                 `<url><loc>https://example.com/</loc><xhtml:meta name="x" content="y"/></url>`,
	"link xml:lang":              `<url><loc>https://example.com/</loc><xhtml:link xml:lang="de" rel="alternate" hreflang="de" href="https://example.com/de/"/></url>`,
	"link xsi:schemaLocation":    `<url><loc>https://example.com/</loc><xhtml:link xsi:schemaLocation="a b" rel="alternate" hreflang="de" href="https://example.com/de/"/></url>`,
	"link xmlns":                 `<url><loc>https://example.com/</loc><xhtml:link xmlns:foo="urn:x" rel="alternate" hreflang="de" href="https://example.com/de/"/></url>`,
	"link foreign attribute":     `<url><loc>https://example.com/</loc><xhtml:link xmlns:foo="urn:x" foo:bar="1" rel="alternate" hreflang="de" href="https://example.com/de/"/></url>`,
	"undeclared prefix on url":   `<url foo:bar="1"><loc>https://example.com/</loc></url>`,
	"undeclared attr prefix":     `<url><loc>https://example.com/</loc><xhtml:link foo:bar="1" rel="alternate" hreflang="de" href="https://example.com/de/"/></url>`,
	"link comment inside":        `<url><loc>https://example.com/</loc><xhtml:link rel="alternate" hreflang="de" href="https://example.com/de/"><!-- de --></xhtml:link></url>`,
	"link empty CDATA inside":    `<url><loc>https://example.com/</loc><xhtml:link rel="alternate" hreflang="de" href="https://example.com/de/"><![CDATA[]]></xhtml:link></url>`,
	"link space reference":       `<url><loc>https://example.com/</loc><xhtml:link rel="alternate" hreflang="de" href="https://example.com/de/">&#32;</xhtml:link></url>`,
	"ids unique":                 `<url><loc>https://example.com/</loc><xhtml:link id="de" rel="alternate" hreflang="de" href="https://example.com/de/"/><xhtml:link id="fr" rel="alternate" hreflang="fr" href="https://example.com/fr/"/></url>`,
	"id twice":                   `<url><loc>https://example.com/a</loc><xhtml:link id="de" rel="alternate" hreflang="de" href="https://example.com/de/"/></url><url><loc>https://example.com/b</loc><xhtml:link id=" de" rel="alternate" hreflang="de" href="https://example.com/de/b"/></url>`,
	"prefixed sitemap elements":  `<sm:url xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:loc>https://example.com/</sm:loc></sm:url>`,
	"link in extension-less ns":  `<url><loc>https://example.com/</loc><x:link xmlns:x="urn:x" rel="alternate" hreflang="de" href="https://example.com/de/"/></url>`,
	"mobile alternate no media":  `<url><loc>https://example.com/</loc><xhtml:link rel="alternate" href="https://m.example.com/"/></url>`,
	"attribute twice on url":     `<url a="1" a="2"><loc>https://example.com/</loc></url>`,
	"whitespace between entries": "\n\t<url>\n\t\t<loc>https://example.com/</loc>\n\t</url>\n",
}

// TestStructureAgainstXmllint: for every document of structureCases,
// check finds a schema problem exactly where xmllint rejects it.
func TestStructureAgainstXmllint(t *testing.T) {
	dir := t.TempDir()
	paths := map[string]string{}
	var files []string
	i := 0
	for what, body := range structureCases {
		attrs := ""
		if what == "urlset attribute" {
			attrs = ` version="1.0"`
		}
		doc := `<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
			`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"` + attrs + ">" +
			body + "</urlset>\n"
		p := filepath.Join(dir, fmt.Sprintf("case-%d.xml", i))
		i++
		if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		paths[what] = p
		files = append(files, p)
	}
	verdicts := xsdtest.Verdicts(t, files...)
	for what, p := range paths {
		agree(t, what, check(t, p, ""), verdicts[p])
	}
}

// TestExtensions: elements of Google's image, video and news extensions
// are taken without a look inside. (xmllint with sitemap.xsd and XHTML's
// link alone rejects them: their schemas are not loaded.)
func TestExtensions(t *testing.T) {
	res := check(t, "testdata/extensions.xml", "")
	for _, p := range res.Problems {
		t.Errorf("%s", p)
	}
	if res.Entries != 2 {
		t.Errorf("%d entries, want 2", res.Entries)
	}
}

// FuzzCheck: whatever the bytes, Check reads them to the end or to the
// first XML it cannot parse, without panicking. (An XML declaration the
// decoder does not support, a version other than 1.0 or an encoding other
// than UTF-8, is returned as an error, as it always was.)
func FuzzCheck(f *testing.F) {
	for _, pattern := range []string{"testdata/alternates/*.xml", "testdata/broken/*.xml", "testdata/*.xml"} {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Check("fuzz.xml", bytes.NewReader(data), Options{Location: "https://example.com/sub/sitemap.xml", Now: now})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "xml: ") {
				t.Fatal(err)
			}
			return
		}
		for _, p := range res.Problems {
			if p.Msg == "" {
				t.Fatalf("a problem without a message: %+v", p)
			}
		}
	})
}
