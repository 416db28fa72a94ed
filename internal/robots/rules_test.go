package robots

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jimsmart/grobotstxt"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/outname"
)

// oracle is Google's answer for a site path: that of grobotstxt, the Go
// port of Google's robots.txt parser and matcher, which parses the whole
// file for each URL, asked about the file as googleEscapes gives it, past
// the port's known error. It reads at most maxSize bytes of the file, as
// Google's crawler does (the library itself has no limit). The port is
// not the last word: TestGoogleVerdicts holds Rules, and this oracle, to
// the answers of Google's own C++ matcher.
func oracle(body, agent, sitePath string) bool {
	if len(body) > maxSize {
		body = body[:maxSize]
	}
	return grobotstxt.AgentAllowed(googleEscapes(body), agent, "http://static.test"+sitePath)
}

var (
	hexEscape = regexp.MustCompile(`%[0-9A-Fa-f]{2}`)
	lineEnd   = regexp.MustCompile(`\r\n?|\n`)
)

// googleEscapes returns a robots.txt with the hex digits of its
// percent-escapes in upper case, as Google's parser normalises each
// pattern ("%c3%a9" is "%C3%A9"), for grobotstxt: its own normalisation
// turns the digits 0-9 into control bytes, and the patterns that hold a
// lower-case escape into ones no URL matches. Rules do the same
// (upperEscapes); this is written apart, with regular expressions, so
// that the fuzz test checks one with the other: each line, as Google's
// parser reads it (after a BOM, even a partial one, and no more than its
// first 2083 × 8 - 1 bytes), has its escapes upper-cased.
func googleEscapes(body string) string {
	var b strings.Builder
	bom := 0
	for bom < len(body) && bom < len(utf8BOM) && body[bom] == utf8BOM[bom] {
		bom++
	}
	b.WriteString(body[:bom])
	for rest := body[bom:]; rest != ""; {
		line, end := rest, ""
		rest = ""
		if loc := lineEnd.FindStringIndex(line); loc != nil {
			line, end, rest = line[:loc[0]], line[loc[0]:loc[1]], line[loc[1]:]
		}
		read := min(len(line), 2083*8-1)
		b.WriteString(hexEscape.ReplaceAllStringFunc(line[:read], strings.ToUpper))
		b.WriteString(line[read:])
		b.WriteString(end)
	}
	return b.String()
}

// sitePath is the path (and query) that grobotstxt matches for a URL, in
// the form Rules.Allowed takes: percent-encoded, with a leading slash.
func sitePath(t testing.TB, rawURL string) string {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatalf("%q: %v", rawURL, err)
	}
	p := u.EscapedPath()
	if u.RawQuery != "" || u.ForceQuery {
		p += "?" + u.RawQuery
	}
	if p == "" || p[0] != '/' {
		p = "/" + p
	}
	return p
}

// loadRules loads body as a docroot's robots.txt with a configuration
// whose pages.robots_agent is agent, as the daemon does.
func loadRules(t testing.TB, body, agent string) (Rules, *observer.ObservedLogs) {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, outname.RobotsName), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := loadConfig(t, root, agent, "")
	core, logs := observer.New(zap.WarnLevel)
	return Load(cfg, zap.New(core)), logs
}

func loadConfig(t testing.TB, root, agent, extra string) *config.Config {
	t.Helper()
	yml := fmt.Sprintf("root: %q\nbase_url: https://static.test/\npages:\n  robots_txt: true\n  robots_agent: %q\n%s", root, agent, extra)
	cfg, err := config.Load([]byte(yml), filepath.Join(root, "sitemapd.yml"))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

type robotsCase struct {
	name  string
	body  string
	agent string
	urls  []string // full URLs or site paths
}

// long returns a robots.txt line of about n bytes.
func long(prefix string, n int, fill string) string {
	var b strings.Builder
	b.WriteString(prefix)
	for b.Len() < n {
		b.WriteString(fill)
	}
	return b.String()
}

// cases are robots.txt files, agents and URLs: the shapes met on real
// sites, then those of Google's robots_test.cc (by way of grobotstxt's
// robots_test.go), each assertion there one tuple here. The expected
// answers are not written down: TestRulesAgreeWithGoogle asks grobotstxt.
func cases() []robotsCase {
	const anyPaths = "/ /x/a /private/a /a/b /page /page.html /index.html /dir/ /dir/index.html /search?q=1 /a%20b/c /caf%C3%A9/"
	paths := strings.Fields(anyPaths)
	big := "User-agent: *\nDisallow: /early/\n" +
		strings.Repeat("# padding padding padding padding padding padding padding padding\n", (maxSize+1000)/66) +
		"Disallow: /late/\n"
	const head = "User-agent: *\nDisallow: /keep/\n"
	cut := head + long("# ", maxSize-len(head)-len("\nDisallow: /cu"), "x") + "\nDisallow: /cut/here/\n" // cut after "/cu"
	return []robotsCase{
		// Real-site shapes.
		{"stray rule before the first user-agent", "Disallow: /x/\nUser-agent: *\nDisallow: /private/\n", "Googlebot", paths},
		{"only stray rules", "Disallow: /\nAllow: /x/\n", "*", paths},
		{"tie of equal length: allow", "User-agent: *\nDisallow: /page\nAllow: /page\n", "*", paths},
		{"tie of equal length, other patterns", "User-agent: *\nAllow: /a*b\nDisallow: /a/b\nDisallow: /pag\nAllow: /*ge\n", "*", []string{"/a/b", "/a/bc", "/page", "/pag", "/ge"}},
		{"space inside a path", "User-agent: *\nDisallow: /a b/\nDisallow: /my%20page\n", "*", []string{"/a%20b/c", "/a b/c", "/my%20page", "/my page"}},
		{"space-separated three words", "User-agent: *\nDisallow /a b/\n", "*", []string{"/a%20b/c", "/a"}},
		{"path without leading slash", "User-agent: *\nDisallow: private/\nDisallow: a\nAllow: ?x\n", "*", []string{"/private/", "/a", "/private", "/?x"}},
		{"pattern starting with *", "User-agent: *\nDisallow: *.pdf\nDisallow: *private*\n", "*", []string{"/a.pdf", "/x/private/y", "/a.pdf?x", "/a.html"}},
		{"$ in the middle", "User-agent: *\nDisallow: /a$b\nDisallow: /x$/y\nDisallow: /$$\n", "*", []string{"/a$b", "/a$bc", "/ab", "/a", "/x$/y", "/x/y", "/$", "/"}},
		{"$ at the end", "User-agent: *\nDisallow: /*.php$\nDisallow: /$\nAllow: /*$\n", "*", []string{"/", "/a.php", "/a.php?x", "/a.php5", "/b"}},
		{"$ alone", "User-agent: *\nDisallow: $\nDisallow: *$\n", "*", []string{"/", "/a"}},
		{"* runs", "User-agent: *\nDisallow: /a**b*c*$\nAllow: /*/*/\nDisallow: /**\n", "*", []string{"/abc", "/a/b/c", "/axbyc", "/axbyc/", "/x/y/z", "/"}},
		{"raw UTF-8 pattern", "User-agent: *\nDisallow: /café/\nAllow: /café/menu\n", "*", []string{"/caf%C3%A9/", "/caf%C3%A9/menu", "/caf%c3%a9/", "http://static.test/café/", "/cafe/"}},
		{"lower-case escapes in a pattern", "User-agent: *\nDisallow: /caf%c3%a9/\nDisallow: /%7euser/\n", "*", []string{"/caf%C3%A9/", "/caf%c3%a9/", "/%7Euser/", "/~user/"}},
		// Once a pattern holds a lower-case escape, grobotstxt rewrote its
		// every escape, digits into control bytes: %9C and %2F too.
		{"lower-case escapes beside upper-case ones", "User-agent: *\nDisallow: /%C3%9cber\nDisallow: /docs%2Fold/%c3%a7\nAllow: /%e6%97%a5/%E6%9C%AC\nDisallow: /%E6%97%A5/\n", "*",
			[]string{"/%C3%9Cber-uns.html", "/%C3%9cber", "/docs%2Fold/%C3%A7.html", "/docs%2Fold/", "/%E6%97%A5/%E6%9C%AC", "/%E6%97%A5/x"}},
		{"Latin-1 byte in a pattern", "User-agent: *\nDisallow: /caf\xe9/\n", "*", []string{"/caf%E9/", "/caf%C3%A9/"}},
		{"typo Dissallow", "User-agent: *\nDissallow: /x/\n", "*", paths},
		{"typo dissalow", "User-agent: *\ndissalow: /x/\n", "*", paths},
		{"typo disalow", "User-agent: *\ndisalow: /x/\n", "*", paths},
		{"typo diasllow", "User-agent: *\ndiasllow: /x/\n", "*", paths},
		{"typo disallaw", "User-agent: *\ndisallaw: /x/\n", "*", paths},
		// Not a typo Google's C++ accepts; the Go port does.
		{"typo diaslow", "User-agent: *\ndiaslow: /x/\n", "*", paths},
		{"typo useragent", "useragent: Googlebot\nDisallow: /x/\n", "Googlebot", paths},
		{"typo user agent", "user agent: Googlebot\nDisallow: /x/\n", "googlebot", paths},
		{"typo user-agents", "User-agents: Googlebot\nDisallow: /x/\n", "Googlebot", paths},
		{"unrecognised typo", "User-agent: *\nDisalow: /x/\nDisalllow: /a/\nDis-allow: /page\n", "*", paths},
		{"key prefixes", "User-agent: *\nDisallowed: /x/\nAllowance: /x/a\nSitemaps: /a/\n", "*", paths},
		{"no colon", "User-agent *\nDisallow /x/\n", "*", paths},
		{"whitespace around the colon", "User-agent   :\t*\n  Disallow\t:   /x/   \n", "*", paths},
		{"comments", "# User-agent: Googlebot\nUser-agent: * # all\nDisallow: /x/ # not x\nDisallow: /a/#b\n#Disallow: /\n", "Googlebot", paths},
		{"empty disallow allows", "User-agent: *\nDisallow:\n", "*", paths},
		{"empty disallow for the agent", "User-agent: *\nDisallow: /\n\nUser-agent: Googlebot\nDisallow:\n", "Googlebot", paths},
		{"empty allow", "User-agent: *\nDisallow: /x/\nAllow:\n", "*", paths},
		{"index.html normalisation", "User-agent: *\nDisallow: /\nAllow: /dir/index.html\nAllow: /a/index.htm\nAllow: /x/index.html5\nAllow: /index.html\n", "*", []string{"/", "/dir/", "/dir/index.html", "/dir/index.htm", "/dir/x", "/a/", "/a/index.htm", "/x/", "/x/index.html5", "/index.html"}},
		{"index.html with *", "User-agent: *\nDisallow: /\nAllow: /*/index.html\n", "*", []string{"/a/", "/a/b/", "/a/index.html", "/"}},
		{"query in the path", "User-agent: *\nDisallow: /*?\nAllow: /search?q=\nDisallow: /*sort=\n", "*", []string{"/search?q=1", "/search?sort=1", "/x?", "/x", "/search?q=a&sort=1"}},
		// Agents.
		{"agent product token of the file's value", "User-agent: Googlebot/2.1 (+http://www.google.com/bot.html)\nDisallow: /x/\n", "Googlebot", paths},
		{"agent case-insensitive", "User-agent: GOOGLEBOT\nDisallow: /x/\n", "googlebot", paths},
		{"agent with a longer name is another", "User-agent: Googlebot-Image\nDisallow: /x/\nUser-agent: *\nDisallow: /a/\n", "Googlebot", paths},
		{"agent up to the first space", "User-agent: Googlebot Images\nDisallow: /x/\n", "Googlebot", paths},
		{"agent with a version (no configuration has it) matches nothing", "User-agent: Googlebot\nDisallow: /x/\nUser-agent: *\nDisallow: /a/\n", "Googlebot/2.1", paths},
		{"specific group overrides *", "User-agent: *\nDisallow: /\n\nUser-agent: Googlebot\nDisallow: /x/\n", "Googlebot", paths},
		{"* applies to others", "User-agent: *\nDisallow: /\n\nUser-agent: Googlebot\nDisallow: /x/\n", "Bingbot", paths},
		{"agent group without rules ignores *", "User-agent: *\nDisallow: /\n\nUser-agent: Googlebot\n", "Googlebot", paths},
		{"several user-agent lines in one group", "User-agent: Bingbot\nUser-agent: Googlebot\nDisallow: /x/\nUser-agent: *\nDisallow: /\n", "Googlebot", paths},
		{"* and the agent in one group", "User-agent: *\nUser-agent: Googlebot\nDisallow: /x/\nUser-agent: Googlebot\nAllow: /x/a\n", "Googlebot", paths},
		{"* and the agent in one group, other agent", "User-agent: *\nUser-agent: Googlebot\nDisallow: /x/\n", "Bingbot", paths},
		{"groups for the same agent merged", "User-agent: Googlebot\nDisallow: /x/\n\nUser-agent: *\nDisallow: /\n\nUser-agent: googlebot\nDisallow: /a/\nAllow: /x/a\n", "Googlebot", paths},
		{"groups for * merged", "User-agent: *\nDisallow: /x/\nUser-agent: Bingbot\nDisallow: /\nUser-agent: *\nDisallow: /a/\n", "Googlebot", paths},
		{"* followed by a space and more", "User-agent: * Googlebot\nDisallow: /x/\n", "Bingbot", paths},
		{"* followed by a tab", "User-agent: *\tGooglebot\nDisallow: /x/\n", "Bingbot", paths},
		{"* followed by a vertical tab", "User-agent: *\vbot\nDisallow: /x/\n", "Bingbot", paths},
		{"* followed by a Latin-1 no-break space", "User-agent: *\xa0bot\nDisallow: /x/\n", "Bingbot", paths},
		{"* followed by a Latin-1 next line", "User-agent: *\x85bot\nDisallow: /x/\n", "Bingbot", paths},
		{"* followed by a UTF-8 no-break space", "User-agent: *\u00a0bot\nDisallow: /x/\n", "Bingbot", paths},
		{"* followed by a UTF-8 no-break space, agent *", "User-agent: *\u00a0bot\nDisallow: /x/\nUser-agent: *\nDisallow: /a/\n", "*", paths},
		{"*bot is not global", "User-agent: *bot\nDisallow: /x/\n", "Bingbot", paths},
		{"*/ names the agent *", "User-agent: */\nDisallow: /x/\nUser-agent: *\nDisallow: /a/\n", "*", paths},
		{"empty user-agent value", "User-agent:\nDisallow: /x/\nUser-agent: *\nDisallow: /a/\n", "Googlebot", paths},
		{"sitemap and unknown lines do not end a group", "User-agent: Bingbot\nSitemap: https://static.test/s.xml\nCrawl-delay: 5\nUser-agent: Googlebot\nDisallow: /x/\n", "Bingbot", paths},
		{"rule ends the user-agent list", "User-agent: Googlebot\nDisallow: /x/\nUser-agent: Bingbot\nDisallow: /a/\n", "Googlebot", paths},
		// The Go port takes digits and more in a product token; Google's
		// C++ stops at them ("Googlebot2" and "Googlebot*" name Googlebot
		// there).
		{"agent token with digits", "User-agent: Googlebot2\nDisallow: /x/\n", "Googlebot", paths},
		{"agent token with *", "User-agent: Googlebot*\nDisallow: /x/\n", "Googlebot", paths},
		{"agent token with |", "User-agent: FooBot|x\nDisallow: /x/\n", "FooBot", paths},
		{"agent token stops at ! and &", "User-agent: Foo!x\nDisallow: /x/\nUser-agent: Bar&x\nDisallow: /a/\n", "foo", paths},
		{"agent token stops at &", "User-agent: Foo!x\nDisallow: /x/\nUser-agent: Bar&x\nDisallow: /a/\n", "Bar", paths},
		{"configured agent with digits", "User-agent: MJ12bot\nDisallow: /x/\n", "MJ12bot", paths},
		// File shapes.
		{"CR-only line ends", "User-agent: *\rDisallow: /x/\r\rUser-agent: Googlebot\rDisallow: /a/\r", "Googlebot", paths},
		{"CR-only line ends, *", "User-agent: *\rDisallow: /x/\rAllow: /x/a\r", "*", paths},
		{"CRLF line ends", "User-agent: *\r\nDisallow: /x/\r\n\r\nAllow: /x/a\r\n", "*", paths},
		{"mixed line ends", "User-agent: *\nDisallow: /x/\r\nDisallow: /a/\rAllow: /x/a", "*", paths},
		{"BOM", "\xef\xbb\xbfUser-agent: *\nDisallow: /x/\n", "*", paths},
		{"partial BOM", "\xef\xbbUser-agent: *\nDisallow: /x/\n", "*", paths},
		{"broken BOM", "\xef\x11\xbfUser-agent: *\nDisallow: /x/\n", "*", paths},
		{"BOM in the middle", "User-agent: *\n\xef\xbb\xbfDisallow: /x/\nDisallow: /a/\n", "*", paths},
		{"no final newline", "User-agent: *\nDisallow: /x/", "*", paths},
		{"non-breaking space before a key", "User-agent: *\n\u00a0Disallow: /x/\n", "*", paths},
		{"NUL in a line", "User-agent: *\nDisallow: /x/\x00y\nDisallow: /a\x00/\n", "*", []string{"/x/", "/x/%00y", "/a"}},
		{"larger than 500 KiB", big, "*", []string{"/early/", "/late/", "/"}},
		{"cut at 500 KiB inside a line", cut, "*", []string{"/keep/", "/cu", "/cut/here/", "/cux"}},
		{"long line cut", "User-agent: *\n" + long("Disallow: /x/", 2083*8+100, "a") + "/qux\n", "*", []string{"/x/aaa", "/x/" + strings.Repeat("a", 2083*8-14) + "/fux"}},
		{"empty file", "", "*", paths},
		{"only comments and blank lines", "# nothing\n\n   \n", "Googlebot", paths},
		{"garbage", "\x00\x01\xff<html><body>Not found</body></html>", "*", paths},

		// Google's robots_test.cc.
		{"SystemTest empty file", "", "FooBot", []string{""}},
		{"SystemTest empty agent", "user-agent: FooBot\ndisallow: /\n", "", []string{""}},
		{"SystemTest empty url", "user-agent: FooBot\ndisallow: /\n", "FooBot", []string{""}},
		{"SystemTest all empty", "", "", []string{""}},
		{"LineSyntax_Line correct", "user-agent: FooBot\ndisallow: /\n", "FooBot", []string{"http://foo.bar/x/y"}},
		{"LineSyntax_Line incorrect", "foo: FooBot\nbar: /\n", "FooBot", []string{"http://foo.bar/x/y"}},
		{"LineSyntax_Line incorrect accepted", "user-agent FooBot\ndisallow /\n", "FooBot", []string{"http://foo.bar/x/y"}},
	}
}

// googleGroups and the like are the files of robots_test.cc that several
// agents or many URLs are asked about.
const googleGroups = "allow: /foo/bar/\n\nuser-agent: FooBot\ndisallow: /\nallow: /x/\nuser-agent: BarBot\ndisallow: /\nallow: /y/\n\n\nallow: /w/\nuser-agent: BazBot\n\nuser-agent: FooBot\nallow: /z/\ndisallow: /\n"

func googleCases() []robotsCase {
	urls := func(s string) []string { return strings.Fields(s) }
	var cs []robotsCase
	add := func(name, body, agents, us string) {
		for _, a := range strings.Split(agents, ",") {
			cs = append(cs, robotsCase{name + " " + a, body, a, urls(us)})
		}
	}
	const wxyz = "http://foo.bar/w/a http://foo.bar/x/b http://foo.bar/y/c http://foo.bar/z/d http://foo.bar/foo/bar/"
	add("LineSyntax_Groups", googleGroups, "FooBot,BarBot,BazBot", wxyz)
	add("LineSyntax_Groups_OtherRules sitemap", "User-agent: BarBot\nSitemap: https://foo.bar/sitemap\nUser-agent: *\nDisallow: /\n", "FooBot,BarBot", "http://foo.bar/")
	add("LineSyntax_Groups_OtherRules unknown", "User-agent: FooBot\nInvalid-Unknown-Line: unknown\nUser-agent: *\nDisallow: /\n", "FooBot,BarBot", "http://foo.bar/")
	add("Multiple_Useragents", "user-agent: googlebot-news\nDisallow: /bar/\n\nuser-agent: *\nDisallow: /baz/\n\n\nuser-agent: googlebot\nDisallow: /foo/\n",
		"googlebot,googlebot-news,other", "http://foo.bar/foo/ http://foo.bar/bar/ http://foo.bar/baz/ http://foo.bar/qux/")
	const xa = "http://foo.bar/x/y http://foo.bar/a/b"
	add("REPLineNamesCaseInsensitive upper", "USER-AGENT: FooBot\nALLOW: /x/\nDISALLOW: /\n", "FooBot", xa)
	add("REPLineNamesCaseInsensitive lower", "user-agent: FooBot\nallow: /x/\ndisallow: /\n", "FooBot", xa)
	add("REPLineNamesCaseInsensitive camel", "uSeR-aGeNt: FooBot\nAlLoW: /x/\ndIsAlLoW: /\n", "FooBot", xa)
	add("UserAgentValueCaseInsensitive upper", "User-Agent: FOO BAR\nAllow: /x/\nDisallow: /\n", "Foo,foo", xa)
	add("UserAgentValueCaseInsensitive lower", "User-Agent: foo bar\nAllow: /x/\nDisallow: /\n", "Foo,foo", xa)
	add("UserAgentValueCaseInsensitive camel", "User-Agent: FoO bAr\nAllow: /x/\nDisallow: /\n", "Foo,foo", xa)
	add("AcceptUserAgentUpToFirstSpace", "User-Agent: *\nDisallow: /\nUser-Agent: Foo Bar\nAllow: /x/\nDisallow: /\n", "Foo,Foo Bar", "http://foo.bar/x/y")
	add("GlobalGroups_Secondary empty", "", "FooBot", "http://foo.bar/x/y")
	add("GlobalGroups_Secondary global", "user-agent: *\nallow: /\nuser-agent: FooBot\ndisallow: /\n", "FooBot,BarBot", "http://foo.bar/x/y")
	add("GlobalGroups_Secondary only specific", "user-agent: FooBot\nallow: /\nuser-agent: BarBot\ndisallow: /\nuser-agent: BazBot\ndisallow: /\n", "QuxBot", "http://foo.bar/x/y")
	add("AllowDisallow_Value_CaseSensitive lower", "user-agent: FooBot\ndisallow: /x/\n", "FooBot", "http://foo.bar/x/y")
	add("AllowDisallow_Value_CaseSensitive upper", "user-agent: FooBot\ndisallow: /X/\n", "FooBot", "http://foo.bar/x/y")
	const page = "http://foo.bar/x/page.html http://foo.bar/x/ http://foo.bar/x http://foo.bar/page.html http://foo.bar/page http://foo.bar/x/y.html"
	add("LongestMatch 1", "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/\n", "FooBot", page)
	add("LongestMatch 2", "user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n", "FooBot", page)
	add("LongestMatch 3", "user-agent: FooBot\ndisallow: \nallow: \n", "FooBot", page)
	add("LongestMatch 4", "user-agent: FooBot\ndisallow: /\nallow: /\n", "FooBot", page)
	add("LongestMatch 5", "user-agent: FooBot\ndisallow: /x\nallow: /x/\n", "FooBot", page)
	add("LongestMatch 6", "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/page.html\n", "FooBot", page)
	add("LongestMatch 7", "user-agent: FooBot\nallow: /page\ndisallow: /*.html\n", "FooBot", page)
	add("LongestMatch 8", "user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n", "FooBot", page)
	add("LongestMatch 9", "User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n", "FooBot", "http://foo.bar/x/page http://foo.bar/y/page")
	add("Encoding query", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar?qux=taz&baz=http://foo.bar?tar&par\n", "FooBot",
		"http://foo.bar/foo/bar?qux=taz&baz=http://foo.bar?tar&par http://foo.bar/foo/bar")
	add("Encoding 3 byte character", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n", "FooBot", "http://foo.bar/foo/bar/%E3%83%84 http://foo.bar/foo/bar/ツ")
	add("Encoding percent-encoded 3 byte character", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n", "FooBot", "http://foo.bar/foo/bar/%E3%83%84 http://foo.bar/foo/bar/ツ")
	add("Encoding percent-encoded unreserved", "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n", "FooBot", "http://foo.bar/foo/bar/baz http://foo.bar/foo/bar/%62%61%7A")
	add("SpecialCharacters *", "User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n", "FooBot",
		"http://foo.bar/foo/bar/quz http://foo.bar/foo/quz http://foo.bar/foo//quz http://foo.bar/foo/bax/quz")
	add("SpecialCharacters $", "User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n", "FooBot",
		"http://foo.bar/foo/bar http://foo.bar/foo/bar/qux http://foo.bar/foo/bar/ http://foo.bar/foo/bar/baz")
	add("SpecialCharacters #", "User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n", "FooBot", "http://foo.bar/foo/bar http://foo.bar/foo/quz")
	add("IndexHTMLisDirectory", "User-Agent: *\nAllow: /allowed-slash/index.html\nDisallow: /\n", "foobot",
		"http://foo.com/allowed-slash/ http://foo.com/allowed-slash/index.htm http://foo.com/allowed-slash/index.html http://foo.com/anyother-url")
	const maxLine = 2083 * 8
	longA := long("/x/", maxLine-len("/x/")-len("allow: ")+1, "a")
	longB := long("/x/", maxLine-len("/x/")-len("allow: ")+1, "b")
	longD := long("/x/", maxLine-len("/x/")-len("disallow: ")+1, "a")
	add("LineTooLong disallow", "user-agent: FooBot\ndisallow: "+longD+"/qux\n", "FooBot", "http://foo.bar/fux http://foo.bar"+longD+"/fux")
	add("LineTooLong allow", "user-agent: FooBot\ndisallow: /\nallow: "+longA+"/qux\nallow: "+longB+"/qux\n", "FooBot",
		"http://foo.bar/ http://foo.bar"+longA+"/qux http://foo.bar"+longB+"/fux")
	const fish = "http://foo.bar/bar http://foo.bar/fish http://foo.bar/fish.html http://foo.bar/fish/salmon.html http://foo.bar/fishheads " +
		"http://foo.bar/fishheads/yummy.html http://foo.bar/fish.html?id=anything http://foo.bar/Fish.asp http://foo.bar/catfish " +
		"http://foo.bar/?id=fish http://foo.bar/fish/ http://foo.bar/fish/salmon http://foo.bar/fish/?salmon http://foo.bar/Fish/Salmon.html " +
		"http://foo.bar/filename.php http://foo.bar/folder/filename.php http://foo.bar/folder/filename.php?parameters " +
		"http://foo.bar//folder/any.php.file.html http://foo.bar/filename.php/ http://foo.bar/index?f=filename.php/ http://foo.bar/php/ " +
		"http://foo.bar/index?php http://foo.bar/windows.PHP http://foo.bar/filename.php5 http://foo.bar/filename?php http://foo.bar/aaaphpaaa " +
		"http://foo.bar//windows.PHP http://foo.bar/fish.php http://foo.bar/fishheads/catfish.php?parameters http://foo.bar/Fish.PHP"
	for _, allow := range []string{"/fish", "/fish*", "/fish/", "/*.php", "/*.php$", "/fish*.php"} {
		add("DocumentationChecks allow "+allow, "user-agent: FooBot\ndisallow: /\nallow: "+allow+"\n", "FooBot", fish)
	}
	add("DocumentationChecks precedence /p", "user-agent: FooBot\nallow: /p\ndisallow: /\n", "FooBot", "http://static.test/page")
	add("DocumentationChecks precedence /folder", "user-agent: FooBot\nallow: /folder\ndisallow: /folder\n", "FooBot", "http://static.test/folder/page")
	add("DocumentationChecks precedence /*.htm", "user-agent: FooBot\nallow: /page\ndisallow: /*.htm\n", "FooBot", "http://static.test/page.htm")
	add("DocumentationChecks precedence /$", "user-agent: FooBot\nallow: /$\ndisallow: /\n", "FooBot", "http://static.test/ http://static.test/page.html")
	const some = "/some/path /AnyValue /anyvalue /x /"
	for name, body := range map[string]string{
		"unix":             "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /\n",
		"dos":              "User-Agent: foo\r\nAllow: /some/path\r\nUser-Agent: bar\r\n\r\n\r\nDisallow: /\r\n",
		"mac":              "User-Agent: foo\rAllow: /some/path\rUser-Agent: bar\r\r\rDisallow: /\r",
		"no final newline": "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /",
		"mixed":            "User-Agent: foo\nAllow: /some/path\r\nUser-Agent: bar\n\r\n\nDisallow: /",
	} {
		add("LinesNumbersAreCountedCorrectly "+name, body, "foo,bar", some)
	}
	for name, bom := range map[string]string{"full": "\xEF\xBB\xBF", "partial 2": "\xEF\xBB", "partial 1": "\xEF", "broken": "\xEF\x11\xBF"} {
		add("UTF8ByteOrderMarkIsSkipped "+name, bom+"User-Agent: foo\nAllow: /AnyValue\nDisallow: /\n", "foo", some)
	}
	add("UTF8ByteOrderMarkIsSkipped middle", "User-Agent: foo\n\xEF\xBB\xBFAllow: /AnyValue\nDisallow: /\n", "foo", some)
	add("NonStandardLineExample_Sitemap end", "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nSitemap: http://foo.bar/sitemap.xml\n", "foo,bar", some)
	add("NonStandardLineExample_Sitemap start", "Sitemap: http://foo.bar/sitemap.xml\nUser-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\n", "foo,bar", some)
	add("Example", "\n\t# robots.txt with restricted area\n\n\tUser-agent: *\n\tDisallow: /members/*\n", "FooBot/1.0,FooBot",
		"http://example.net/members/index.html http://example.net/members http://example.net/")
	return cs
}

// TestRulesAgreeWithGoogle: for every case, Rules loaded from the file
// answer for every URL's site path as Google's parser does.
func TestRulesAgreeWithGoogle(t *testing.T) {
	n := 0
	for _, c := range append(cases(), googleCases()...) {
		t.Run(c.name, func(t *testing.T) {
			var r Rules
			if !config.ValidRobotsAgent(c.agent) { // no configuration has it
				r = parse([]byte(c.body), c.agent)
			} else {
				r, _ = loadRules(t, c.body, c.agent)
			}
			for _, u := range c.urls {
				p := sitePath(t, u)
				want := oracle(c.body, c.agent, p)
				if u != p && len(c.body) <= maxSize {
					if direct := grobotstxt.AgentAllowed(googleEscapes(c.body), c.agent, u); direct != want {
						t.Fatalf("%q: grobotstxt answers %v for the URL and %v for its site path %q", u, direct, want, p)
					}
				}
				if got := r.Allowed(p); got != want {
					t.Errorf("Allowed(%q) = %v, Google's parser says %v\nagent %q, robots.txt:\n%s", p, got, want, c.agent, shorten(c.body))
				}
				if !want && r.AllowsAll() {
					t.Errorf("AllowsAll, but %q is disallowed", p)
				}
				n++
			}
		})
	}
	t.Logf("%d answers compared", n)
}

func shorten(s string) string {
	if len(s) > 600 {
		return fmt.Sprintf("%s… (%d bytes)", s[:600], len(s))
	}
	return s
}

// TestLargeFileCut: Google reads the first 500 KiB of a robots.txt; so
// do Rules, with a warning. grobotstxt itself reads it all.
func TestLargeFileCut(t *testing.T) {
	body := "User-agent: *\nDisallow: /early/\n" + strings.Repeat("#\n", maxSize/2) + "Disallow: /late/\n"
	r, logs := loadRules(t, body, "*")
	if r.Allowed("/early/x") || !r.Allowed("/late/x") {
		t.Errorf("rules past 500 KiB applied, or those before ignored")
	}
	if grobotstxt.AgentAllowed(body, "*", "http://static.test/late/x") {
		t.Errorf("grobotstxt read only part of the file: the test shows nothing")
	}
	if logs.FilterMessageSnippet("larger than crawlers read").Len() != 1 {
		t.Errorf("no warning: %v", logs.All())
	}
}

// TestLoad: the switch, the host-root condition, an unreadable file and
// a missing one.
func TestLoad(t *testing.T) {
	const body = "User-agent: *\nDisallow: /private/\n"
	r, logs := loadRules(t, body, "Googlebot")
	if r.AllowsAll() || r.Allowed("/private/x") || !r.Allowed("/public/") || logs.Len() != 0 {
		t.Errorf("rules not applied, or warnings %v", logs.All())
	}

	root := t.TempDir()
	os.WriteFile(filepath.Join(root, outname.RobotsName), []byte(body), 0o644)
	for _, name := range []string{"off", "below the host root"} {
		cfg := loadConfig(t, root, "*", "")
		if name == "off" {
			cfg.Pages.RobotsTxt = false
		} else {
			cfg.BaseURL = "https://static.test/docs/"
		}
		if r := Load(cfg, zap.NewNop()); !r.AllowsAll() || !r.Allowed("/private/x") {
			t.Errorf("%s: rules applied", name)
		}
	}

	missing := t.TempDir()
	core, logs := observer.New(zap.WarnLevel)
	if r := Load(loadConfig(t, missing, "*", ""), zap.New(core)); !r.AllowsAll() || logs.Len() != 0 {
		t.Errorf("no robots.txt: rules %v, warnings %v", r.rules, logs.All())
	}

	unreadable := t.TempDir()
	os.Mkdir(filepath.Join(unreadable, outname.RobotsName), 0o755) // reading a directory fails, even as root
	core, logs = observer.New(zap.WarnLevel)
	if r := Load(loadConfig(t, unreadable, "*", ""), zap.New(core)); !r.AllowsAll() || logs.FilterMessageSnippet("cannot read robots.txt").Len() != 1 {
		t.Errorf("unreadable robots.txt: rules %v, warnings %v", r.rules, logs.All())
	}

	var zero Rules
	if !zero.AllowsAll() || !zero.Allowed("/x") {
		t.Errorf("the zero Rules disallow")
	}
}

// TestAllowsAll: files whose rules disallow nothing for the agent allow
// all without paths being computed.
func TestAllowsAll(t *testing.T) {
	for body, all := range map[string]bool{
		"":                                       true,
		"User-agent: *\nDisallow:\n":             true,
		"User-agent: *\nAllow: /\n":              true,
		"User-agent: *\nDisallow: private\n":     true,
		"User-agent: *\nDisallow: /x\nAllow: /x": true,
		"Disallow: /\n":                          true,
		"User-agent: Googlebot\nDisallow: /\n":   true,
		"User-agent: *\nDisallow: /x\n":          false,
		"User-agent: *\nDisallow: *\n":           false,
	} {
		if r := parse([]byte(body), "Bingbot"); r.AllowsAll() != all {
			t.Errorf("%q: AllowsAll = %v, want %v", body, r.AllowsAll(), all)
		}
	}
}

// TestChanged: only a change of rules counts, not of Sitemap lines.
func TestChanged(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, outname.RobotsName)
	os.WriteFile(p, []byte("User-agent: *\nDisallow: /x/\n"), 0o644)
	cfg := loadConfig(t, root, "*", "")
	r := Load(cfg, zap.NewNop())
	if r.Changed(cfg) {
		t.Errorf("changed without a change")
	}
	os.WriteFile(p, []byte("User-agent: *\nDisallow: /x/\nSitemap: https://static.test/sitemap_index.xml\n"), 0o644)
	if r.Changed(cfg) {
		t.Errorf("a Sitemap line counted as a change of rules")
	}
	os.WriteFile(p, []byte("User-agent: *\nDisallow: /y/\n"), 0o644)
	if !r.Changed(cfg) {
		t.Errorf("a change of rules went unseen")
	}
	os.Remove(p)
	if !r.Changed(cfg) {
		t.Errorf("a removed robots.txt went unseen")
	}
	cfg.Pages.RobotsTxt = false
	if r.Changed(cfg) {
		t.Errorf("changed with the switch off")
	}
}
