package head

import (
	"bufio"
	"html"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// wptCase is one case of testdata/refresh-wpt.txt: a content attribute
// and what a browser does with it.
type wptCase struct {
	line    int
	content string
	ignored bool   // the browser does not refresh
	delay   int    // otherwise, after this many seconds
	url     string // to this URL, relative to wptPage
}

// wptPage is the URL of the page the web-platform-tests cases run in.
const wptPage = "https://web-platform.test/html/semantics/document-metadata/the-meta-element/pragma-directives/attr-meta-http-equiv-refresh/support/refresh.sub.html"

var wptExpect = regexp.MustCompile(`^\[(?:(\d+), ("(?:[^"\\]|\\.)*"))?\]$`)

func readWPT(t *testing.T) []wptCase {
	t.Helper()
	f, err := os.Open("testdata/refresh-wpt.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []wptCase
	s := bufio.NewScanner(f)
	for n := 1; s.Scan(); n++ {
		line := s.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		quoted, expect, ok := strings.Cut(line, "\t")
		content, err := strconv.Unquote(quoted)
		m := wptExpect.FindStringSubmatch(expect)
		if !ok || err != nil || m == nil {
			t.Fatalf("refresh-wpt.txt:%d: cannot read %q", n, line)
		}
		c := wptCase{line: n, content: content, ignored: m[1] == ""}
		if !c.ignored {
			c.delay, _ = strconv.Atoi(m[1])
			c.url, _ = strconv.Unquote(m[2])
		}
		cases = append(cases, c)
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 60 {
		t.Fatalf("refresh-wpt.txt: %d cases", len(cases))
	}
	return cases
}

// TestRefreshWPT reads the content attributes of the web-platform-tests
// cases as a browser must, first with parseRefresh alone, then as a whole
// page's head.
func TestRefreshWPT(t *testing.T) {
	doc, err := url.Parse(wptPage)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range readWPT(t) {
		name := strconv.Quote(c.content)
		// Where the browser goes, resolved; wptPage for a reload.
		var want string
		if !c.ignored {
			u, err := resolve(doc, c.url)
			if err != nil {
				t.Fatalf("line %d: expected URL %q: %v", c.line, c.url, err)
			}
			want = u.String()
		}

		delay, u, hasURL, ok := parseRefresh(c.content)
		switch {
		case c.ignored && ok:
			t.Errorf("%s: parsed as a refresh after %d s to %q (has URL %v); a browser ignores it", name, delay, u, hasURL)
		case !c.ignored && !ok:
			t.Errorf("%s: not parsed; a browser refreshes after %d s to %q", name, c.delay, c.url)
		case !c.ignored:
			got := wptPage
			if hasURL && clean(u) != "" {
				r, err := resolve(doc, u)
				if err != nil {
					t.Errorf("%s: URL %q: %v", name, u, err)
					continue
				}
				got = r.String()
			}
			if delay != c.delay || got != want {
				t.Errorf("%s: refresh after %d s to %q (%s); a browser's is after %d s to %q (%s)", name, delay, u, got, c.delay, c.url, want)
			}
		}

		// The same content in a page: a redirect where the browser goes
		// to another page within a second.
		src := `<!doctype html><html><head><meta http-equiv="refresh" content="` + html.EscapeString(c.content) + `"><title>t</title></head>`
		info, err := ReadBytes([]byte(src), wptPage)
		if err != nil {
			t.Fatal(err)
		}
		wantRedirect := ""
		if !c.ignored && c.delay <= 1 && want != wptPage {
			wantRedirect = want
		}
		if info.Redirect != wantRedirect || len(info.Problems) > 0 {
			t.Errorf("%s in a page: Redirect %q, problems %q; want %q", name, info.Redirect, info.Problems, wantRedirect)
		}
	}
}

// TestRedirect checks which meta refreshes make a page a redirect, and to
// where: the cases the web-platform-tests table does not have (longer
// delays, several refreshes, <base>, the page itself), with the outcomes
// the HTML Living Standard's refresh steps give.
func TestRedirect(t *testing.T) {
	const refresh = `<meta http-equiv="refresh" content=`
	for _, tc := range []struct {
		name, head string
		want       string
		problem    string // a substring of the one problem expected
	}{
		{"rustdoc stub", refresh + `"0;URL=../foo/index.html">`, "https://example.com/foo/index.html", ""},
		{"one second", refresh + `"1; url=/a">`, "https://example.com/a", ""},
		{"two seconds", refresh + `"2; url=/a">`, "", ""},
		{"a long wait", refresh + `"99999999999999999999; url=/a">`, "", ""},
		{"reload", refresh + `"0">`, "", ""},
		{"empty URL", refresh + `"0; url=">`, "", ""},
		{"empty quoted URL", refresh + `"0; url=''">`, "", ""},
		{"the page itself", refresh + `"0; url=page.html">`, "", ""},
		{"the page itself, a fragment of it", refresh + `"0; url=#top">`, "", ""},
		{"the page itself, host in capitals, default port", refresh + `"0; url=HTTPS://EXAMPLE.COM:443/dir/page.html">`, "", ""},
		{"the page with a query", refresh + `"0; url=page.html?lang=de">`, "https://example.com/dir/page.html?lang=de", ""},
		{"fragment dropped", refresh + `"0; url=other.html#part">`, "https://example.com/dir/other.html", ""},
		{"absolute", refresh + `"0; url=https://elsewhere.example/">`, "https://elsewhere.example/", ""},
		{"http-equiv in capitals", `<META HTTP-EQUIV="REFRESH" CONTENT="0; URL=/a">`, "https://example.com/a", ""},
		{"http-equiv with spaces is another keyword", `<meta http-equiv=" refresh" content="0; url=/a">`, "", ""},
		{"no content", `<meta http-equiv="refresh">`, "", ""},
		{"first refresh counts", refresh + `"0; url=/a">` + refresh + `"0; url=/b">`, "https://example.com/a", ""},
		{"a slow refresh first", refresh + `"5; url=/a">` + refresh + `"0; url=/b">`, "", ""},
		{"a reload first", refresh + `"0">` + refresh + `"0; url=/b">`, "", ""},
		{"an unparsable refresh first", refresh + `"soon">` + refresh + `"0; url=/b">`, "https://example.com/b", ""},
		{"an empty refresh first", refresh + `"">` + refresh + `"0; url=/b">`, "https://example.com/b", ""},
		{"base before", `<base href="https://cdn.example/x/">` + refresh + `"0; url=y">`, "https://cdn.example/x/y", ""},
		{"base after", refresh + `"0; url=y"><base href="https://cdn.example/x/">`, "https://example.com/dir/y", ""},
		{"base before, the page itself", `<base href="/">` + refresh + `"0; url=dir/page.html">`, "", ""},
		{"spaces and quotes", refresh + `"0; URL = ' ../a b.html '">`, "https://example.com/a%20b.html", ""},
		{"tabs and newlines in the URL", refresh + `"0; url=/a&#9;b&#10;c">`, "https://example.com/abc", ""},
		{"not http", refresh + `"0; url=mailto:someone@example.com">`, "", "not an http(s) URL"},
		{"in a template", `<template>` + refresh + `"0; url=/a"></template>`, "", ""},
		// Read as a browser without scripts reads it (sphinx-reredirects'
		// stubs): a redirect for every client that runs no script.
		{"in noscript", `<noscript>` + refresh + `"0; url=/a"></noscript>`, "https://example.com/a", ""},
		{"in noscript, after another refresh", refresh + `"5"><noscript>` + refresh + `"0; url=/a"></noscript>`, "", ""},
		{"after the head", `</head><body>` + refresh + `"0; url=/a">`, "", ""},
		{"with a name too", `<meta name="robots" http-equiv="refresh" content="0; url=/a">`, "https://example.com/a", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "<!doctype html><html><head><title>t</title>" + tc.head + "</head><body>text"
			info, err := Read(strings.NewReader(src), page)
			if err != nil {
				t.Fatal(err)
			}
			if info.Redirect != tc.want {
				t.Errorf("Redirect %q, want %q", info.Redirect, tc.want)
			}
			switch {
			case tc.problem == "" && len(info.Problems) > 0:
				t.Errorf("problems %q", info.Problems)
			case tc.problem != "" && (len(info.Problems) != 1 || !strings.Contains(info.Problems[0], tc.problem)):
				t.Errorf("problems %q, want one saying %q", info.Problems, tc.problem)
			}
		})
	}
}
