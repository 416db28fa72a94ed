package head

import (
	"strconv"
	"strings"
)

// Srcset returns the URLs of a srcset attribute's image candidates, as
// written, in order: the HTML Living Standard's "parse a srcset
// attribute" (https://html.spec.whatwg.org/multipage/images.html#parse-a-srcset-attribute),
// whose splitting loop and descriptor tokenizer it follows step by step
// (a URL may hold commas; a trailing one ends it; parentheses group a
// descriptor). A candidate whose descriptors contradict each other (a
// width and a density, two of one kind, a zero width or height, a height
// without a width) is dropped, as there. Where browsers and the
// web-platform-tests differ from the standard's text, it does as they do:
// a descriptor that is not a valid w, x or h descriptor, and a negative
// density, are ignored rather than dropping their candidate.
func Srcset(v string) []string {
	var out []string
	i := 0
	for {
		// Splitting loop: skip white space and commas.
		for i < len(v) && (isSpace(v[i]) || v[i] == ',') {
			i++
		}
		if i >= len(v) {
			return out
		}
		start := i
		for i < len(v) && !isSpace(v[i]) {
			i++
		}
		url := v[start:i]
		var descriptors []string
		if strings.HasSuffix(url, ",") {
			url = strings.TrimRight(url, ",")
		} else {
			descriptors, i = srcsetDescriptors(v, i)
		}
		if url != "" && validDescriptors(descriptors) {
			out = append(out, url)
		}
	}
}

// srcsetDescriptors is the descriptor tokenizer, from i (after a URL): the
// descriptors up to the comma that ends the candidate, and where to read
// on.
func srcsetDescriptors(v string, i int) ([]string, int) {
	for i < len(v) && isSpace(v[i]) {
		i++
	}
	const (
		inDescriptor = iota
		inParens
		afterDescriptor
	)
	var out []string
	var cur strings.Builder
	push := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	state := inDescriptor
	for ; ; i++ {
		if i >= len(v) {
			push()
			return out, i
		}
		c := v[i]
		switch state {
		case inDescriptor:
			switch {
			case isSpace(c):
				push()
				state = afterDescriptor
			case c == ',':
				push()
				return out, i + 1
			case c == '(':
				cur.WriteByte(c)
				state = inParens
			default:
				cur.WriteByte(c)
			}
		case inParens:
			cur.WriteByte(c)
			if c == ')' {
				state = inDescriptor
			}
		case afterDescriptor:
			if !isSpace(c) {
				state = inDescriptor
				i-- // reconsume
			}
		}
	}
}

// validDescriptors is the descriptor parser: whether a candidate with
// these descriptors is kept.
func validDescriptors(ds []string) bool {
	var width, height bool
	var density bool
	for _, d := range ds {
		num, unit := d[:len(d)-1], d[len(d)-1]
		switch {
		case unit == 'w' && isDigits(num):
			if width || density {
				return false
			}
			if strings.Trim(num, "0") == "" {
				return false // zero
			}
			width = true
		case unit == 'x' && validFloat(num):
			f, err := strconv.ParseFloat(num, 64)
			if err != nil || f < 0 {
				continue // out of range, or negative: ignored
			}
			if width || density || height {
				return false
			}
			density = true
		case unit == 'h' && isDigits(num):
			if height || density {
				return false
			}
			if strings.Trim(num, "0") == "" {
				return false // zero
			}
			height = true
		}
	}
	return !height || width
}

// isDigits: a valid non-negative integer, one or more ASCII digits.
func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// validFloat: a valid floating-point number: an optional '-', digits, a
// '.' and digits, or both, and an optional exponent (e or E, an optional
// sign, digits).
func validFloat(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		j := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		return i - j
	}
	n := digits()
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	} else if n == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}
