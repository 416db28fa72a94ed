package significant

import (
	"bytes"
	"slices"
	"unicode/utf8"
)

// fastJSONHash is jsonHash without encoding/json, for the JSON-LD
// generators write: a top-level object or array, strings in valid UTF-8
// without \u escapes, no key twice in an object. It hashes what
// hashJSON hashes of the value encoding/json decodes, and reports false
// for anything else (a \u escape, invalid UTF-8, a syntax error, a
// duplicate key, deep nesting), which jsonHash leaves to encoding/json:
// what a Print is does not depend on which of the two read it
// (FuzzJSONHash holds them to it).
func fastJSONHash(raw []byte) (uint64, bool) {
	i := skipJSONSpace(raw, 0)
	if i >= len(raw) || (raw[i] != '{' && raw[i] != '[') {
		return 0, false
	}
	p := jsonParser{src: raw}
	h, end, ok := p.hash(seedData, i, 0)
	if !ok {
		return 0, false
	}
	// JSON-LD is one value; anything after it counts as text.
	if rest := bytes.TrimSpace(raw[end:]); len(rest) > 0 {
		h = mix(h, sum(rest))
	}
	return h, true
}

type jsonParser struct{ src []byte }

// maxJSONDepth: deeper than this is left to encoding/json.
const maxJSONDepth = 200

func skipJSONSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// member is an object's key and its value's span.
type member struct {
	key        []byte
	start, end int
}

// hash hashes the value at i (no space before it) as hashJSON does, and
// returns where it ends.
func (p *jsonParser) hash(h uint64, i, depth int) (uint64, int, bool) {
	src := p.src
	if i >= len(src) || depth > maxJSONDepth {
		return 0, 0, false
	}
	switch c := src[i]; {
	case c == '{':
		// An object's members are found first (each value's span, not
		// read), sorted by key, then hashed in that order, each value
		// read once there: a nested value is not read once for every
		// object around it.
		var buf [16]member
		ms, end, ok := p.members(i, buf[:0])
		if !ok {
			return 0, 0, false
		}
		sortMembers(ms)
		for k := 1; k < len(ms); k++ {
			if bytes.Equal(ms[k-1].key, ms[k].key) {
				return 0, 0, false // the last one wins in encoding/json
			}
		}
		h = mix(h, 7)
		for _, m := range ms {
			var e int
			if h, e, ok = p.hash(mix(h, sum(m.key)), m.start, depth+1); !ok || e != m.end {
				return 0, 0, false
			}
		}
		return mix(h, uint64(len(ms))), end, true
	case c == '[':
		return p.array(h, i, depth)
	case c == '"':
		s, end, ok := p.str(i)
		if !ok {
			return 0, 0, false
		}
		return mix(mix(h, 5), sum(s)), end, true
	case c == '-' || (c >= '0' && c <= '9'):
		end, ok := p.number(i)
		if !ok {
			return 0, 0, false
		}
		return mix(mix(h, 4), sum(src[i:end])), end, true
	case bytes.HasPrefix(src[i:], []byte("true")):
		return mix(h, 2), i + 4, true
	case bytes.HasPrefix(src[i:], []byte("false")):
		return mix(h, 3), i + 5, true
	case bytes.HasPrefix(src[i:], []byte("null")):
		return mix(h, 1), i + 4, true
	}
	return 0, 0, false
}

// array hashes the array at i as hashJSON does.
func (p *jsonParser) array(h uint64, i, depth int) (uint64, int, bool) {
	src := p.src
	h = mix(h, 6)
	n := 0
	i = skipJSONSpace(src, i+1)
	if i < len(src) && src[i] == ']' {
		return mix(h, 0), i + 1, true
	}
	for {
		var ok bool
		if h, i, ok = p.hash(h, i, depth+1); !ok {
			return 0, 0, false
		}
		n++
		i = skipJSONSpace(src, i)
		if i >= len(src) {
			return 0, 0, false
		}
		if src[i] == ']' {
			return mix(h, uint64(n)), i + 1, true
		}
		if src[i] != ',' {
			return 0, 0, false
		}
		i = skipJSONSpace(src, i+1)
	}
}

// members reads the object at i as far as its members' keys and their
// values' spans (where each value ends, its brackets matched, not checked:
// hash checks it, and that it ends there), appended to ms, and returns
// where the object ends.
func (p *jsonParser) members(i int, ms []member) ([]member, int, bool) {
	src := p.src
	i = skipJSONSpace(src, i+1)
	if i < len(src) && src[i] == '}' {
		return ms, i + 1, true
	}
	for {
		if i >= len(src) || src[i] != '"' {
			return nil, 0, false
		}
		key, end, ok := p.str(i)
		if !ok {
			return nil, 0, false
		}
		i = skipJSONSpace(src, end)
		if i >= len(src) || src[i] != ':' {
			return nil, 0, false
		}
		i = skipJSONSpace(src, i+1)
		start := i
		if i, ok = p.span(i); !ok {
			return nil, 0, false
		}
		ms = append(ms, member{key, start, i})
		i = skipJSONSpace(src, i)
		if i >= len(src) {
			return nil, 0, false
		}
		if src[i] == '}' {
			return ms, i + 1, true
		}
		if src[i] != ',' {
			return nil, 0, false
		}
		i = skipJSONSpace(src, i+1)
	}
}

// span is where the value at i ends: a string at its closing quote, a
// number by the grammar, an object or array where its brackets balance
// (strings skipped). What is inside is not checked.
func (p *jsonParser) span(i int) (int, bool) {
	src := p.src
	if i >= len(src) {
		return 0, false
	}
	switch c := src[i]; {
	case c == '"':
		return stringEnd(src, i)
	case c == '{' || c == '[':
		open := 0
		for i < len(src) {
			if !jsonMarks[src[i]] {
				i++
				continue
			}
			switch src[i] {
			case '{', '[':
				open++
			case '}', ']':
				if open--; open == 0 {
					return i + 1, true
				}
			case '"':
				end, ok := stringEnd(src, i)
				if !ok {
					return 0, false
				}
				i = end
				continue
			}
			i++
		}
		return 0, false
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number(i)
	case bytes.HasPrefix(src[i:], []byte("true")), bytes.HasPrefix(src[i:], []byte("null")):
		return i + 4, true
	case bytes.HasPrefix(src[i:], []byte("false")):
		return i + 5, true
	}
	return 0, false
}

// stringEnd is where the string at i (its '"') ends, past its closing
// quote, its escapes skipped, not checked.
func stringEnd(src []byte, i int) (int, bool) {
	for j := i + 1; j < len(src); j++ {
		if !strMarks[src[j]] {
			continue
		}
		switch src[j] {
		case '"':
			return j + 1, true
		case '\\':
			j++
		}
	}
	return 0, false
}

// jsonMarks are the bytes span looks at in an object or array, strMarks
// those stringEnd does.
var jsonMarks, strMarks = func() (j, s [256]bool) {
	for _, c := range []byte(`{}[]"`) {
		j[c] = true
	}
	s['"'], s['\\'] = true, true
	return j, s
}()

// sortMembers sorts an object's members by key: by insertion, as an
// object has a few.
func sortMembers(ms []member) {
	if len(ms) > 16 {
		slices.SortFunc(ms, func(a, b member) int { return bytes.Compare(a.key, b.key) })
		return
	}
	for i := 1; i < len(ms); i++ {
		for j := i; j > 0 && bytes.Compare(ms[j-1].key, ms[j].key) > 0; j-- {
			ms[j-1], ms[j] = ms[j], ms[j-1]
		}
	}
}

// str reads the string at i (its '"'): its content, unquoted, and where
// it ends. The one-character escapes (WordPress writes "https:\/\/…")
// are unquoted here; a \u escape, a control character or invalid UTF-8
// (which encoding/json would change) is not for it.
func (p *jsonParser) str(i int) ([]byte, int, bool) {
	src := p.src
	var out []byte // the content unquoted, once it has an escape
	from := i + 1  // the content not yet in out
	high := false  // a byte above ASCII: its UTF-8 is checked
	for j := i + 1; j < len(src); j++ {
		c := src[j]
		if !strStop[c] {
			continue
		}
		switch {
		case c == '"':
			s := src[from:j]
			if out != nil {
				s = append(out, s...)
			}
			return s, j + 1, !high || utf8.Valid(s)
		case c == '\\':
			if j+1 >= len(src) {
				return nil, 0, false
			}
			e := jsonEscapes[src[j+1]]
			if e == 0 {
				return nil, 0, false
			}
			out = append(append(out, src[from:j]...), e)
			j++
			from = j + 1
		case c < 0x20:
			return nil, 0, false
		default:
			high = true
		}
	}
	return nil, 0, false
}

// strStop are the bytes str looks at: a quote, a backslash, a control
// character, and a byte above ASCII.
var strStop = func() (t [256]bool) {
	for c := range t {
		t[c] = c < 0x20 || c >= 0x80 || c == '"' || c == '\\'
	}
	return t
}()

// jsonEscapes are the one-character escapes and what they stand for.
var jsonEscapes = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// number reads the number at i by JSON's grammar and returns where it
// ends.
func (p *jsonParser) number(i int) (int, bool) {
	src := p.src
	digits := func(j int) int {
		for j < len(src) && src[j] >= '0' && src[j] <= '9' {
			j++
		}
		return j
	}
	if src[i] == '-' {
		i++
	}
	switch {
	case i < len(src) && src[i] == '0':
		i++
	case i < len(src) && src[i] >= '1' && src[i] <= '9':
		i = digits(i)
	default:
		return 0, false
	}
	if i < len(src) && src[i] == '.' {
		j := digits(i + 1)
		if j == i+1 {
			return 0, false
		}
		i = j
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		i++
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			i++
		}
		j := digits(i)
		if j == i {
			return 0, false
		}
		i = j
	}
	return i, true
}
