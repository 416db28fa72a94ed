package head

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// inHeadPage is a page whose head ends with head, and whose body follows.
func inHeadPage(head string) string {
	return `<!doctype html><html><head><meta charset="utf-8"><title>t</title>` + head + "</head><body><p>text</p></body></html>"
}

const (
	ldOpen  = `<script type="application/ld+json">`
	ldClose = `</script>`
	artMod  = `<meta property="article:modified_time" content=`
	ogUpd   = `<meta property="og:updated_time" content=`
)

// modifiedCases are heads and the modification date they state, written
// as RFC 3339 and read with time.Parse, not with this package; problems
// are substrings of the problems expected, one each, in order.
var modifiedCases = []struct {
	name, page string
	want       string // RFC 3339; "" for none
	problems   []string
}{
	// The metas.
	{"article:modified_time", inHeadPage(artMod + `"2024-03-05T14:20:00+01:00">`), "2024-03-05T13:20:00Z", nil},
	{"og:updated_time", inHeadPage(ogUpd + `"2020-11-16T15:11:46+00:00"/>`), "2020-11-16T15:11:46Z", nil},
	{"name instead of property", inHeadPage(`<meta name="article:modified_time" content="2024-03-05">`), "2024-03-05T00:00:00Z", nil},
	{"og:updated_time by name", inHeadPage(`<meta name="og:updated_time" content="2024-03-05">`), "2024-03-05T00:00:00Z", nil},
	{"any case, white space", inHeadPage(`<META PROPERTY=" Article:Modified_Time " CONTENT=" 2024-03-05T14:20Z ">`), "2024-03-05T14:20:00Z", nil},
	{"unquoted", inHeadPage(`<meta property=article:modified_time content=2024-03-05T14:20Z>`), "2024-03-05T14:20:00Z", nil},
	{"article:modified_time before og:updated_time, whatever their order",
		inHeadPage(ogUpd + `"2024-01-01T00:00:00Z">` + artMod + `"2024-02-02T00:00:00Z">`), "2024-02-02T00:00:00Z", nil},
	{"a meta before JSON-LD, whatever their order",
		inHeadPage(ldOpen + `{"@type":"WebPage","url":"https://example.com/dir/page.html","dateModified":"2024-01-01"}` + ldClose + ogUpd + `"2024-02-02">`),
		"2024-02-02T00:00:00Z", nil},
	{"the first of a meta counts",
		inHeadPage(artMod + `"2024-01-01">` + artMod + `"2024-02-02">`), "2024-01-01T00:00:00Z", nil},
	{"the first of a meta counts, usable or not",
		inHeadPage(artMod + `"soon">` + artMod + `"2024-02-02">` + ogUpd + `"2023-06-01">`), "2023-06-01T00:00:00Z",
		[]string{`article:modified_time "soon" is not a W3C date`}},
	{"an empty content is none", inHeadPage(artMod + `"">` + artMod + `" ">` + artMod + `"2024-02-02">`), "2024-02-02T00:00:00Z", nil},
	{"no content is none", inHeadPage(`<meta property="article:modified_time">` + ogUpd + `"2024-02-02">`), "2024-02-02T00:00:00Z", nil},
	{"an unusable date falls through", inHeadPage(artMod + `"yesterday">` + ogUpd + `"2024-02-02">`), "2024-02-02T00:00:00Z",
		[]string{`article:modified_time "yesterday" is not a W3C date`}},
	{"a time without zone falls through", inHeadPage(artMod + `"2024-03-05T14:20:00">` + ogUpd + `"2024-02-02">`), "2024-02-02T00:00:00Z",
		[]string{`article:modified_time "2024-03-05T14:20:00" has no time zone`}},
	{"nothing usable", inHeadPage(artMod + `"yesterday">` + ogUpd + `"2024-13-01">` + ldOpen + `{"dateModified":"2024-02-30"}` + ldClose), "",
		[]string{`article:modified_time "yesterday" is not a W3C date`, `og:updated_time "2024-13-01" is not a W3C date`, `JSON-LD dateModified "2024-02-30" is not a W3C date`}},
	{"a meta's unusable date is reported only if read", inHeadPage(artMod + `"2024-02-02">` + ogUpd + `"yesterday">`), "2024-02-02T00:00:00Z", nil},
	{"a long value is clipped", inHeadPage(artMod + `"` + strings.Repeat("x", 100) + `">`), "",
		[]string{`"` + strings.Repeat("x", 64) + `…" is not`}},
	{"character reference", inHeadPage(artMod + `"2024-03-05T14:20:00&#43;01:00">`), "2024-03-05T13:20:00Z", nil},
	{"named character reference", inHeadPage(artMod + `"2024-03-05T14:20:00&plus;01:00">`), "2024-03-05T13:20:00Z", nil},
	{"character references in the property", inHeadPage(`<meta property="article&#58;modified&#x5F;time" content="2024-03-05">`), "2024-03-05T00:00:00Z", nil},
	{"±hhmm, as PHP's DATE_ISO8601 writes it", inHeadPage(artMod + `"2018-10-20T12:40:23+0000" />`), "2018-10-20T12:40:23Z", nil},
	{"±hhmm west", inHeadPage(artMod + `"2018-10-20T12:40:23-0530" />`), "2018-10-20T18:10:23Z", nil},
	{"milliseconds, as Ghost writes them", inHeadPage(artMod + `"2024-01-15T10:30:00.123Z" />`), "2024-01-15T10:30:00.123Z", nil},
	{"a year", inHeadPage(artMod + `"1997">`), "1997-01-01T00:00:00Z", nil},
	{"a month", inHeadPage(artMod + `"1997-07">`), "1997-07-01T00:00:00Z", nil},
	{"the future, as it is", inHeadPage(artMod + `"2999-12-31T23:59:59Z">`), "2999-12-31T23:59:59Z", nil},
	{"published is not modified", inHeadPage(`<meta property="article:published_time" content="2024-03-05">`), "", nil},
	{"microdata is not read", inHeadPage(`<meta itemprop="dateModified" content="2024-03-05">`), "", nil},
	{"the property counts before the name",
		inHeadPage(`<meta property="og:title" name="article:modified_time" content="2024-03-05">`), "2024-03-05T00:00:00Z", nil},
	{"in a template", inHeadPage(`<template>` + artMod + `"2024-03-05"></template>`), "", nil},
	{"in noscript", inHeadPage(`<noscript>` + artMod + `"2024-03-05"></noscript>`), "", nil},
	{"after the head", inHeadPage("") + artMod + `"2024-03-05">`, "", nil},
	{"after text that starts the body", "<title>t</title>Hello " + artMod + `"2024-03-05">`, "", nil},

	// JSON-LD.
	{"JSON-LD object", inHeadPage(ldOpen + `{"@context":"https://schema.org","@type":"BlogPosting","dateModified":"2024-02-01T08:00:00+00:00"}` + ldClose),
		"2024-02-01T08:00:00Z", nil},
	{"JSON-LD type in any case, with parameters",
		inHeadPage(`<script type=" Application/LD+JSON; charset=utf-8">{"dateModified":"2024-02-01"}</script>`), "2024-02-01T00:00:00Z", nil},
	{"JSON-LD type, the first attribute counts",
		inHeadPage(`<script type="text/plain" type="application/ld+json">{"dateModified":"2024-02-01"}</script>`), "", nil},
	{"JSON-LD in a text/javascript script is not",
		inHeadPage(`<script type="text/javascript">var ld = {"dateModified":"2024-02-01"};</script>`), "", nil},
	{"JSON-LD in a script without type is not", inHeadPage(`<script>{"dateModified":"2024-02-01"}</script>`), "", nil},
	{"JSON-LD application/json is not", inHeadPage(`<script type="application/json">{"dateModified":"2024-02-01"}</script>`), "", nil},
	{"JSON-LD array", inHeadPage(ldOpen + `[{"@type":"Organization","url":"https://example.com/"},{"@type":"WebPage","dateModified":"2024-02-01"}]` + ldClose),
		"2024-02-01T00:00:00Z", nil},
	{"JSON-LD @graph: the node about the page",
		inHeadPage(ldOpen + `{"@context":"https://schema.org","@graph":[` +
			`{"@type":"WebPage","@id":"https://example.com/other.html","dateModified":"2020-01-01"},` +
			`{"@type":"Article","@id":"https://example.com/dir/page.html#article","dateModified":"2024-02-01T10:00:00Z"}]}` + ldClose),
		"2024-02-01T10:00:00Z", nil},
	{"JSON-LD @graph: by url",
		inHeadPage(ldOpen + `{"@graph":[{"@type":"ItemList","dateModified":"2020-01-01"},` +
			`{"@type":"WebPage","@id":"#webpage","url":"https://example.com/dir/page.html","dateModified":"2024-02-01"}]}` + ldClose),
		"2024-02-01T00:00:00Z", nil},
	{"JSON-LD @graph: a single object",
		inHeadPage(ldOpen + `{"@graph":{"@type":"WebPage","dateModified":"2024-02-01"}}` + ldClose), "2024-02-01T00:00:00Z", nil},
	{"JSON-LD: the object with the graph before its nodes",
		inHeadPage(ldOpen + `{"@graph":[{"dateModified":"2024-02-01"}],"dateModified":"2023-01-01"}` + ldClose), "2023-01-01T00:00:00Z", nil},
	{"JSON-LD: escaped slashes, as Yoast SEO writes them",
		inHeadPage(ldOpen + `{"@graph":[{"@id":"https:\/\/example.com\/#website","dateModified":"2020-01-01"},` +
			`{"@id":"https:\/\/example.com\/dir\/page.html","dateModified":"2024-02-01"}]}` + ldClose),
		"2024-02-01T00:00:00Z", nil},
	{"JSON-LD: the page's URL in capitals, with its default port",
		inHeadPage(ldOpen + `[{"@id":"https://example.com/","dateModified":"2020-01-01"},{"@id":"HTTPS://EXAMPLE.COM:443/dir/page.html#x","dateModified":"2024-02-01"}]` + ldClose),
		"2024-02-01T00:00:00Z", nil},
	{"JSON-LD: a relative @id, against the page",
		inHeadPage(ldOpen + `[{"@id":"https://example.com/","dateModified":"2020-01-01"},{"@id":"page.html#article","dateModified":"2024-02-01"}]` + ldClose),
		"2024-02-01T00:00:00Z", nil},
	{"JSON-LD: a relative @id, against the base",
		inHeadPage(`<base href="https://example.com/">` + ldOpen + `[{"@id":"page.html","dateModified":"2020-01-01"},{"@id":"dir/page.html","dateModified":"2024-02-01"}]` + ldClose),
		"2024-02-01T00:00:00Z", nil},
	{"JSON-LD: another query is another page",
		inHeadPage(ldOpen + `[{"@id":"https://example.com/dir/page.html?p=2","dateModified":"2020-01-01"},{"@id":"https://example.com/x","dateModified":"2024-02-01"}]` + ldClose),
		"2020-01-01T00:00:00Z", nil},
	{"JSON-LD: no node about the page, the first with a date",
		inHeadPage(ldOpen + `{"@graph":[{"@id":"https://example.com/","name":"site"},{"@id":"https://example.com/a","dateModified":"2020-01-01"},{"@id":"https://example.com/b","dateModified":"2021-01-01"}]}` + ldClose),
		"2020-01-01T00:00:00Z", nil},
	{"JSON-LD: the node about the page without a date does not count",
		inHeadPage(ldOpen + `{"@graph":[{"@id":"https://example.com/dir/page.html"},{"@id":"https://example.com/b","dateModified":"2021-01-01"}]}` + ldClose),
		"2021-01-01T00:00:00Z", nil},
	{"JSON-LD: the node about the page in a later script",
		inHeadPage(ldOpen + `{"@id":"https://example.com/","dateModified":"2019"}` + ldClose + ldOpen + `{"url":"https://example.com/dir/page.html","dateModified":"2024-02-01"}` + ldClose),
		"2024-02-01T00:00:00Z", nil},
	{"JSON-LD: the node about the page, its date unusable",
		inHeadPage(ldOpen + `[{"dateModified":"2020-01-01"},{"url":"https://example.com/dir/page.html","dateModified":"last week"}]` + ldClose),
		"", []string{`JSON-LD dateModified "last week" is not a W3C date`}},
	{"JSON-LD: dateModified an array", inHeadPage(ldOpen + `{"dateModified":["2024-02-01T10:00:00Z","2023-01-01"]}` + ldClose), "2024-02-01T10:00:00Z", nil},
	{"JSON-LD: dateModified a number", inHeadPage(ldOpen + `{"dateModified":20240201}` + ldClose), "",
		[]string{`JSON-LD dateModified 20240201 is not a string`}},
	{"JSON-LD: dateModified null, empty", inHeadPage(ldOpen + `[{"dateModified":null},{"dateModified":""},{"dateModified":[]},{"dateModified":"2024-02-01"}]` + ldClose),
		"2024-02-01T00:00:00Z", nil},
	{"JSON-LD: keys are case-sensitive", inHeadPage(ldOpen + `{"DateModified":"2024-02-01","datemodified":"2024-02-01"}` + ldClose), "", nil},
	{"JSON-LD: character references are not decoded in a script",
		inHeadPage(ldOpen + `{"dateModified":"2024-02-01T10:00:00&#43;01:00"}` + ldClose), "",
		[]string{`JSON-LD dateModified "2024-02-01T10:00:00&#43;01:00" is not a W3C date`}},
	{"JSON-LD: </script> escaped in a string",
		inHeadPage(ldOpen + `{"headline":"a <\/script> b","dateModified":"2024-02-01"}` + ldClose), "2024-02-01T00:00:00Z", nil},
	{"JSON-LD: invalid", inHeadPage(ldOpen + `{"dateModified": "2024-02-01",}` + ldClose), "", []string{"JSON-LD script ignored: invalid character '}'"}},
	{"JSON-LD: invalid, then valid", inHeadPage(ldOpen + `{"dateModified": ` + ldClose + ldOpen + `{"dateModified":"2024-02-01"}` + ldClose),
		"2024-02-01T00:00:00Z", []string{"JSON-LD script ignored: unexpected end of JSON input"}},
	{"JSON-LD: invalid, and a meta", inHeadPage(ldOpen + `not json` + ldClose + ogUpd + `"2024-02-01">`), "2024-02-01T00:00:00Z",
		[]string{"JSON-LD script ignored: invalid character 'o' in literal null"}},
	{"JSON-LD: trailing garbage", inHeadPage(ldOpen + `{"dateModified":"2024-02-01"} x` + ldClose), "", []string{"JSON-LD script ignored: invalid character 'x' after top-level value"}},
	{"JSON-LD: empty", inHeadPage(ldOpen + ldClose + ldOpen + " \n " + ldClose), "", nil},
	{"JSON-LD: neither object nor array", inHeadPage(ldOpen + `"2024-02-01"` + ldClose), "", nil},
	{"JSON-LD: arrays in arrays are not nodes", inHeadPage(ldOpen + `[[{"dateModified":"2024-02-01"}], 3, "x"]` + ldClose), "", nil},
	{"JSON-LD in a template", inHeadPage(`<template>` + ldOpen + `{"dateModified":"2024-02-01"}` + ldClose + `</template>`), "", nil},
	{"JSON-LD after <body>", inHeadPage("") + ldOpen + `{"dateModified":"2024-02-01"}` + ldClose, "", nil},
	{"JSON-LD in a body without </head>", `<title>t</title><body>` + ldOpen + `{"dateModified":"2024-02-01"}` + ldClose, "", nil},
	{"JSON-LD after text that starts the body", `<title>t</title>Hello ` + ldOpen + `{"dateModified":"2024-02-01"}` + ldClose, "", nil},
	{"JSON-LD only, no meta, link or base", `<title>t</title>` + ldOpen + `{"dateModified":"2024-02-01"}` + ldClose, "2024-02-01T00:00:00Z", nil},
}

// TestModified reads the modification date of heads, and checks the
// problems reported on the way.
func TestModified(t *testing.T) {
	for _, tc := range modifiedCases {
		t.Run(tc.name, func(t *testing.T) {
			var want time.Time
			if tc.want != "" {
				var err error
				if want, err = time.Parse(time.RFC3339Nano, tc.want); err != nil {
					t.Fatal(err)
				}
			}
			info, err := ReadBytes([]byte(tc.page), page)
			if err != nil {
				t.Fatal(err)
			}
			if !info.Modified.Equal(want) || info.Modified.Location() != time.UTC {
				t.Errorf("Modified %v, want %v (in UTC)", info.Modified, want)
			}
			ok := len(info.Problems) == len(tc.problems)
			for i := 0; ok && i < len(tc.problems); i++ {
				ok = strings.Contains(info.Problems[i], tc.problems[i])
			}
			if !ok {
				t.Errorf("problems %q, want %q", info.Problems, tc.problems)
			}
		})
	}
}

// TestModifiedSamples reads pages as Hugo, WordPress with Yoast SEO and
// Ghost write them (testdata): each one's date is the one written in it,
// read with time.Parse.
func TestModifiedSamples(t *testing.T) {
	for _, tc := range []struct {
		file, layout, value string
	}{
		// Hugo's embedded _partials/opengraph.html and schema.html, for
		// a page with a lastmod: both written with Go's layout
		// "2006-01-02T15:04:05-07:00".
		{"hugo-opengraph.html", time.RFC3339, "2024-03-05T14:20:00+01:00"},
		{"hugo-schema.html", time.RFC3339, "2023-11-20T08:00:00-05:00"},
		// Yoast SEO: article:modified_time and the @graph's Article and
		// WebPage, all the same.
		{"yoast.html", time.RFC3339, "2025-04-10T18:40:08+00:00"},
		// Yoast SEO without Open Graph: the @graph only, its WebPage
		// about the page, its Article first.
		{"yoast-schema-only.html", time.RFC3339, "2023-07-02T09:15:27+00:00"},
		// Ghost's {{ghost_head}}: milliseconds and Z.
		{"ghost.html", time.RFC3339Nano, "2024-01-15T10:30:00.000Z"},
		// PHP's DATE_ISO8601, as some WordPress themes write it.
		{"wordpress-iso8601.html", "2006-01-02T15:04:05Z0700", "2018-10-20T12:40:23+0200"},
		// A month 25 in the wild: og:updated_time serves instead.
		{"typo-month.html", time.RFC3339, "2025-01-08T14:16:03+00:00"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			want, err := time.Parse(tc.layout, tc.value)
			if err != nil {
				t.Fatal(err)
			}
			src, err := os.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(src), tc.value) {
				t.Fatalf("%s does not say %s", tc.file, tc.value)
			}
			info, err := ReadBytes(src, page)
			if err != nil {
				t.Fatal(err)
			}
			if !info.Modified.Equal(want) {
				t.Errorf("Modified %v, want %v", info.Modified, want.UTC())
			}
		})
	}
}

// w3cDate is the grammar of https://www.w3.org/TR/NOTE-datetime, plus a
// zone without a colon (±hhmm) and a time without zone (to be refused),
// written from the note: the year, month, day, hour and minute, the
// seconds and fraction, and the zone.
var w3cDate = regexp.MustCompile(`^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(:\d{2}(?:\.\d+)?)?(Z|[+-](\d{2}):?(\d{2}))?)?)?)?$`)

// oracleDate parses a value with time.Parse, on the layout its form asks
// for, as parseDate must: the same instant, or the same refusal.
func oracleDate(v string) (time.Time, error) {
	v = strings.Trim(v, htmlSpace)
	m := w3cDate.FindStringSubmatch(v)
	if m == nil {
		return time.Time{}, errNotDate
	}
	var layout string
	switch {
	case m[2] == "":
		layout = "2006"
	case m[3] == "":
		layout = "2006-01"
	case m[4] == "":
		layout = "2006-01-02"
	default:
		layout = "2006-01-02T15:04"
		if m[6] != "" {
			layout += ":05" // time.Parse reads a fraction after it by itself
		}
	}
	zone := m[7]
	switch {
	case m[4] != "" && zone == "":
		if _, err := time.Parse(layout, v); err != nil {
			return time.Time{}, errNotDate
		}
		return time.Time{}, errNoZone
	case zone == "Z" || strings.Contains(zone, ":"):
		layout += "Z07:00"
	case zone != "":
		layout += "Z0700"
	}
	// RFC 3339's time-numoffset: hours 00-23, minutes 00-59.
	if zone != "" && zone != "Z" && (m[8] > "23" || m[9] > "59") {
		return time.Time{}, errNotDate
	}
	t, err := time.Parse(layout, v)
	if err != nil {
		return time.Time{}, errNotDate
	}
	// A W3C date has four digits of year: an instant the zone carries
	// out of them has no W3C date in UTC.
	if y := t.UTC().Year(); y < 0 || y > 9999 {
		return time.Time{}, errNotDate
	}
	return t.UTC(), nil
}

// TestParseDate reads the W3C note's examples and others, and checks each
// against time.Parse.
func TestParseDate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // RFC 3339, or the error
	}{
		// https://www.w3.org/TR/NOTE-datetime's examples, a year and a
		// month as their first instant in UTC (sitemaps.org allows them
		// in <lastmod>).
		{"1997", "1997-01-01T00:00:00Z"},
		{"1997-07", "1997-07-01T00:00:00Z"},
		{"1997-07-16", "1997-07-16T00:00:00Z"},
		{"1997-07-16T19:20+01:00", "1997-07-16T18:20:00Z"},
		{"1997-07-16T19:20:30+01:00", "1997-07-16T18:20:30Z"},
		{"1997-07-16T19:20:30.45+01:00", "1997-07-16T18:20:30.45Z"},
		// The note: "1994-11-05T08:15:30-05:00 corresponds to November
		// 5, 1994, 8:15:30 am, US Eastern Standard Time" and
		// "1994-11-05T13:15:30Z corresponds to the same instant".
		{"1994-11-05T08:15:30-05:00", "1994-11-05T13:15:30Z"},
		{"1994-11-05T13:15:30Z", "1994-11-05T13:15:30Z"},
		// sitemaps.org's examples.
		{"2005-01-01", "2005-01-01T00:00:00Z"},
		{"2004-12-23T18:00:15+00:00", "2004-12-23T18:00:15Z"},
		{"2004-11-23", "2004-11-23T00:00:00Z"},
		// ±hhmm.
		{"2018-10-20T12:40:23+0000", "2018-10-20T12:40:23Z"},
		{"2018-10-20T12:40:23+0530", "2018-10-20T07:10:23Z"},
		{"2018-10-20T12:40-0100", "2018-10-20T13:40:00Z"},
		// Fractions: nanoseconds, and truncated past them.
		{"2024-01-02T03:04:05.123456789Z", "2024-01-02T03:04:05.123456789Z"},
		{"2024-01-02T03:04:05.1234567899Z", "2024-01-02T03:04:05.123456789Z"},
		{"2024-01-02T03:04:05.5-00:00", "2024-01-02T03:04:05.5Z"},
		// Calendar edges.
		{"2024-02-29", "2024-02-29T00:00:00Z"},
		{"2000-02-29T23:59:59+23:59", "2000-02-29T00:00:59Z"},
		{"0000-01-01", "0000-01-01T00:00:00Z"},
		// A zone that carries the instant out of the four-digit years:
		// no W3C date can say it, so no lastmod can either.
		{"9999-12-31T23:59:59-23:59", errNotDate.Error()},
		{"0000-01-01T00:00+0100", errNotDate.Error()},
		{"0000-01-01T00:00+00:00", "0000-01-01T00:00:00Z"},
		{" 2024-01-02\n", "2024-01-02T00:00:00Z"},

		{"2024-01-02T03:04", errNoZone.Error()},
		{"2024-01-02T03:04:05", errNoZone.Error()},
		{"2024-01-02T03:04:05.678", errNoZone.Error()},

		{"", errNotDate.Error()},
		{"yesterday", errNotDate.Error()},
		{"97", errNotDate.Error()},
		{"19970", errNotDate.Error()},
		{"1997-7", errNotDate.Error()},
		{"1997-07-1", errNotDate.Error()},
		{"1997-13", errNotDate.Error()},
		{"1997-00", errNotDate.Error()},
		{"2023-02-29", errNotDate.Error()},
		{"2024-04-31", errNotDate.Error()},
		{"2024-01-00", errNotDate.Error()},
		{"20240102", errNotDate.Error()},
		{"2024-01-02 03:04:05+00:00", errNotDate.Error()},
		{"2024-01-02t03:04:05z", errNotDate.Error()},
		{"2024-01-02T03:04:05,5Z", errNotDate.Error()},
		{"2024-01-02T03:04:05.Z", errNotDate.Error()},
		{"2024-01-02T24:00:00Z", errNotDate.Error()},
		{"2024-01-02T23:60:00Z", errNotDate.Error()},
		{"2024-01-02T23:59:60Z", errNotDate.Error()},
		{"2024-01-02T03Z", errNotDate.Error()},
		{"2024-01-02T03:04:5Z", errNotDate.Error()},
		{"2024-01-02T03:04:05+01", errNotDate.Error()},
		{"2024-01-02T03:04:05+1:00", errNotDate.Error()},
		{"2024-01-02T03:04:05+24:00", errNotDate.Error()},
		{"2024-01-02T03:04:05+01:60", errNotDate.Error()},
		{"2024-01-02T03:04:05+01:00Z", errNotDate.Error()},
		{"2024-01-02T03:04:05 +01:00", errNotDate.Error()},
		{"2024-01-02T03:04:05UTC", errNotDate.Error()},
		{"2024-01-02Z", errNotDate.Error()},
		{"+2024-01-02", errNotDate.Error()},
		{"２０２４-01-02", errNotDate.Error()},
		{"Tue, 02 Jan 2024 03:04:05 GMT", errNotDate.Error()},
	} {
		got, err := parseDate(tc.in)
		var res string
		if err != nil {
			res = err.Error()
		} else {
			res = got.Format(time.RFC3339Nano)
			if got.Location() != time.UTC {
				t.Errorf("%q: in %v, not UTC", tc.in, got.Location())
			}
		}
		if res != tc.want {
			t.Errorf("%q: %s, want %s", tc.in, res, tc.want)
		}
		// time.Parse on the layout the value's form asks for agrees.
		o, oerr := oracleDate(tc.in)
		if !errors.Is(err, oerr) || !got.Equal(o) {
			t.Errorf("%q: %v, %v; time.Parse: %v, %v", tc.in, got, err, o, oerr)
		}
	}
}

// TestParseDateAllocs checks that reading a date costs no allocation.
func TestParseDateAllocs(t *testing.T) {
	for _, v := range []string{"2024-01-02", "1997-07-16T19:20:30.45+01:00", "yesterday", "2024-01-02T03:04"} {
		if n := testing.AllocsPerRun(100, func() { _, _ = parseDate(v) }); n != 0 {
			t.Errorf("%q: %v allocations", v, n)
		}
	}
}

// FuzzParseDate checks parseDate against time.Parse on any string.
func FuzzParseDate(f *testing.F) {
	for _, s := range []string{"1997", "1997-07", "1997-07-16", "1997-07-16T19:20+01:00", "1997-07-16T19:20:30+01:00",
		"1997-07-16T19:20:30.45+01:00", "2018-10-20T12:40:23+0000", "2024-01-02T03:04:05", "2024-02-30", "2024-01-02T03:04:05+24:00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseDate(s)
		want, werr := oracleDate(s)
		if !errors.Is(err, werr) || !got.Equal(want) || (err == nil && got.Location() != time.UTC) {
			t.Errorf("%q: %v, %v; time.Parse: %v, %v", s, got, err, want, werr)
		}
	})
}

// TestDateSourcesCost checks that heads without a date cost no more for
// the dates being looked for: a property that is not a date's is compared,
// not copied (it costs what an attribute not read costs), and a script
// without a type has its attributes not read, as a style's are not.
func TestDateSourcesCost(t *testing.T) {
	if raceEnabled {
		t.Skip("allocations vary under the race detector (sync.Pool)")
	}
	allocs := func(head string) float64 {
		src := []byte(inHeadPage(head))
		return testing.AllocsPerRun(50, func() {
			if _, err := Read(bytes.NewReader(src), page); err != nil {
				t.Fatal(err)
			}
		})
	}
	for _, tc := range []struct{ head, like string }{
		{`<meta property="og:image" content="https://example.com/i.png">`, `<meta data-xxxxxx="og:image" content="https://example.com/i.png">`},
		{`<meta property="og:updated_time" content="">`, `<meta data-xxxxxx="og:updated_time" content="">`},
		{`<script src="/static/site.js" defer></script>`, `<style xxx="/static/site.js" defer></style>`},
	} {
		if a, b := allocs(tc.head), allocs(tc.like); a != b {
			t.Errorf("%s: %v allocations; %s: %v", tc.head, a, tc.like, b)
		}
	}
}
