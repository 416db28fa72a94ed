package head

// validJSON is json.Valid, faster: what says whether a JSON-LD script is
// JSON at all (and so whether it is reported) whether or not its nodes are
// needed. It accepts what encoding/json's scanner accepts: RFC 8259 JSON,
// white space " \t\n\r", strings of any bytes but control characters
// (invalid UTF-8 included), values nested at most 10000 deep.
func validJSON(b []byte) bool {
	v := jsonValidator{b: b}
	v.space()
	if !v.value() {
		return false
	}
	v.space()
	return v.i == len(v.b)
}

// maxJSONDepth is encoding/json's maxNestingDepth.
const maxJSONDepth = 10000

type jsonValidator struct {
	b     []byte
	i     int
	depth int
}

func (v *jsonValidator) space() {
	for v.i < len(v.b) {
		switch v.b[v.i] {
		case ' ', '\t', '\n', '\r':
			v.i++
		default:
			return
		}
	}
}

// next is the next byte, or 0 at the end (never valid where it is asked).
func (v *jsonValidator) next() byte {
	if v.i < len(v.b) {
		return v.b[v.i]
	}
	return 0
}

func (v *jsonValidator) value() bool {
	switch c := v.next(); {
	case c == '{':
		return v.object()
	case c == '[':
		return v.array()
	case c == '"':
		return v.string()
	case c == '-' || '0' <= c && c <= '9':
		return v.number()
	case c == 't':
		return v.literal("true")
	case c == 'f':
		return v.literal("false")
	case c == 'n':
		return v.literal("null")
	}
	return false
}

func (v *jsonValidator) literal(s string) bool {
	if len(v.b)-v.i < len(s) || string(v.b[v.i:v.i+len(s)]) != s {
		return false
	}
	v.i += len(s)
	return true
}

func (v *jsonValidator) object() bool {
	if v.depth++; v.depth > maxJSONDepth {
		return false
	}
	v.i++ // '{'
	v.space()
	if v.next() == '}' {
		v.i++
		v.depth--
		return true
	}
	for {
		if v.next() != '"' || !v.string() {
			return false
		}
		v.space()
		if v.next() != ':' {
			return false
		}
		v.i++
		v.space()
		if !v.value() {
			return false
		}
		v.space()
		switch v.next() {
		case ',':
			v.i++
			v.space()
		case '}':
			v.i++
			v.depth--
			return true
		default:
			return false
		}
	}
}

func (v *jsonValidator) array() bool {
	if v.depth++; v.depth > maxJSONDepth {
		return false
	}
	v.i++ // '['
	v.space()
	if v.next() == ']' {
		v.i++
		v.depth--
		return true
	}
	for {
		if !v.value() {
			return false
		}
		v.space()
		switch v.next() {
		case ',':
			v.i++
			v.space()
		case ']':
			v.i++
			v.depth--
			return true
		default:
			return false
		}
	}
}

// plainInString are the bytes a string holds as they are: not '"', '\\'
// or a control character.
var plainInString = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func (v *jsonValidator) string() bool {
	v.i++ // '"'
	for {
		for v.i < len(v.b) && plainInString[v.b[v.i]] {
			v.i++
		}
		switch v.next() {
		case '"':
			v.i++
			return true
		case '\\':
			v.i++
			switch v.next() {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				v.i++
			case 'u':
				v.i++
				for range 4 {
					c := v.next()
					if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
						return false
					}
					v.i++
				}
			default:
				return false
			}
		default: // a control character, or the end
			return false
		}
	}
}

func (v *jsonValidator) number() bool {
	digits := func() int {
		n := 0
		for c := v.next(); '0' <= c && c <= '9'; c = v.next() {
			v.i++
			n++
		}
		return n
	}
	if v.next() == '-' {
		v.i++
	}
	switch c := v.next(); {
	case c == '0':
		v.i++
	case '1' <= c && c <= '9':
		digits()
	default:
		return false
	}
	if v.next() == '.' {
		v.i++
		if digits() == 0 {
			return false
		}
	}
	if c := v.next(); c == 'e' || c == 'E' {
		v.i++
		if c := v.next(); c == '+' || c == '-' {
			v.i++
		}
		if digits() == 0 {
			return false
		}
	}
	return true
}
