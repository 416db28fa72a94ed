package robots

import (
	"bufio"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jimsmart/grobotstxt"

	"github.com/sitemapd/sitemapd/internal/siteurl"
)

// googleDir holds the outside oracle: robots.txt files as sites write
// them (robots/), the agents and site paths asked about, and what
// Google's own C++ matcher, github.com/google/robotstxt, answered
// (verdicts.tsv, written by regen.sh with driver.cc).
const googleDir = "testdata/google"

// googleLines returns the lines of a file of googleDir that are neither
// blank nor comments, split at tabs.
func googleLines(t *testing.T, name string) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join(googleDir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := sc.Text(); l != "" && l[0] != '#' {
			lines = append(lines, strings.Split(l, "\t"))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// TestGoogleVerdicts holds Rules to Google's own matcher, the C++
// library Googlebot runs, and not to its Go port, grobotstxt, which the
// other tests of this package ask: where the port errs, as it did with
// lower-case escapes in patterns, Rules that follow it agree with those
// tests and err too. Every robots.txt of testdata/google/robots, loaded
// as the daemon loads it for each agent of agents.txt, must answer for
// each site path of paths.txt as verdicts.tsv says Google's matcher did.
// Each disagreement is printed.
func TestGoogleVerdicts(t *testing.T) {
	agents := googleLines(t, "agents.txt")
	paths := googleLines(t, "paths.txt")
	files, err := filepath.Glob(filepath.Join(googleDir, "robots", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no robots.txt in %s/robots: %v", googleDir, err)
	}

	type query struct{ file, agent, path string }
	verdicts := map[query]bool{} // allowed
	for _, l := range googleLines(t, "verdicts.tsv") {
		if len(l) != 4 || (l[3] != "allow" && l[3] != "disallow") {
			t.Fatalf("verdicts.tsv: bad line %q", strings.Join(l, "\t"))
		}
		q := query{l[0], l[1], l[2]}
		if _, dup := verdicts[q]; dup {
			t.Fatalf("verdicts.tsv: %v twice", q)
		}
		verdicts[q] = l[3] == "allow"
	}
	// verdicts.tsv answers exactly what the corpus asks: a robots.txt,
	// agent or path added without running regen.sh is an error, not a
	// question left out.
	if want := len(files) * len(agents) * len(paths); len(verdicts) != want {
		t.Errorf("verdicts.tsv has %d verdicts, the corpus asks %d (%d files × %d agents × %d paths): run regen.sh",
			len(verdicts), want, len(files), len(agents), len(paths))
	}

	n, wrong, wrongOracle := 0, 0, 0
	for _, file := range files {
		body, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(file)
		for _, a := range agents {
			agent := a[0]
			r, _ := loadRules(t, string(body), agent)
			for _, p := range paths {
				q := query{name, agent, p[0]}
				want, ok := verdicts[q]
				if !ok {
					t.Errorf("verdicts.tsv has no verdict for %s, agent %q, %s: run regen.sh", name, agent, p[0])
					continue
				}
				n++
				if got := r.Allowed(q.path); got != want {
					wrong++
					t.Errorf("%s, agent %q: Allowed(%q) = %v, Google's matcher says %v (its Go port, grobotstxt, says %v)",
						name, agent, q.path, got, want, grobotstxt.AgentAllowed(string(body), agent, "https://static.test"+q.path))
				}
				// The other tests' oracle must agree too, or they hold
				// Rules to a wrong answer.
				if got := oracle(string(body), agent, q.path); got != want {
					wrongOracle++
					t.Errorf("%s, agent %q, %q: the tests' oracle (grobotstxt, escapes upper-cased) says %v, Google's matcher says %v",
						name, agent, q.path, got, want)
				}
				if !want && r.AllowsAll() {
					t.Errorf("%s, agent %q: AllowsAll, but Google disallows %q", name, agent, q.path)
				}
			}
		}
	}
	t.Logf("%d of Google's verdicts compared (%d robots.txt × %d agents × %d paths): Rules disagree with %d, the tests' oracle with %d",
		n, len(files), len(agents), len(paths), wrong, wrongOracle)
}

// TestGooglePaths: the paths asked about are those sitemapd lists. Each
// line of paths.txt that names a page's file holds the site path of the
// URL sitemapd gives it, and the pages include names that are not ASCII
// (UTF-8, decomposed, Latin-1) and names with bytes siteurl leaves as
// they are and robots.txt patterns treat specially ('*', '$').
func TestGooglePaths(t *testing.T) {
	cfg := loadConfig(t, t.TempDir(), "*", "")
	loc := siteurl.New(cfg)
	base := strings.TrimSuffix(cfg.BaseURL, "/")
	pages, nonASCII := 0, 0
	seen := map[string]bool{}
	for _, l := range googleLines(t, "paths.txt") {
		p := l[0]
		if seen[p] {
			t.Errorf("paths.txt: %q twice", p)
		}
		seen[p] = true
		if len(l) < 2 {
			continue
		}
		file, err := strconv.Unquote(l[1])
		if err != nil {
			t.Fatalf("paths.txt: %q: %v", l[1], err)
		}
		dir, name := path.Split(file)
		u := loc.Loc(loc.PagePath(strings.TrimSuffix(dir, "/"), name))
		if got := strings.TrimPrefix(u, base); got != p {
			t.Errorf("paths.txt: %q is served at %q, not %q", file, got, p)
		}
		pages++
		if strings.ContainsFunc(file, func(r rune) bool { return r > 0x7f }) {
			nonASCII++
		}
	}
	if pages < 60 || nonASCII < 20 {
		t.Errorf("paths.txt names %d pages, %d of them not ASCII: too few to stand for a site", pages, nonASCII)
	}
	t.Logf("%d paths, %d of them pages (%d with names that are not ASCII)", len(seen), pages, nonASCII)
}

// TestUpperEscapes: escapes are upper-cased as Google's parser does it to
// a pattern, in the bytes of a line that it reads, and a file without a
// lower-case escape is not copied. The answers for the long lines are
// those of Google's C++ matcher (by hand, with driver.cc): an escape cut
// by the line limit stays as it is written.
func TestUpperEscapes(t *testing.T) {
	for in, want := range map[string]string{
		"":                               "",
		"Disallow: /caf%c3%a9/":          "Disallow: /caf%C3%A9/",
		"Disallow: /%C3%9cber%2f%7e":     "Disallow: /%C3%9Cber%2F%7E",
		"Disallow: /%%aa%a%%zz%e":        "Disallow: /%%AA%a%%zz%e",
		"Disallow: /%aaa%bb":             "Disallow: /%AAa%BB",
		"\xef\xbb\xbfDisallow: /%e9\r\n": "\xef\xbb\xbfDisallow: /%E9\r\n",
		"Disallow: /%c\n3 %e\r9%ff":      "Disallow: /%c\n3 %e\r9%FF",
		"# %ab\nUser-agent: a%bcd":       "# %AB\nUser-agent: a%BCd",
	} {
		if got := string(upperEscapes([]byte(in))); got != want {
			t.Errorf("upperEscapes(%q) = %q, want %q", in, got, want)
		}
	}
	same := []byte("User-agent: *\nDisallow: /caf%C3%A9/\nDisallow: /café/\n")
	if got := upperEscapes(same); &got[0] != &same[0] {
		t.Errorf("a file without lower-case escapes was copied")
	}

	const prefix = "Disallow: /x/"
	for _, tc := range []struct {
		name       string
		bom        string
		fill       int // bytes of 'a' between prefix and the escape
		allow, dis []string
	}{
		// The line's 16,663rd byte is the 'c': "%c" is read, "3/" is not.
		{"escape cut", "", maxLine - len(prefix) - 2, []string{"%C3/"}, []string{"%c3/", "%cz"}},
		{"escape cut after a BOM", "\xef\xbb\xbf", maxLine - len(prefix) - 2, []string{"%C3/"}, []string{"%c3/", "%cz"}},
		// One byte earlier, the escape is read whole.
		{"escape whole", "", maxLine - len(prefix) - 3, []string{"%c3"}, []string{"%C3"}},
	} {
		body := tc.bom + "User-agent: *\n" + prefix + strings.Repeat("a", tc.fill) + "%c3/\n"
		r := parse([]byte(body), "*")
		for _, tail := range tc.allow {
			if p := "/x/" + strings.Repeat("a", tc.fill) + tail; !r.Allowed(p) || !oracle(body, "*", p) {
				t.Errorf("%s: …%s disallowed (Rules %v, oracle %v)", tc.name, tail, !r.Allowed(p), !oracle(body, "*", p))
			}
		}
		for _, tail := range tc.dis {
			if p := "/x/" + strings.Repeat("a", tc.fill) + tail; r.Allowed(p) || oracle(body, "*", p) {
				t.Errorf("%s: …%s allowed (Rules %v, oracle %v)", tc.name, tail, r.Allowed(p), oracle(body, "*", p))
			}
		}
	}
}
