package head

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"
)

const (
	ogArticle = `<meta property="og:type" content="article">`
	pubTime   = `<meta property="article:published_time" content=`
)

// articleCases are heads and the news article they state: its publication
// time written as RFC 3339 and read with time.Parse, its title as a
// reader sees it; problems are substrings of the problems expected.
var articleCases = []struct {
	name, page string
	published  string // RFC 3339; "" for no article
	title      string
	problems   []string
	modified   string // RFC 3339, where the case checks the date is kept
}{
	{"JSON-LD NewsArticle", inHeadPage(ldOpen + `{"@context":"https://schema.org","@type":"NewsArticle","headline":"Rates rise","datePublished":"2026-11-25T08:00:00+01:00"}` + ldClose),
		"2026-11-25T07:00:00Z", "Rates rise", nil, ""},
	{"a subtype, as an IRI, in an array", inHeadPage(ldOpen + `{"@type":["Thing","https://schema.org/OpinionNewsArticle"],"headline":"We think","datePublished":"2026-11-25"}` + ldClose),
		"2026-11-25T00:00:00Z", "We think", nil, ""},
	{"schema: prefix, in a @graph", inHeadPage(ldOpen + `{"@graph":[{"@type":"WebPage"},{"@type":"schema:NewsArticle","headline":["First","Second"],"datePublished":["2026-11-24T10:00:00Z"]}]}` + ldClose),
		"2026-11-24T10:00:00Z", "First", nil, ""},
	{"a BlogPosting is no news article", inHeadPage(ldOpen + `{"@type":"BlogPosting","headline":"h","datePublished":"2026-11-25"}` + ldClose), "", "", nil, ""},
	{"NewsArticled is no type of news", inHeadPage(ldOpen + `{"@type":"NewsArticled","headline":"h","datePublished":"2026-11-25"}` + ldClose), "", "", nil, ""},
	{"a type escaped in JSON is not read", inHeadPage(ldOpen + `{"@type":"News\u0041rticle","headline":"h","datePublished":"2026-11-25"}` + ldClose), "", "", nil, ""},
	{"the node naming the page counts", inHeadPage(ldOpen + `[{"@type":"NewsArticle","url":"https://example.com/other.html","headline":"Other","datePublished":"2026-11-20"},` +
		`{"@type":"NewsArticle","@id":"/dir/page.html#article","headline":"This","datePublished":"2026-11-21"}]` + ldClose),
		"2026-11-21T00:00:00Z", "This", nil, ""},
	{"else the first", inHeadPage(ldOpen + `[{"@type":"NewsArticle","url":"https://example.com/a.html","headline":"A","datePublished":"2026-11-20"},` +
		`{"@type":"NewsArticle","url":"https://example.com/b.html","headline":"B","datePublished":"2026-11-21"}]` + ldClose),
		"2026-11-20T00:00:00Z", "A", nil, ""},
	{"Open Graph article", inHeadPage(ogArticle + pubTime + `"2026-11-25T06:30:00Z"><meta property="og:title" content="Storm &amp; rain">`),
		"2026-11-25T06:30:00Z", "Storm & rain", nil, ""},
	{"og:type in any case, by name", inHeadPage(`<meta name="og:type" content=" Article ">` + pubTime + `"2026-11-25T06:30:00Z">`),
		"2026-11-25T06:30:00Z", "t", nil, ""},
	{"og:type website is no article", inHeadPage(`<meta property="og:type" content="website">` + pubTime + `"2026-11-25">`), "", "", nil, ""},
	{"og:type article without a time is none", inHeadPage(ogArticle), "", "", nil, ""},
	{"the title element, its references and spaces", `<title> Floods &amp;
	 storms&#x21;  </title>` + ogArticle + pubTime + `"2026-11-25T06:30:00Z">`,
		"2026-11-25T06:30:00Z", "Floods & storms!", nil, ""},
	{"the first title element counts", `<title>One</title><title>Two</title>` + ogArticle + pubTime + `"2026-11-25">`,
		"2026-11-25T00:00:00Z", "One", nil, ""},
	{"a title in a template does not", `<template><title>In</title></template><title>Out</title>` + ogArticle + pubTime + `"2026-11-25">`,
		"2026-11-25T00:00:00Z", "Out", nil, ""},
	{"headline before og:title before title", inHeadPage(`<meta property="og:title" content="OG">` + ldOpen + `{"@type":"NewsArticle","headline":"LD","datePublished":"2026-11-25"}` + ldClose),
		"2026-11-25T00:00:00Z", "LD", nil, ""},
	{"an empty headline gives way", inHeadPage(`<meta property="og:title" content="OG">` + ldOpen + `{"@type":"NewsArticle","headline":" \n ","datePublished":"2026-11-25"}` + ldClose),
		"2026-11-25T00:00:00Z", "OG", nil, ""},
	{"no title at all", `<meta property="og:title" content=" ">` + ogArticle + pubTime + `"2026-11-25">`, "", "",
		[]string{"news article without a title"}, ""},
	{"controls are taken out of a title", inHeadPage(ldOpen + `{"@type":"NewsArticle","headline":"a\u0001b\u0000\ufffec\u00a0\u2003d","datePublished":"2026-11-25"}` + ldClose),
		"2026-11-25T00:00:00Z", "abc d", nil, ""},
	{"datePublished before the meta", inHeadPage(pubTime + `"2026-11-20">` + ldOpen + `{"@type":"NewsArticle","headline":"h","datePublished":"2026-11-25"}` + ldClose),
		"2026-11-25T00:00:00Z", "h", nil, ""},
	{"an unusable datePublished falls through to the meta", inHeadPage(pubTime + `"2026-11-20">` + ldOpen + `{"@type":"NewsArticle","headline":"h","datePublished":"today"}` + ldClose),
		"2026-11-20T00:00:00Z", "h", []string{`news article: JSON-LD datePublished "today" is not a W3C date`}, ""},
	{"a year is not a complete date", inHeadPage(ogArticle + pubTime + `"2026">`), "", "",
		[]string{`news article: article:published_time "2026" is not a complete date`, "news article without a usable publication date"}, ""},
	{"a time without zone is not usable", inHeadPage(ogArticle + pubTime + `"2026-11-25T08:00:00">`), "", "",
		[]string{`article:published_time "2026-11-25T08:00:00" has no time zone`, "news article without a usable publication date"}, ""},
	{"a node without a date", inHeadPage(ldOpen + `{"@type":"NewsArticle","headline":"h"}` + ldClose), "", "",
		[]string{"news article without a usable publication date"}, ""},
	{"a news node is read though a meta gave the modified date",
		inHeadPage(artMod + `"2026-11-25T09:00:00Z">` + ldOpen + `{"@type":"NewsArticle","headline":"h","datePublished":"2026-11-25T08:00:00Z","dateModified":"2020-01-01"}` + ldClose),
		"2026-11-25T08:00:00Z", "h", nil, "2026-11-25T09:00:00Z"},
	{"the modified date of a news node", inHeadPage(ldOpen + `{"@type":"NewsArticle","headline":"h","datePublished":"2026-11-25T08:00:00Z","dateModified":"2026-11-25T10:00:00Z"}` + ldClose),
		"2026-11-25T08:00:00Z", "h", nil, "2026-11-25T10:00:00Z"},
	{"a property and a name each count", inHeadPage(`<meta property="og:title" name="article:modified_time" content="2026-11-25">` + ogArticle + pubTime + `"2026-11-24">`),
		"2026-11-24T00:00:00Z", "2026-11-25", nil, "2026-11-25T00:00:00Z"},
}

func TestArticle(t *testing.T) {
	for _, tc := range articleCases {
		t.Run(tc.name, func(t *testing.T) {
			src := []byte(tc.page)
			info, err := Read(bytes.NewReader(src), page)
			if err != nil {
				t.Fatal(err)
			}
			agree(t, tc.name, src, 7)
			got := info.Article
			switch {
			case tc.published == "" && !got.Published.IsZero():
				t.Errorf("an article: %v", got)
			case tc.published != "":
				want, err := time.Parse(time.RFC3339, tc.published)
				if err != nil {
					t.Fatal(err)
				}
				if !got.Published.Equal(want) || got.Published.Location() != time.UTC || got.Title != tc.title {
					t.Errorf("got %v %q, want %v %q", got.Published, got.Title, want, tc.title)
				}
			}
			if tc.modified != "" {
				if want, _ := time.Parse(time.RFC3339, tc.modified); !info.Modified.Equal(want) {
					t.Errorf("modified %v, want %v", info.Modified, want)
				}
			}
			for _, p := range tc.problems {
				if !slices.ContainsFunc(got.Problems, func(s string) bool { return strings.Contains(s, p) }) {
					t.Errorf("no problem %q in %q", p, got.Problems)
				}
			}
			if len(tc.problems) == 0 && len(got.Problems) > 0 {
				t.Errorf("problems: %q", got.Problems)
			}
			if slices.ContainsFunc(info.Problems, func(s string) bool { return strings.Contains(s, "news article") }) {
				t.Errorf("an article's problem among the head's: %q", info.Problems)
			}
		})
	}
}

func TestCleanTitle(t *testing.T) {
	for in, want := range map[string]string{
		"":                    "",
		"  a  b\t\nc ":        "a b c",
		"\x01\x1f":            "",
		"x\xffy":              "x\uFFFDy",
		"\uFFFE\uFFFFz":       "z",
		"é\u3000ü":            "é ü",
		"<b>&amp;</b>":        "<b>&amp;</b>", // escaped by the encoder, not here
		"\U0001F600 \u2028 x": "\U0001F600 x",
		"plain words, kept":   "plain words, kept",
		"a  b":                "a b",
		" a":                  "a",
		"a ":                  "a",
		"a\x7fb":              "a\x7fb", // XML carries DEL
	} {
		if got := CleanTitle(in); got != want {
			t.Errorf("CleanTitle(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzCleanTitle: a clean title is valid UTF-8 that XML 1.0 can carry,
// without runs of white space or white space at its ends, and cleaning it
// again changes nothing.
func FuzzCleanTitle(f *testing.F) {
	for _, s := range []string{"", "a  b", " \t", "x\xffy", "\u3000a\u3000", "a\x00b", "\uFFFE", "plain"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := CleanTitle(s)
		if !utf8.ValidString(c) || strings.Contains(c, "  ") || strings.TrimSpace(c) != c || CleanTitle(c) != c {
			t.Fatalf("CleanTitle(%q) = %q", s, c)
		}
		for _, r := range c {
			if r < 0x20 || r == 0xFFFE || r == 0xFFFF || unicode.IsSpace(r) && r != ' ' {
				t.Fatalf("CleanTitle(%q) = %q holds %U", s, c, r)
			}
		}
	})
}
