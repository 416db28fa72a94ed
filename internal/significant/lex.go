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
// as spans of the page (not decoded): [v[k][0]-1, v[k][1]), v[k][0] == 0
// when there is none. Offsets, not slices: clearing them for every tag
// costs no write barriers.
type attrs struct {
	v      [nAttrs][2]int32
	hidden bool
}

// av is an attribute's raw value; nil when the tag has none.
func (r *reader) av(k int) []byte {
	s := r.at.v[k]
	if s[0] == 0 {
		return nil
	}
	return r.src[s[0]-1 : s[1]]
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
// else a hash-only name), and returns it, its hash (nameHash) and where
// it ends: one pass over the name's bytes for all three.
func (r *reader) tagName(i int) ([]byte, uint64, int) {
	src := r.src
	h := uint64(fnvOffset)
	j := i
	for ; j < len(src); j++ {
		c := src[j]
		if nameEnd[c] {
			break
		}
		c = lower[c]
		if k := j - i; k < len(r.lowName) {
			r.lowName[k] = c
		}
		h = (h ^ uint64(c)) * fnvPrime
	}
	if j-i > len(r.lowName) {
		// A name this long is no element the reader knows: its hash, of
		// the lower-case bytes (bytes.ToLower's, Unicode's, as before),
		// matches its end tag all the same.
		low := bytes.ToLower(src[i:j])
		return low, fnv(low), j
	}
	return r.lowName[:j-i], h, j
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
// when the input ends within it (the tokenizer drops such a tag).
func (r *reader) readAttrs(i int) (int, bool) {
	src := r.src
	r.at = attrs{}
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
		for i < len(src) && !isSpace(src[i]) && src[i] != '/' && src[i] != '>' && src[i] != '=' {
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
				for i < len(src) && !isSpace(src[i]) && src[i] != '>' {
					i++
				}
				v1 = i
			}
		}
		r.at.set(src, k0, k1, v0, v1)
	}
}

// set keeps an attribute the reader looks at, the first of its key: its
// key is src[k0:k1], its value src[v0:v1].
func (a *attrs) set(src []byte, k0, k1, v0, v1 int) {
	key := src[k0:k1]
	var low [16]byte
	if len(key) > len(low) {
		return
	}
	for i, c := range key {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	k := -1
	switch string(low[:len(key)]) {
	case "class":
		k = aClass
	case "id":
		k = aID
	case "role":
		k = aRole
	case "href":
		k = aHref
	case "src":
		k = aSrc
	case "data-src":
		k = aDataSrc
	case "alt":
		k = aAlt
	case "type":
		k = aType
	case "itemprop":
		k = aItemprop
	case "content":
		k = aContent
	case "datetime":
		k = aDatetime
	case "hidden":
		a.hidden = true
	case "aria-hidden":
		if string(trimSpace(src[v0:v1])) == "true" {
			a.hidden = true
		}
	}
	if k >= 0 && a.v[k][0] == 0 {
		a.v[k] = [2]int32{int32(v0 + 1), int32(v1)}
	}
}
