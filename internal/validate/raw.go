package validate

import (
	"bytes"
	"io"
)

// window keeps the input the XML decoder has read and not yet finished
// with, so that each token's own bytes can be looked at: the prefixes it
// was written with, the line each attribute is on, and whether text came
// in a CDATA section. It holds from the start of the current token to as
// far as the decoder has read ahead.
type window struct {
	r    io.Reader
	buf  []byte
	base int64 // input offset of buf[0]
}

func (w *window) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	w.buf = append(w.buf, p[:n]...)
	return n, err
}

// span returns the input from offset from to offset to.
func (w *window) span(from, to int64) []byte { return w.buf[from-w.base : to-w.base] }

// drop forgets the input before offset off.
func (w *window) drop(off int64) {
	w.buf = w.buf[off-w.base:]
	w.base = off
}

// rawAttr is an attribute as a start tag writes it.
type rawAttr struct {
	qname string // prefix:local, or local
	off   int    // offset of its name in the tag
}

// scanTag reads a well-formed start tag (the decoder has checked it):
// the element's qualified name and its attributes in order.
func scanTag(tag []byte) (qname string, attrs []rawAttr) {
	i := 1 // past '<'
	name := func() string {
		j := i
		for i < len(tag) && bytes.IndexByte([]byte(" \t\r\n=/>"), tag[i]) < 0 {
			i++
		}
		return string(tag[j:i])
	}
	space := func() {
		for i < len(tag) && bytes.IndexByte([]byte(" \t\r\n"), tag[i]) >= 0 {
			i++
		}
	}
	qname = name()
	for {
		space()
		if i >= len(tag) || tag[i] == '/' || tag[i] == '>' {
			return qname, attrs
		}
		off := i
		attrs = append(attrs, rawAttr{name(), off})
		space()
		i++ // '='
		space()
		if i >= len(tag) {
			return qname, attrs
		}
		q := tag[i]
		i++
		for i < len(tag) && tag[i] != q {
			i++
		}
		i++
	}
}
