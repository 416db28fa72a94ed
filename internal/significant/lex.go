package significant

import "bytes"

// The scanner's pieces: where comments, bogus comments and tags end, and
// a tag's name and attributes, by the HTML tokenizer's rules.

// The attributes the reader looks at.
const (
	aClass = iota
	aID
	aRole
	aHref
	aSrc
	aDataSrc
	aAlt
	aType
	aItemprop
	aContent
	aDatetime
	nAttrs
)

// attrs are the attributes the reader looks at, the first of each key,
// as spans of the page (not decoded): [v[k][0], v[k][1]), present when
// bit k of has is set. Offsets, not slices, and a bit set, not a cleared
// array: starting a tag's attributes is two stores, and keeping them
// costs no write barriers.
type attrs struct {
	v      [nAttrs][2]int32
	has    uint16
	hidden bool
}

// av is an attribute's raw value; nil when the tag has none.
func (r *reader) av(k int) []byte {
	if r.at.has&(1<<k) == 0 {
		return nil
	}
	s := r.at.v[k]
	return r.src[s[0]:s[1]]
}

// commentEnd is where a comment whose text starts at i ends, as the
// tokenizer ends it: "<!-->" and "<!--->" are whole, "-->" and "--!>"
// end one, and so does the end of the input.
func commentEnd(src []byte, i int) int {
	if i < len(src) && src[i] == '>' {
		return i + 1
	}
	if i+1 < len(src) && src[i] == '-' && src[i+1] == '>' {
		return i + 2
	}
	for k := i; k+1 < len(src); {
		d := bytes.Index(src[k:], []byte("--"))
		if d < 0 {
			break
		}
		k += d
		if k+2 < len(src) && src[k+2] == '>' {
			return k + 3
		}
		if k+3 < len(src) && src[k+2] == '!' && src[k+3] == '>' {
			return k + 4
		}
		k++
	}
	return len(src)
}

// bogusEnd: a doctype, a processing instruction, "</" and not a letter…
// end at the next '>'.
func bogusEnd(src []byte, i int) int {
	j := bytes.IndexByte(src[i:], '>')
	if j < 0 {
		return len(src)
	}
	return i + j + 1
}

var spaces = [256]bool{' ': true, '\t': true, '\n': true, '\r': true, '\f': true}

func isSpace(c byte) bool { return spaces[c] }

// trimSpace trims ASCII white space, as HTML defines it.
func trimSpace(b []byte) []byte {
	for len(b) > 0 && spaces[b[0]] {
		b = b[1:]
	}
	for len(b) > 0 && spaces[b[len(b)-1]] {
		b = b[:len(b)-1]
	}
	return b
}

// tagName reads a tag's name from i, lower case (in r.lowName when it fits,
// else a hash-only name), and returns it, its key (nameHash) and where
// it ends: the name's end found first, then its bytes lowered and packed
// in one tight loop.
func (r *reader) tagName(i int) ([]byte, uint64, int) {
	src := r.src
	if i+1 < len(src) && nameEnd[src[i+1]] && !nameEnd[src[i]] {
		// One letter (p, a, b, i…), the most common names.
		c := lower[src[i]]
		r.lowName[0] = c
		return r.lowName[:1], uint64(c), i + 1
	}
	j := i
	for j < len(src) && !nameEnd[src[j]] {
		j++
	}
	name := src[i:j]
	if len(name) > len(r.lowName) {
		// A name this long is no element the reader knows: its hash, of
		// the lower-case bytes (bytes.ToLower's, Unicode's, as before),
		// matches its end tag all the same.
		low := bytes.ToLower(name)
		return low, nameHash(low), j
	}
	low := r.lowName[:len(name)]
	var h uint64
	for k, c := range name {
		c = lower[c]
		low[k] = c
		h = h<<8 | uint64(c)
	}
	if len(name) > 8 {
		h = nameHash(low)
	}
	return low, h, j
}

// nameEnd are the bytes that end a tag's name.
var nameEnd = [256]bool{' ': true, '\t': true, '\n': true, '\r': true, '\f': true, '/': true, '>': true}

// lower is ASCII's lower case of a byte.
var lower = func() (t [256]byte) {
	for c := range t {
		t[c] = byte(c)
		if c >= 'A' && c <= 'Z' {
			t[c] += 'a' - 'A'
		}
	}
	return t
}()

// readAttrs reads a tag's attributes from i, by the tokenizer's rules, into
// r.at. It returns where the tag ends and whether it is self-closing; -1
// when the input ends within it (the tokenizer drops such a tag). Without
// all, it only notes an itemprop's presence (r.at.has), for a tag whose
// other attributes do not count (voidAttrs).
func (r *reader) readAttrs(i int, all bool) (int, bool) {
	src := r.src
	r.at.has, r.at.hidden = 0, false
	for {
		for i < len(src) && isSpace(src[i]) {
			i++
		}
		if i >= len(src) {
			return -1, false
		}
		switch src[i] {
		case '>':
			return i + 1, false
		case '/':
			if i+1 < len(src) && src[i+1] == '>' {
				return i + 2, true
			}
			i++
			continue
		}
		k0 := i
		i++ // a first '=' is part of the name
		for i < len(src) && !keyEnd[src[i]] {
			i++
		}
		k1 := i
		for i < len(src) && isSpace(src[i]) {
			i++
		}
		v0, v1 := i, i
		if i < len(src) && src[i] == '=' {
			i++
			for i < len(src) && isSpace(src[i]) {
				i++
			}
			if i >= len(src) {
				return -1, false
			}
			if q := src[i]; q == '"' || q == '\'' {
				j := bytes.IndexByte(src[i+1:], q)
				if j < 0 {
					return -1, false
				}
				v0, v1 = i+1, i+1+j
				i += j + 2
			} else {
				v0 = i
				for i < len(src) && !valueEnd[src[i]] {
					i++
				}
				v1 = i
			}
		}
		if all {
			r.at.set(src, k0, k1, v0, v1)
		} else if k1-k0 == 8 && keyIs(src[k0:k1], "itemprop") {
			r.at.has |= 1 << aItemprop
		}
	}
}

// keyEnd are the bytes that end an attribute's key, valueEnd an unquoted
// value: a table, one look a byte.
var keyEnd, valueEnd = func() (k, v [256]bool) {
	for _, c := range []byte(" \t\n\r\f>") {
		k[c], v[c] = true, true
	}
	k['/'], k['='] = true, true
	return k, v
}()

// set keeps an attribute the reader looks at, the first of its key: its
// key is src[k0:k1], its value src[v0:v1]. Keys are told apart by length
// first, then compared in ASCII's lower case.
func (a *attrs) set(src []byte, k0, k1, v0, v1 int) {
	key := src[k0:k1]
	k := -1
	switch len(key) {
	case 2:
		if keyIs(key, "id") {
			k = aID
		}
	case 3:
		switch {
		case keyIs(key, "src"):
			k = aSrc
		case keyIs(key, "alt"):
			k = aAlt
		}
	case 4:
		switch {
		case keyIs(key, "href"):
			k = aHref
		case keyIs(key, "role"):
			k = aRole
		case keyIs(key, "type"):
			k = aType
		}
	case 5:
		if keyIs(key, "class") {
			k = aClass
		}
	case 6:
		if keyIs(key, "hidden") {
			a.hidden = true
		}
	case 7:
		if keyIs(key, "content") {
			k = aContent
		}
	case 8:
		switch {
		case keyIs(key, "data-src"):
			k = aDataSrc
		case keyIs(key, "itemprop"):
			k = aItemprop
		case keyIs(key, "datetime"):
			k = aDatetime
		}
	case 11:
		if keyIs(key, "aria-hidden") && string(trimSpace(src[v0:v1])) == "true" {
			a.hidden = true
		}
	}
	if k >= 0 && a.has&(1<<k) == 0 {
		a.has |= 1 << k
		a.v[k] = [2]int32{int32(v0), int32(v1)}
	}
}

// keyIs reports whether key, of want's length, is want (lower case
// letters and '-') in any ASCII case. b|0x20 is b's lower case for a
// letter, and only a letter's (or '\r', which ends a key) is a lower
// case letter or '-'.
func keyIs(key []byte, want string) bool {
	for i := 0; i < len(want); i++ {
		if key[i]|0x20 != want[i] {
			return false
		}
	}
	return true
}
