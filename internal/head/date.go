package head

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// metaProps are the meta properties whose first non-empty content is
// kept: first those that say when a page was last modified (nDateMetas of
// them), the one that counts first first; then those of a news article
// (article.go).
var metaProps = [...]string{"article:modified_time", "og:updated_time", "og:type", "article:published_time", "og:title"}

// nDateMetas are the modification dates' metas, first in metaProps; the
// indexes of the article's follow.
const (
	nDateMetas  = 2
	propOGType  = 2
	propPubTime = 3
	propOGTitle = 4
)

// metaProp is 1 + the index in metaProps of a property attribute's value,
// in any case and between any white space, or 0 if it is none of them.
func metaProp(v []byte) int {
	v = bytes.Trim(v, htmlSpace)
	for i, m := range metaProps {
		if bytes.EqualFold(v, []byte(m)) {
			return i + 1
		}
	}
	return 0
}

// metaRoles are what a meta tag with a content is of metaProps, given
// what its property attribute (byProp) and its name (byName) say (1 + an
// index in metaProps, or 0): a modification date and an article's
// property, each by its property if that is one, or else by its name.
func metaRoles(byProp, byName int) (roles [2]int) {
	for _, i := range [...]int{byProp, byName} {
		k := 0
		if i-1 >= nDateMetas {
			k = 1
		}
		if i > 0 && roles[k] == 0 {
			roles[k] = i
		}
	}
	return roles
}

// metaPropName is metaProp for a name attribute's value.
func metaPropName(v string) int {
	v = strings.Trim(v, htmlSpace)
	for i, m := range metaProps {
		if strings.EqualFold(v, m) {
			return i + 1
		}
	}
	return 0
}

// setModified sets Modified from the value v of a source if it is a usable
// date, or else adds a problem, and reports whether it did.
func (info *Info) setModified(source, v string) bool {
	t, err := parseDate(v)
	if err != nil {
		info.Problems = append(info.Problems, fmt.Sprintf("%s %q %v", source, clip(v), err))
		return false
	}
	info.Modified = t
	return true
}

// clip cuts a value quoted in a problem to a readable length.
func clip(v string) string {
	const most = 64
	if len(v) <= most {
		return v
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return v[:cut] + "…"
}

// ldNode is a JSON-LD node with a dateModified (dated), or of a news
// article's type (news), or both.
type ldNode struct {
	ids   []string // its "url" and "@id" strings, as written
	date  string   // its dateModified, if str; else the JSON of it
	str   bool
	dated bool
	// news: its @type is NewsArticle or one of its schema.org subtypes;
	// then published and headline are its datePublished and headline
	// ("" when not a string).
	news                bool
	published, headline string
}

// setModified sets info.Modified from the node's dateModified, or adds a
// problem.
func (n ldNode) setModified(info *Info) {
	if !n.str {
		info.Problems = append(info.Problems, fmt.Sprintf("JSON-LD dateModified %s is not a string", clip(n.date)))
		return
	}
	info.setModified("JSON-LD dateModified", n.date)
}

// readLD appends to nodes those of a JSON-LD script that have a
// dateModified or are news articles: the script's top-level object, or the objects of its
// top-level array, each followed by the objects of its "@graph". It
// returns an error only for a script that is not JSON; an empty one is
// not an error.
func readLD(src []byte, nodes []ldNode) ([]ldNode, error) {
	src = bytes.Trim(src, " \t\n\r")
	if len(src) == 0 {
		return nodes, nil
	}
	if src[0] != '{' && src[0] != '[' {
		if !json.Valid(src) {
			var v any
			return nodes, json.Unmarshal(src, &v) // for the error's text
		}
		return nodes, nil // a string, a number: no node
	}
	var err error
	nodes, err = ldObjects(src, nodes, true)
	return nodes, err
}

// ldObjects appends the nodes of an object or of an array's objects, and
// if graph, those of their "@graph".
func ldObjects(src []byte, nodes []ldNode, graph bool) ([]ldNode, error) {
	var objs []json.RawMessage
	if len(src) > 0 && src[0] == '[' {
		if err := json.Unmarshal(src, &objs); err != nil {
			return nodes, err
		}
	} else {
		objs = []json.RawMessage{src}
	}
	for _, o := range objs {
		// JSON-LD's keys are case-sensitive; encoding/json's field
		// matching is not: a map.
		var m map[string]json.RawMessage
		if err := json.Unmarshal(o, &m); err != nil {
			var syntax *json.SyntaxError
			if errors.As(err, &syntax) {
				return nodes, err
			}
			continue // not an object
		}
		n, dated := ldDate(m)
		n.dated = dated
		if isNewsNode(m) {
			n.news, n.published, n.headline = true, ldText(m["datePublished"]), ldText(m["headline"])
		}
		if n.dated || n.news {
			for _, k := range []string{"url", "@id"} {
				var id string
				if json.Unmarshal(m[k], &id) == nil {
					n.ids = append(n.ids, id)
				}
			}
			nodes = append(nodes, n)
		}
		if g, ok := m["@graph"]; ok && graph {
			g = bytes.TrimLeft(g, " \t\n\r")
			if len(g) > 0 && (g[0] == '[' || g[0] == '{') {
				nodes, _ = ldObjects(g, nodes, false) // valid JSON already
			}
		}
	}
	return nodes, nil
}

// ldDate reads a node's dateModified: a string, or an array whose first
// element is one. Null, an empty string and an empty array are none.
func ldDate(m map[string]json.RawMessage) (ldNode, bool) {
	raw, ok := m["dateModified"]
	if !ok {
		return ldNode{}, false
	}
	raw = bytes.Trim(raw, " \t\n\r")
	var arr []json.RawMessage
	if json.Unmarshal(raw, &arr) == nil {
		if len(arr) == 0 {
			return ldNode{}, false
		}
		raw = bytes.Trim(arr[0], " \t\n\r")
	}
	var s string
	switch {
	case string(raw) == "null":
		return ldNode{}, false
	case json.Unmarshal(raw, &s) == nil:
		if strings.Trim(s, htmlSpace) == "" {
			return ldNode{}, false
		}
		return ldNode{date: s, str: true}, true
	}
	return ldNode{date: string(raw)}, true
}

// errNoZone is parseDate's error for a time without a time zone.
var errNoZone = errors.New("has no time zone")

// errNotDate is parseDate's error for anything else it cannot use.
var errNotDate = errors.New("is not a W3C date")

// parseDate parses a W3C Datetime (https://www.w3.org/TR/NOTE-datetime),
// the profile of ISO 8601 that sitemaps and schema.org use, and returns
// the instant in UTC: YYYY, YYYY-MM and YYYY-MM-DD are the first instant
// of that year, month or day in UTC; YYYY-MM-DDThh:mm, …:ss and …:ss.s…
// (any number of digits; past nanoseconds, truncated) need a time zone,
// Z, ±hh:mm or ±hhmm (the form PHP's DATE_ISO8601 writes), with hh up to
// 23. An instant that is not in years 0000 to 9999 in UTC is refused. The
// value is trimmed of white space first. It allocates nothing.
func parseDate(s string) (time.Time, error) {
	d := dateText(strings.Trim(s, htmlSpace))
	year, month, day, err := d.calendar()
	if err != nil {
		return time.Time{}, err
	}
	if len(d) <= 10 {
		return time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC), nil
	}
	hour, minute, sec, nsec, rest, err := d.clock()
	if err != nil {
		return time.Time{}, err
	}
	offset, err := zoneOffset(rest)
	if err != nil {
		return time.Time{}, err
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC)
	t = t.Add(-time.Duration(offset) * time.Second)
	// The zone can carry the instant out of the four-digit years
	// (0000-01-01T00:00+01:00 is in year -1 in UTC), where no W3C date
	// can say it.
	if y := t.Year(); y < 0 || y > 9999 {
		return time.Time{}, errNotDate
	}
	return t, nil
}

// dateText is a W3C Datetime being read: its fields are at fixed offsets.
type dateText string

// digits is s's decimal value, if s is digits and not empty.
func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, len(s) > 0
}

// field is the n-digit number at i, if it is there and within lo..hi.
func (d dateText) field(i, n, lo, hi int) (int, bool) {
	if len(d) < i+n {
		return 0, false
	}
	v, ok := digits(string(d[i : i+n]))
	return v, ok && lo <= v && v <= hi
}

// calendar reads the date's YYYY, YYYY-MM or YYYY-MM-DD (a month or day
// left out is the first).
func (d dateText) calendar() (year, month, day int, err error) {
	year, ok := d.field(0, 4, 0, 9999)
	if !ok {
		return 0, 0, 0, errNotDate
	}
	if len(d) == 4 {
		return year, 1, 1, nil
	}
	if month, ok = d.field(5, 2, 1, 12); !ok || d[4] != '-' {
		return 0, 0, 0, errNotDate
	}
	if len(d) == 7 {
		return year, month, 1, nil
	}
	// The last day of the month: the day before the first of the next.
	days := time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
	if day, ok = d.field(8, 2, 1, days); !ok || d[7] != '-' {
		return 0, 0, 0, errNotDate
	}
	return year, month, day, nil
}

// clock reads the time of day after a full date: Thh:mm, then :ss and a
// fraction (any number of digits, truncated past nanoseconds) if there;
// rest is what follows (the zone).
func (d dateText) clock() (hour, minute, sec, nsec int, rest string, err error) {
	hour, ok1 := d.field(11, 2, 0, 23)
	minute, ok2 := d.field(14, 2, 0, 59)
	if !ok1 || !ok2 || d[10] != 'T' || d[13] != ':' {
		return 0, 0, 0, 0, "", errNotDate
	}
	rest = string(d[16:])
	if len(rest) == 0 || rest[0] != ':' {
		return hour, minute, 0, 0, rest, nil
	}
	var ok bool
	if sec, ok = d.field(17, 2, 0, 59); !ok {
		return 0, 0, 0, 0, "", errNotDate
	}
	rest = rest[3:]
	if len(rest) == 0 || rest[0] != '.' {
		return hour, minute, sec, 0, rest, nil
	}
	i := 1
	for i < len(rest) && '0' <= rest[i] && rest[i] <= '9' {
		if i <= 9 {
			nsec = nsec*10 + int(rest[i]-'0')
		}
		i++
	}
	if i == 1 {
		return 0, 0, 0, 0, "", errNotDate
	}
	for n := min(i-1, 9); n < 9; n++ {
		nsec *= 10
	}
	return hour, minute, sec, nsec, rest[i:], nil
}

// zoneOffset reads a time's zone, Z, ±hh:mm or ±hhmm, as seconds east
// of UTC.
func zoneOffset(zone string) (int, error) {
	switch {
	case zone == "":
		return 0, errNoZone
	case zone == "Z":
		return 0, nil
	case len(zone) == 6 && zone[3] == ':' || len(zone) == 5:
	default:
		return 0, errNotDate
	}
	if zone[0] != '+' && zone[0] != '-' {
		return 0, errNotDate
	}
	h, ok1 := digits(zone[1:3])
	m, ok2 := digits(zone[len(zone)-2:])
	if !ok1 || !ok2 || h > 23 || m > 59 {
		return 0, errNotDate
	}
	offset := (h*60 + m) * 60
	if zone[0] == '-' {
		offset = -offset
	}
	return offset, nil
}
