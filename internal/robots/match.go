package robots

import (
	"cmp"
	"slices"
	"strings"
	"unicode"

	"github.com/jimsmart/grobotstxt"
)

// parse returns the rules a robots.txt sets for agent, as Google reads
// them. Google's own parser (grobotstxt.Parse, a port of
// github.com/google/robotstxt) splits the file into lines, recognises the
// keys and the typos Google accepts and percent-encodes patterns, once
// upperEscapes has upper-cased the escapes it would get wrong; groups
// picks the rules for agent from its callbacks as Google's matcher does;
// compile turns them into an ordered list that answers for a path in a
// few string comparisons, where Google's matcher parses the whole file
// again for each URL.
func parse(data []byte, agent string) Rules {
	if len(data) > maxSize {
		data = data[:maxSize]
	}
	g := groups{agent: agent}
	grobotstxt.Parse(string(upperEscapes(data)), &g)
	lines := g.global
	if g.everSpecific {
		// A group names the agent: the groups for "*" do not apply, even
		// when the agent's own groups have no rule.
		lines = g.specific
	}
	return Rules{rules: compile(lines)}
}

// maxLine is how many bytes of a line Google's parser reads
// (robots.cc, RobotsTxtParser::Parse: kMaxLineLen less the final NUL,
// 2083 × 8 - 1); the rest of a longer line is ignored.
const maxLine = 2083*8 - 1

// upperEscapes returns data with the hex digits of every percent-escape
// in upper case, "%c3%a9" as "%C3%A9": what Google's parser does to each
// Allow and Disallow pattern (robots.cc, MaybeEscapePattern), done here
// because the Go port does it wrong. grobotstxt v1.0.3's escapePattern
// upper-cases with c & 0xDF, which turns the digits 0-9 into the control
// bytes 0x10-0x19, and does so to every escape of a pattern holding one
// lower-case escape: "/caf%c3%a9/" became "/caf%C\x13%A\x19/", which
// matches no URL, and a page Google's matcher disallows was listed. With
// no lower-case escape left, the port upper-cases nothing; it still
// escapes raw bytes of 0x80 and above itself, and right ("é" is %C3%A9).
//
// Escapes are found as Google finds them in a pattern: a '%' and two hex
// digits, left to right, each byte in one escape at most. The whole file
// is scanned, not only the patterns, which is the same: an escape cannot
// straddle the ':', white space, '#' or line end that bound a pattern,
// and what it changes in other lines counts for nothing (User-agent
// values are compared case-insensitively; Sitemap and unknown lines are
// not rules). But only the bytes of a line that the parser reads (after
// a BOM, at most maxLine of them) are pattern: an escape cut at that
// limit is no escape there and is left as it is. Paths are not touched:
// Google's matcher takes the URL's path as it is given, and sitemapd's
// are escaped in upper case (internal/siteurl).
//
// When no escape has a lower-case digit, which is most files, data is
// returned as it is.
func upperEscapes(data []byte) []byte {
	var out []byte // a copy of data, once a change is needed
	i := 0
	for _, b := range []byte(utf8BOM) { // skipped, even in part, as Google skips it
		if i < len(data) && data[i] == b {
			i++
		} else {
			break
		}
	}
	for n := 0; i < len(data); i++ { // n: bytes of the line read so far
		switch c := data[i]; {
		case c == '\n' || c == '\r':
			n = 0
		case c == '%' && n+3 <= maxLine && i+2 < len(data) && isHex(data[i+1]) && isHex(data[i+2]):
			if isLowerHex(data[i+1]) || isLowerHex(data[i+2]) {
				if out == nil {
					out = slices.Clone(data)
				}
				out[i+1], out[i+2] = upperHex(data[i+1]), upperHex(data[i+2])
			}
			i += 2
			n += 3
		default:
			n++
		}
	}
	if out == nil {
		return data
	}
	return out
}

const utf8BOM = "\xEF\xBB\xBF"

func isHex(c byte) bool      { return '0' <= c && c <= '9' || isLowerHex(c) || 'A' <= c && c <= 'F' }
func isLowerHex(c byte) bool { return 'a' <= c && c <= 'f' }

// upperHex is the hex digit c in upper case: digits stay as they are.
func upperHex(c byte) byte {
	if isLowerHex(c) {
		return c - 'a' + 'A'
	}
	return c
}

// line is an Allow or Disallow line of a robots.txt, its pattern as
// Google's parser escapes it.
type line struct {
	allow   bool
	pattern string
}

// groups is a grobotstxt.ParseHandler that collects the Allow and
// Disallow lines of the groups that apply to one agent, with the state
// Google's matcher keeps (robots.cc, RobotsMatcher::Handle*). A group is
// one or more user-agent lines and the rules that follow; the first rule
// closes its list of user-agent lines. Rules of every group for the agent
// are merged, and so are those of every group for "*". Rules before the
// first user-agent line belong to no group and are ignored; Sitemap and
// unknown lines neither end a group nor belong to one.
type groups struct {
	agent string

	inGlobal, inSpecific bool // the current group is for "*", for the agent
	closed               bool // a rule followed the group's user-agent lines
	everSpecific         bool // some group is for the agent

	global, specific []line
}

func (g *groups) HandleRobotsStart() { *g = groups{agent: g.agent} }
func (g *groups) HandleRobotsEnd()   {}

func (g *groups) HandleUserAgent(_ int, value string) {
	if g.closed { // a new group starts
		g.inGlobal, g.inSpecific, g.closed = false, false, false
	}
	// "*", or "*" and a space and anything, is the global group; any
	// other value names an agent by its product token ("Googlebot" in
	// "Googlebot/2.1"), compared case-insensitively.
	if value != "" && value[0] == '*' && (len(value) == 1 || isSpace(value[1])) {
		g.inGlobal = true
	} else if strings.EqualFold(productToken(value), g.agent) {
		g.inSpecific, g.everSpecific = true, true
	}
}

func (g *groups) HandleAllow(_ int, value string)    { g.rule(true, value) }
func (g *groups) HandleDisallow(_ int, value string) { g.rule(false, value) }

func (g *groups) rule(allow bool, pattern string) {
	if !g.inGlobal && !g.inSpecific {
		return // outside any group, or in a group for other agents
	}
	g.closed = true
	l := line{allow, pattern}
	if g.inSpecific { // a group for both the agent and "*" counts as the agent's
		g.specific = append(g.specific, l)
	} else {
		g.global = append(g.global, l)
	}
}

func (g *groups) HandleSitemap(int, string)               {}
func (g *groups) HandleUnknownAction(int, string, string) {}

// isSpace is the test the Go port applies to the byte after a leading
// "*" of a user-agent value: the byte taken as a code point, so that
// 0x85 and 0xA0 count as well as ASCII white space.
func isSpace(c byte) bool { return unicode.IsSpace(rune(c)) }

// productToken is the leading run of a user-agent value that can name an
// agent: "Googlebot" in "Googlebot/2.1" or "Googlebot Images". The Go
// port takes the token characters of RFC 7231 (letters, digits and
// #$%'*+-.^_`|~, though not ! and &) where Google's C++ takes only
// letters, '-' and '_'.
func productToken(value string) string {
	for i := 0; i < len(value); i++ {
		if !tokenByte[value[i]] {
			return value[:i]
		}
	}
	return value
}

var tokenByte = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for _, c := range "#$%'*+-.^_`|~" {
		t[c] = true
	}
	return t
}()

// rule is a compiled pattern: a path matches when it starts with prefix
// and then holds each of parts in order (each part follows a '*', which
// matches any run of bytes), the last one at its very end if anchored.
// A '$' anywhere but at the end of a pattern is an ordinary byte.
type rule struct {
	allow    bool
	prefix   string
	parts    []string
	anchored bool
}

// compile orders the lines of the applicable groups for matching. Google
// decides a path by the longest pattern that matches it, its length
// counted in bytes of the escaped pattern, '*' and '$' included; when an
// Allow and a Disallow pattern of that length both match, Allow wins; a
// path no pattern of length > 0 matches is allowed. So the rules are
// sorted by length, longest first and Allow before Disallow at each
// length, and the first that matches decides. Lines that can decide
// nothing are left out: empty patterns (they match with priority 0, which
// never disallows), patterns that cannot match a path starting with '/',
// a Disallow with the same pattern as an Allow, duplicates, and every
// rule after the last Disallow.
//
// Google reads an Allow pattern whose last segment starts with
// "index.htm" as also allowing its directory: "/d/index.html" also allows
// "/d/" (and nothing else below it), as the Allow pattern "/d/$" would,
// which is added.
func compile(lines []line) []rule {
	allow := map[string]bool{} // pattern -> whether an Allow has it
	add := func(a bool, p string) {
		if p == "" || (p[0] != '/' && p[0] != '*') {
			return
		}
		if prev, ok := allow[p]; ok {
			allow[p] = prev || a
			return
		}
		allow[strings.Clone(p)] = a
	}
	for _, l := range lines {
		add(l.allow, l.pattern)
		if i := strings.LastIndexByte(l.pattern, '/'); l.allow && i >= 0 && strings.HasPrefix(l.pattern[i:], "/index.htm") {
			add(true, l.pattern[:i+1]+"$")
		}
	}
	patterns := make([]string, 0, len(allow))
	for p := range allow {
		patterns = append(patterns, p)
	}
	slices.SortFunc(patterns, func(a, b string) int {
		if c := cmp.Compare(len(b), len(a)); c != 0 {
			return c
		}
		if allow[a] != allow[b] {
			if allow[a] {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	last := -1
	for i, p := range patterns {
		if !allow[p] {
			last = i
		}
	}
	if last < 0 {
		return nil
	}
	rules := make([]rule, last+1)
	for i, p := range patterns[:last+1] {
		rules[i] = compileRule(p, allow[p])
	}
	return rules
}

func compileRule(pattern string, allow bool) rule {
	r := rule{allow: allow}
	if strings.HasSuffix(pattern, "$") {
		r.anchored = true
		pattern = pattern[:len(pattern)-1]
	}
	parts := strings.Split(pattern, "*")
	r.prefix = parts[0]
	if len(parts) > 1 {
		r.parts = parts[1:]
	}
	return r
}

// match reports whether the rule's pattern matches path. Finding each
// part at its leftmost place after the previous one is enough: a later
// place would leave less of the path for the parts that follow.
func (r *rule) match(path string) bool {
	if !strings.HasPrefix(path, r.prefix) {
		return false
	}
	if len(r.parts) == 0 {
		return !r.anchored || len(path) == len(r.prefix)
	}
	rest := path[len(r.prefix):]
	n := len(r.parts) - 1
	for _, part := range r.parts[:n] {
		i := strings.Index(rest, part)
		if i < 0 {
			return false
		}
		rest = rest[i+len(part):]
	}
	if r.anchored {
		return strings.HasSuffix(rest, r.parts[n])
	}
	return strings.Contains(rest, r.parts[n])
}
