package significant

import (
	"html"
	"unicode/utf8"
)

// Character references, decoded as the tokenizer decodes them, so that
// "&eacute;", "&#233;", "&#xE9;" and "é" are the same text. The common
// ones are decoded here without allocating; any other goes to
// html.UnescapeString (the tokenizer's own table, legacy names without
// ';' included), a few bytes at a time.

var entities = map[string]string{
	"amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u00a0",
	"copy": "©", "reg": "®", "trade": "™", "mdash": "—", "ndash": "–", "hellip": "…",
	"laquo": "«", "raquo": "»", "lsquo": "‘", "rsquo": "’", "ldquo": "“", "rdquo": "”",
	"sbquo": "‚", "bdquo": "„", "middot": "·", "bull": "•", "times": "×", "divide": "÷",
	"euro": "€", "pound": "£", "deg": "°", "para": "¶", "sect": "§", "shy": "\u00ad",
	"thinsp": "\u2009", "ensp": "\u2002", "emsp": "\u2003", "zwj": "\u200d", "zwnj": "\u200c",
	"larr": "←", "rarr": "→", "uarr": "↑", "darr": "↓", "harr": "↔", "check": "✓",
}

// appendUnescape appends s with its character references decoded.
func appendUnescape(dst, s []byte) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c != '&' {
			j := i + 1
			for j < len(s) && s[j] != '&' {
				j++
			}
			dst = append(dst, s[i:j]...)
			i = j
			continue
		}
		n, out := decodeRef(s[i:], dst)
		dst = out
		i += n
	}
	return dst
}

// decodeRef decodes the reference at the start of s (s[0] == '&'),
// appending it to dst; n is how many bytes of s it took.
func decodeRef(s, dst []byte) (n int, out []byte) {
	if len(s) > 1 && s[1] == '#' {
		i, hex := 2, false
		if i < len(s) && s[i]|0x20 == 'x' {
			hex = true
			i++
		}
		base := 10
		if hex {
			base = 16
		}
		v, d := 0, 0
		for ; i < len(s) && d < 8; i, d = i+1, d+1 {
			c := s[i]
			switch {
			case c >= '0' && c <= '9':
				v = v*base + int(c-'0')
				continue
			case hex && c|0x20 >= 'a' && c|0x20 <= 'f':
				v = v*16 + int(c|0x20-'a'+10)
				continue
			}
			break
		}
		if d == 0 || d == 8 || (v >= 0x80 && v <= 0x9f) || v == 0 || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff) {
			return fallback(s, i, dst)
		}
		if i < len(s) && s[i] == ';' {
			i++
		}
		return i, utf8.AppendRune(dst, rune(v))
	}
	i := 1
	for i < len(s) && i < 33 && (isLetter(s[i]) || s[i] >= '0' && s[i] <= '9') {
		i++
	}
	if i == 1 {
		return 1, append(dst, '&')
	}
	if i < len(s) && s[i] == ';' {
		if v, ok := entities[string(s[1:i])]; ok {
			return i + 1, append(dst, v...)
		}
		i++
	}
	return fallback(s, i, dst)
}

// fallback decodes s[:n] with the html package (an unusual reference).
func fallback(s []byte, n int, dst []byte) (int, []byte) {
	n = min(n, len(s))
	return n, append(dst, html.UnescapeString(string(s[:n]))...)
}
