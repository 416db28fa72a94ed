package significant

import (
	"bytes"
	"fmt"
	"strings"
)

// Selector is one of the simple selectors of pages.main and pages.ignore:
// `tag`, `#id`, `.class`, `tag.class`, `tag#id`, `[role=value]` and
// `tag[role=value]`. Not CSS: no combinators, no lists, no other
// attributes, one class at most. A zero Selector matches nothing.
type Selector struct {
	Tag   string // lower case; "" for any element
	ID    string
	Class string
	Role  string
	src   string
}

// String is the selector as written.
func (s Selector) String() string { return s.src }

// IsZero reports whether s is the zero Selector, which matches nothing.
func (s Selector) IsZero() bool { return s.src == "" }

// ParseSelector reads a simple selector. Its error names the selector and
// what is wrong with it, for the configuration's error message.
func ParseSelector(s string) (Selector, error) {
	sel := Selector{src: s}
	fail := func(why string) (Selector, error) {
		return Selector{}, fmt.Errorf("selector %q: %s", s, why)
	}
	rest := strings.TrimSpace(s)
	if rest == "" {
		return fail("empty")
	}
	if rest != s {
		return fail("white space around it")
	}
	i := 0
	for i < len(rest) && isNameByte(rest[i]) {
		i++
	}
	sel.Tag, rest = strings.ToLower(rest[:i]), rest[i:]
	if sel.Tag != "" && !isLetter(sel.Tag[0]) {
		return fail("a tag name starts with a letter")
	}
	switch {
	case rest == "":
	case rest[0] == '#' || rest[0] == '.':
		v := rest[1:]
		if v == "" {
			return fail(map[byte]string{'#': "empty id", '.': "empty class name"}[rest[0]])
		}
		if j := strings.IndexAny(v, "#.[] \t\n>+~,:*\"'="); j >= 0 {
			return fail(fmt.Sprintf("%q is not allowed in a simple selector (one tag, id, class or [role=…], no combinators)", v[j]))
		}
		if rest[0] == '#' {
			sel.ID = v
		} else {
			sel.Class = v
		}
	case rest[0] == '[':
		v, ok := strings.CutPrefix(rest, "[role=")
		if !ok || !strings.HasSuffix(v, "]") {
			return fail("the only attribute selector is [role=value]")
		}
		v = strings.Trim(v[:len(v)-1], `"'`)
		if v == "" || strings.ContainsAny(v, "[] \t\n\"'") {
			return fail("the role must be one word")
		}
		sel.Role = strings.ToLower(v)
	default:
		return fail(fmt.Sprintf("%q is not allowed in a simple selector (one tag, id, class or [role=…], no combinators)", rest[0]))
	}
	return sel, nil
}

// ParseSelectors reads several simple selectors (pages.ignore); the error
// names the first bad one.
func ParseSelectors(list []string) ([]Selector, error) {
	out := make([]Selector, 0, len(list))
	for _, s := range list {
		sel, err := ParseSelector(s)
		if err != nil {
			return nil, err
		}
		out = append(out, sel)
	}
	return out, nil
}

// match reports whether an element (tag lower case, its raw id, class
// and role attribute values) is one that s selects.
func (s *Selector) match(tag, id, class, role []byte) bool {
	if s.src == "" {
		return false
	}
	if s.Tag != "" && string(tag) != s.Tag {
		return false
	}
	if s.ID != "" && string(id) != s.ID {
		return false
	}
	if s.Role != "" && !bytes.EqualFold(bytes.TrimSpace(role), []byte(s.Role)) {
		return false
	}
	if s.Class != "" {
		found := false
		for tok := range bytes.FieldsSeq(class) {
			if string(tok) == s.Class {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func isNameByte(c byte) bool { return isLetter(c) || c >= '0' && c <= '9' || c == '-' }
