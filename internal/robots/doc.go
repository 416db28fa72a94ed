// Package robots reads and edits robots.txt.
//
// Rules are the docroot's robots.txt as crawlers read it, for leaving out
// pages it disallows (pages.robots_txt): crawlers would not fetch them, and
// a sitemap listing them is one engines trust less. Rules apply only where
// crawlers read the file, at the root of a host, and a file that cannot be
// read allows everything (with a warning): listing too much beats listing
// nothing.
//
// Matching is Google's: Googlebot's verdict is the one that matters most,
// and parsers disagree on the files met on real sites (a stray rule before
// the first User-agent line made the one used before reject the whole
// file). Load parses the file once with Google's own parser,
// github.com/jimsmart/grobotstxt, a Go port of github.com/google/robotstxt:
// lines ended by LF, CR or CRLF, a BOM skipped, comments, the key typos
// Google accepts ("Dissallow", "useragent", "user agent", …), a missing
// colon, and patterns percent-encoded (raw UTF-8 becomes %C3%A9, %c3 becomes
// %C3: that part Load does itself, see below). From its callbacks Load keeps the rules of every group that names
// the agent by its product token ("Googlebot" in "Googlebot/2.1",
// case-insensitive), or, when no group does, of every group for "*"; rules
// before the first User-agent line belong to no group and are ignored.
// Each site path is then matched as Google's matcher does: the longest
// matching pattern decides, Allow wins a tie, '*' matches any run of bytes
// and only a final '$' anchors, a pattern not starting with '/' or '*'
// matches nothing, an empty Disallow allows, and Allow "/d/index.html"
// also allows "/d/". Like Googlebot, Load reads only the first 500 KiB of
// the file (with a warning when there is more). The rules are compiled into
// a list ordered by that precedence, so that a path costs a few string
// comparisons, where the port's own AgentAllowed parses the whole file
// again for each URL; tests and a differential fuzz test hold every
// answer to AgentAllowed's (on the file with its escapes upper-cased).
// The port is not the oracle of last resort: TestGoogleVerdicts holds
// Rules to the verdicts of Google's own C++ matcher on robots.txt files
// as sites write them, for the agents and for paths as sitemapd escapes
// them (testdata/google: the verdicts are committed, and regen.sh writes
// them again from a checkout of github.com/google/robotstxt).
//
// The port errs on lower-case escapes in a pattern: grobotstxt v1.0.3
// upper-cases their hex digits with c & 0xDF, which turns 0-9 into
// control bytes, so that "Disallow: /caf%c3%a9/" matched no URL and its
// pages were listed although Googlebot will not fetch them. Load
// upper-cases every escape of the file (upperEscapes) before the port
// reads it, as Google's MaybeEscapePattern does to each pattern, and the
// port then has none to rewrite. Paths are matched as they are given,
// as Google's matcher takes a URL's path: sitemapd escapes them in upper
// case (internal/siteurl).
//
// Elsewhere, where the Go port differs from Google's C++, Rules follow
// the port, the parser tests can ask: a product token there may hold
// digits and most of RFC 7231's token characters ("Googlebot2" names no
// Googlebot; in the C++ it does), "diaslow" is one more accepted typo,
// Unicode white space such as U+00A0 is trimmed like ASCII white space,
// and a NUL byte does not end a line's value (the C++ reads lines as C
// strings: there "Disallow: /a\x00b" disallows "/a").
//
// WithSitemaps edits the output's robots.txt for robots_txt: true, keeping
// one "Sitemap:" line per index file and every other byte as it was.
package robots
