package validate

import (
	"math"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The XML Schema datatypes of sitemap.xsd and of XHTML's link element,
// read as libxml2 (xmllint) reads them, so that check rejects what a
// validator with those schemas rejects. Where libxml2 departs from the
// XML Schema recommendation in a way a sitemap can meet, the function
// says so.

// collapse is XML Schema's whiteSpace="collapse": runs of spaces, tabs,
// carriage returns and line feeds become one space, and none is left at
// either end.
func collapse(v string) string {
	collapsed := true
	for i := 0; i < len(v) && collapsed; i++ {
		switch v[i] {
		case '\t', '\n', '\r':
			collapsed = false
		case ' ':
			collapsed = i > 0 && i < len(v)-1 && v[i+1] != ' '
		}
	}
	if collapsed {
		return v
	}
	return strings.Join(strings.FieldsFunc(v, isXMLSpace), " ")
}

func isXMLSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }

// blank reports whether v is nothing but XML whitespace.
func blank(v string) bool { return strings.TrimLeft(v, " \t\n\r") == "" }

// collapsedLen is the length facets' measure of a collapsed type: the
// characters of the collapsed value.
func collapsedLen(v string) int { return utf8.RuneCountInString(collapse(v)) }

// xsAnyURI reports whether v is an xs:anyURI as libxml2 reads one: with
// whitespace collapsed, the characters no URI may hold but an IRI or a
// careless URL often does (controls, spaces, non-ASCII, < > " { } | \ ^ `
// and ') are let through, and what remains must be a URI reference by
// RFC 3986's grammar. So "/de/" and "https://example.com/a b" pass, while
// a '%' that starts no %XX escape, a second '#', a '[' outside a host or
// a fragment, or an empty or non-numeric port do not.
func xsAnyURI(v string) bool {
	v = collapse(v)
	if v == "" {
		return true
	}
	if strings.IndexFunc(v, func(r rune) bool { return r >= utf8.RuneSelf || iriOnly(byte(r)) }) >= 0 {
		b := []byte(v)
		for i, c := range b {
			if iriOnly(c) {
				b[i] = '_'
			}
		}
		v = string(b)
	}
	p := uriParser(v)
	return p.absolute() || p.relative()
}

// iriOnly reports whether a byte is one xsAnyURI lets through.
func iriOnly(c byte) bool {
	return c < 32 || c >= 127 || strings.IndexByte(" <>\"{}|\\^`'", c) >= 0
}

// uriParser follows libxml2's RFC 3986 parser (xmlParse3986URIReference)
// step by step, quirks included: each method takes the position to start
// at and returns where it stopped and whether it matched.
type uriParser string

func (p uriParser) at(i int) byte {
	if i < len(p) {
		return p[i]
	}
	return 0
}

func isAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isHex(c byte) bool   { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }
func isSubDelim(c byte) bool {
	return c != 0 && strings.IndexByte("!$&'()*+,;=", c) >= 0
}

func (p uriParser) unreserved(i int) bool {
	c := p.at(i)
	return isAlpha(c) || isDigit(c) || c == '-' || c == '.' || c == '_' || c == '~'
}

func (p uriParser) pct(i int) bool {
	return p.at(i) == '%' && isHex(p.at(i+1)) && isHex(p.at(i+2))
}

func (p uriParser) pchar(i int) bool {
	c := p.at(i)
	return p.unreserved(i) || p.pct(i) || isSubDelim(c) || c == ':' || c == '@'
}

func (p uriParser) next(i int) int {
	if p.at(i) == '%' {
		return i + 3
	}
	return i + 1
}

func (p uriParser) absolute() bool {
	i := 0
	if !isAlpha(p.at(i)) {
		return false
	}
	for i++; isAlpha(p.at(i)) || isDigit(p.at(i)) || strings.IndexByte("+-.", p.at(i)) >= 0 && p.at(i) != 0; i++ {
	}
	if p.at(i) != ':' {
		return false
	}
	i, ok := p.hierPart(i+1, 0)
	return ok && p.end(i)
}

func (p uriParser) relative() bool {
	// path-noscheme: no ':' in the first segment.
	i, ok := p.hierPart(0, ':')
	return ok && p.end(i)
}

// hierPart reads from i what follows an absolute URI's scheme (hier-part)
// or starts a relative reference (relative-part): an authority and a
// path, an absolute path, a path whose first segment holds no forbid
// byte, or nothing.
func (p uriParser) hierPart(i int, forbid byte) (int, bool) {
	switch {
	case p.at(i) == '/' && p.at(i+1) == '/':
		i, ok := p.authority(i + 2)
		if !ok {
			return i, false
		}
		return p.pathAbEmpty(i), true
	case p.at(i) == '/':
		return p.pathAbsolute(i), true
	case p.pchar(i):
		return p.path(i, forbid)
	}
	return i, true
}

// end reads the optional query and fragment, and reports whether nothing
// is left after them.
func (p uriParser) end(i int) bool {
	if p.at(i) == '?' {
		for i++; p.pchar(i) || p.at(i) == '/' || p.at(i) == '?'; i = p.next(i) {
		}
	}
	if p.at(i) == '#' {
		for i++; p.pchar(i) || p.at(i) == '/' || p.at(i) == '?' || p.at(i) == '[' || p.at(i) == ']'; i = p.next(i) {
		}
	}
	return i == len(p)
}

func (p uriParser) authority(i int) (int, bool) {
	// userinfo "@", if there is one
	j := i
	for p.unreserved(j) || p.pct(j) || isSubDelim(p.at(j)) || p.at(j) == ':' {
		j = p.next(j)
	}
	if p.at(j) == '@' {
		i = j + 1
	}
	// host: an IP literal in brackets, read to the ']' whatever it holds,
	// or a reg-name (which an IPv4 address also is)
	if p.at(i) == '[' {
		for i++; p.at(i) != ']' && i < len(p); i++ {
		}
		if p.at(i) != ']' {
			return i, false
		}
		i++
	} else {
		for p.unreserved(i) || p.pct(i) || isSubDelim(p.at(i)) {
			i = p.next(i)
		}
	}
	if p.at(i) == ':' {
		// a port: at least one digit, and no more than an int holds
		i++
		if !isDigit(p.at(i)) {
			return i, false
		}
		port := 0
		for ; isDigit(p.at(i)); i++ {
			port = port*10 + int(p.at(i)-'0')
			if port > math.MaxInt32 {
				return i, false
			}
		}
	}
	return i, true
}

// segment reads a segment; forbid is a byte it may not hold (0: none).
func (p uriParser) segment(i int, forbid byte) int {
	for p.pchar(i) && p.at(i) != forbid {
		i = p.next(i)
	}
	return i
}

func (p uriParser) pathAbEmpty(i int) int {
	for p.at(i) == '/' {
		i = p.segment(i+1, 0)
	}
	return i
}

func (p uriParser) pathAbsolute(i int) int {
	i++ // the '/'
	if !p.pchar(i) {
		return i
	}
	return p.pathAbEmpty(p.segment(i, 0))
}

// path reads a rootless path, whose first segment is not empty.
func (p uriParser) path(i int, forbid byte) (int, bool) {
	if !p.pchar(i) || p.at(i) == forbid {
		return i, false
	}
	return p.pathAbEmpty(p.segment(i, forbid)), true
}

// priorityRE is xs:decimal's lexical form.
var priorityRE = regexp.MustCompile(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)$`)

// xsPriority reports whether v is an xs:decimal from 0.0 to 1.0, the
// type sitemap.xsd gives <priority>: "1", ".5", "0.50", "+0.5", "-0" and
// " 1.0 " are, "1e-1", "5", "-0.1" and "0,5" are not. (libxml2 before
// 2.14 also rejects decimals of more than 24 significant digits; this
// does not.)
func xsPriority(v string) bool {
	s := collapse(v)
	if !priorityRE.MatchString(s) {
		return false
	}
	neg := s[0] == '-'
	s = strings.TrimLeft(s, "+-")
	whole, frac, _ := strings.Cut(s, ".")
	whole = strings.TrimLeft(whole, "0")
	zeroFrac := strings.Trim(frac, "0") == ""
	switch {
	case whole == "" && (!neg || zeroFrac):
		return true
	case whole == "1" && !neg:
		return zeroFrac
	}
	return false
}

// xsNCName reports whether v (whitespace collapsed) is an XML name
// without a colon, as xs:ID wants. Letters, digits and combining marks
// are Unicode's; libxml2 uses the older tables of XML 1.0's fourth
// edition, which differ for a few rare characters.
func xsNCName(v string) bool {
	v = collapse(v)
	for i, r := range v {
		if i == 0 && !(r == '_' || unicode.IsLetter(r)) || !nameChar(r) || r == ':' {
			return false
		}
	}
	return v != ""
}

// xsNMTOKENS reports whether v is a space-separated list of XML name
// tokens. Like libxml2, it takes an empty list.
func xsNMTOKENS(v string) bool {
	for _, tok := range strings.FieldsFunc(v, isXMLSpace) {
		for _, r := range tok {
			if !nameChar(r) {
				return false
			}
		}
	}
	return true
}

func nameChar(r rune) bool {
	return r < utf8.RuneSelf && (isAlpha(byte(r)) || isDigit(byte(r)) || strings.ContainsRune("._-:", r)) ||
		r >= utf8.RuneSelf && (unicode.In(r, unicode.L, unicode.Nd, unicode.Mn, unicode.Mc, unicode.Me) || extender(r))
}

// extender is XML 1.0's Extender production.
func extender(r rune) bool {
	switch {
	case r == 0xB7, r == 0x2D0, r == 0x2D1, r == 0x387, r == 0x640, r == 0xE46, r == 0xEC6, r == 0x3005:
		return true
	case 0x3031 <= r && r <= 0x3035, 0x309D <= r && r <= 0x309E, 0x30FC <= r && r <= 0x30FE:
		return true
	}
	return false
}

// mediaRE is XHTML's MediaDesc: one or more media descriptors separated
// by commas (the value is not whitespace-collapsed).
var mediaRE = regexp.MustCompile(`^[^,]+(,[ \t\n\r]*[^,]+)*$`)
