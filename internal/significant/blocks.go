package significant

import (
	"bytes"
	"encoding/binary"
)

// What the reader makes of what it meets: nodes for block-level elements,
// text runs, links, images, microdata values, the title and JSON-LD.

// Seeds keep hashes of different kinds of things apart.
const (
	seedClass = 0x6c62272e07bb0142
	seedID    = 0x3c6ef372fe94f82b
	seedRole  = 0xa54ff53a5f1d36f1
	seedData  = 0x510e527fade682d1
)

// textBuf collects a text run with its white space collapsed: runs of
// ASCII white space and no-break spaces are one space, none at the ends.
type textBuf struct {
	b     []byte
	space bool
}

func (t *textBuf) reset() { t.b, t.space = t.b[:0], false }

// plain marks the bytes add copies as they are.
var plain = func() (p [256]bool) {
	for c := range p {
		p[c] = true
	}
	for _, c := range []byte{' ', '\t', '\n', '\r', '\f', 0, 0xC2} {
		p[c] = false
	}
	return p
}()

func (t *textBuf) add(s []byte) {
	// b is t.b held in a local: a store of the slice into the reader (on
	// the heap) costs a write barrier while the collector marks, and
	// this is the reader's hottest loop.
	b, space := t.b, t.space
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case spaces[c]:
			space = true
			i++
			for i < len(s) && spaces[s[i]] {
				i++
			}
		case c == 0:
			i++
		case c == 0xC2 && i+1 < len(s) && s[i+1] == 0xA0:
			space = true
			i += 2
		default:
			// The longest run that is copied as it is: plain bytes, and
			// single spaces between two of them (what collapsing would
			// make of them), so that prose is copied a sentence, not a
			// word, at a time.
			j := copyRun(s, i+1)
			if space && len(b) > 0 {
				b = append(b, ' ')
			}
			space = false
			b = append(b, s[i:j]...)
			i = j
		}
	}
	t.b, t.space = b, space
}

// copyRun is where the run of bytes that add copies as they are, from j
// (after a plain byte), ends: plain bytes and single spaces between two
// of them. Eight bytes at a time while they are (SWAR: none below 0x20
// nor 0xC2, no two spaces in a row; a space in the last byte is not
// taken), a byte at a time where they may not be; the byte rules decide,
// the word test only skips what they would let through. A word is only
// taken after a byte that is not a space.
func copyRun(s []byte, j int) int {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	for j < len(s) {
		// ASCII, sixteen bytes at a time, the last sixteen of s over
		// what is taken already (which ends with a byte that is not a
		// space) when fewer are left. Below 0x80, a byte's high bit
		// after adding lo*0x60 says it is not below 0x20, and after
		// adding lo*0x5F that it is not below 0x21, exactly: no carry
		// crosses a byte. With no byte below 0x20, those below 0x21 are
		// spaces, and none may be next to another. A space in the last
		// byte is left for what follows it to decide.
		for len(s) >= 16 {
			k := min(j, len(s)-16)
			x := binary.LittleEndian.Uint64(s[k:])
			y := binary.LittleEndian.Uint64(s[k+8:])
			if (x|y)&hi != 0 {
				break
			}
			sx := ^(x + lo*0x5F) & hi
			sy := ^(y + lo*0x5F) & hi
			if (^((x+lo*0x60)&(y+lo*0x60))&hi | sx&(sx<<8) | sy&(sy<<8) | sx>>56&sy) != 0 {
				break
			}
			n := k + 16 - int(sy>>63)
			if n <= j {
				break
			}
			j = n
		}
		for j+8 <= len(s) {
			x := binary.LittleEndian.Uint64(s[j:])
			// A byte below 0x20, or 0xC2.
			if v := x ^ lo*0xC2; ((x-lo*0x20)&^x|(v-lo)&^v)&hi != 0 {
				break
			}
			// Spaces (flagged; a '!' just above one may be too, which
			// only sends it to the byte rules): two in a row are not
			// copied as they are.
			v := x ^ lo*' '
			sp := (v - lo) &^ v & hi
			if sp&(sp<<8) != 0 {
				break
			}
			// A space in the last byte is left for the next word, whose
			// first byte it becomes: what follows it decides.
			j += 8 - int(sp>>63)
		}
		if j >= len(s) {
			break
		}
		if c := s[j]; plain[c] {
			j++
		} else if c == ' ' && j+1 < len(s) && plain[s[j+1]] {
			j += 2
		} else {
			break
		}
	}
	return j
}

// addText adds text between tags to the current run (or link).
func (r *reader) addText(s []byte) {
	if r.skip > 0 || r.foreign > 0 {
		return
	}
	if r.head {
		if len(trimSpace(s)) == 0 {
			return
		}
		r.closeHead()
	}
	s0 := s // nil when s is decoded, in r.dec
	if bytes.IndexByte(s, '&') >= 0 {
		r.dec = appendUnescape(r.dec[:0], s)
		s, s0 = r.dec, nil
	}
	if r.link >= 0 {
		r.ltext.add(s)
	} else {
		r.addMain(s, s0)
	}
}

// addMain adds s to the current run. A run that starts with s, of the
// page's bytes (s0) as they are, is those bytes (r.view), not a copy: a
// <p>'s text is most often one such piece. A second piece copies it.
func (r *reader) addMain(s, s0 []byte) {
	if r.view != nil {
		r.text.b = append(r.text.b[:0], r.view...)
		r.view = nil
	} else if len(r.text.b) == 0 && s0 != nil && plain[s[0]] && copyRun(s, 1) == len(s) {
		r.view, r.text.space = s, false
		return
	}
	r.text.add(s)
}

// runText is the current run's text: r.view or r.text's.
func (r *reader) runText() []byte {
	if r.view != nil {
		return r.view
	}
	return r.text.b
}

// space is a line break: a space between words.
func (r *reader) space() {
	if r.link >= 0 {
		r.ltext.space = true
	} else {
		r.text.space = true
	}
}

// flush ends the current text run: a block of the current node.
func (r *reader) flush() {
	if b := r.runText(); len(b) > 0 && r.skip == 0 {
		r.emit(kText, sum(b), len(b))
		if r.opts.trace != nil {
			r.opts.trace(kText, r.cur, string(b))
		}
	}
	r.text.reset()
	r.view = nil
}

// endText is flush, with no call when there is no text: a run of none
// only forgets a space before it.
func (r *reader) endText() {
	if len(r.text.b) > 0 || r.view != nil {
		r.flush()
		return
	}
	r.text.space = false
}

func (r *reader) emit(kind uint8, h uint64, weight int) {
	r.emitAt(r.cur, kind, h, weight)
}

func (r *reader) emitAt(n int32, kind uint8, h uint64, weight int) {
	r.p.blocks = append(r.p.blocks, block{node: n, kind: kind, weight: uint32(min(weight, 1<<20)) + 1, hash: h})
}

// attr is an attribute's value decoded (in r.dec when it had to be).
func (r *reader) attr(v []byte) []byte {
	if bytes.IndexByte(v, '&') < 0 {
		return v
	}
	r.dec = appendUnescape(r.dec[:0], v)
	return r.dec
}

// ignored reports whether Options.Ignore selects the element in r.at.
func (r *reader) ignored(name []byte) bool {
	for i := range r.opts.Ignore {
		if r.opts.Ignore[i].match(name, r.av(aID), r.av(aClass), r.av(aRole)) {
			return true
		}
	}
	return false
}

// openNode starts a region: its signature's parts (tag, role, class and
// id tokens but state classes) and the flags it inherits and adds.
func (r *reader) openNode(t tagInfo, name []byte, isMain bool) {
	if len(r.text.b) > 0 || r.view != nil {
		r.flush()
	}
	r.ltext.space = true // a block inside a link: its lines are words apart
	p := r.p
	n := node{parent: r.cur, tok0: int32(len(p.toks)), tag: t.id}
	if t.id == tOther || t.id >= tFirstPlain || t.id == tH {
		// The id does not say which of these: the name does, in the role
		// slot's hash (roles are hashed apart).
		n.role = t.sum
		if n.role == 0 { // a name the reader does not know (Options.Main's)
			n.role = sum(name)
		}
	}
	var inherited uint8
	if r.cur >= 0 {
		inherited = p.nodes[r.cur].flags
	}
	n.flags = inherited
	var role []byte
	if r.at.has&(1<<aRole) != 0 {
		role = trimSpace(r.av(aRole))
	}
	if len(role) > 0 {
		role = bytes.ToLower(role) // rare: its allocation does not matter
		n.role = mix(n.role, sum(role)^seedRole)
	}
	// The classes and id of html and body say what kind of page it is
	// (WordPress's body_class, a Hugo theme's "kind-page section-posts"),
	// not which region: in every key below, they would make each kind of
	// page a site of its own.
	if t.id != tHTML && t.id != tBody && r.at.has&(1<<aClass|1<<aID) != 0 {
		r.addTokens()
	}
	n.ntok = uint16(min(len(p.toks)-int(n.tok0), 1<<16-1))
	p.toks = p.toks[:int(n.tok0)+int(n.ntok)]
	n.flags |= p.landmarks(t.id, role, inherited)
	if isMain {
		n.flags |= fMain
		p.main = true
		r.mainSeen = true
	}
	p.nodes = append(p.nodes, n)
	r.cur = int32(len(p.nodes) - 1)
}

// landmarks are the flags a node of tag id and role (lower case) adds to
// those it inherits; a main landmark is noted on the page.
func (p *Page) landmarks(id uint8, role []byte, inherited uint8) uint8 {
	var f uint8
	switch id {
	case tNav, tAside, tHead:
		f |= fLandmark
	case tHeader, tFooter:
		if inherited&fArticle == 0 {
			f |= fLandmark
		}
	case tMain:
		f |= fMainLM | fArticle
		p.landmk = true
	case tArticle, tSection:
		f |= fArticle
	}
	switch string(role) {
	case "":
	case "navigation", "banner", "contentinfo", "complementary", "search":
		f |= fLandmark
	case "main":
		f |= fMainLM | fArticle
		p.landmk = true
	}
	return f
}

// addTokens adds the element's class tokens (but state classes) and id to
// the page's tokens, hashed.
func (r *reader) addTokens() {
	p := r.p
	class := r.attr(r.av(aClass))
	for i := 0; i < len(class); {
		for i < len(class) && isSpace(class[i]) {
			i++
		}
		j := i
		for j < len(class) && !isSpace(class[j]) {
			j++
		}
		if j > i {
			if h := sum(class[i:j]); !r.isState(h, class[i:j]) {
				p.toks = append(p.toks, h^seedClass)
			}
		}
		i = j
	}
	if id := trimSpace(r.av(aID)); len(id) > 0 {
		p.toks = append(p.toks, sum(r.attr(id))^seedID)
	}
}

// isLink: an <a> whose href goes somewhere. "#", "" and "javascript:"
// are a theme's toggles (a dropdown, a search box): their text is text.
func isLink(href []byte) bool {
	h := trimSpace(href)
	if len(h) < 11 {
		return len(h) > 0 && string(h) != "#"
	}
	return !bytes.EqualFold(h[:11], []byte("javascript:"))
}

// isState is isStateClass, remembered by the token's hash: a page names
// the same few classes again and again.
func (r *reader) isState(h uint64, tok []byte) bool {
	slot := &r.states[h&255]
	if *slot == h|1 {
		return false
	}
	if isStateClass(tok) {
		return true
	}
	*slot = h | 1
	return false
}

func (r *reader) startLink() {
	r.link = len(r.stack) // the frame about to be pushed
	r.linkNode = r.cur
	r.tmp = r.url.resolve(r.tmp[:0], r.attr(r.av(aHref)))
	r.linkHref = sum(r.tmp)
	if r.opts.trace != nil {
		r.href = string(r.tmp)
	}
	r.ltext.reset()
}

// endLink ends the open link: a block of the node it started in.
func (r *reader) endLink() {
	if r.link < 0 {
		return
	}
	r.link = -1
	if r.skip == 0 {
		r.emitAt(r.linkNode, kLink, mix(r.linkHref, sum(r.ltext.b)), len(r.ltext.b))
		if r.opts.trace != nil {
			r.opts.trace(kLink, r.linkNode, r.href+" | "+string(r.ltext.b))
		}
	}
	r.ltext.reset()
}

func (r *reader) image() {
	src := r.av(aSrc)
	if len(trimSpace(src)) == 0 || bytes.HasPrefix(src, []byte("data:")) {
		// A lazy-loading theme's placeholder: the real source is here.
		if len(r.av(aDataSrc)) > 0 {
			src = r.av(aDataSrc)
		}
	}
	r.tmp = r.url.resolve(r.tmp[:0], r.attr(src))
	h := sum(r.tmp)
	r.sbuf.reset()
	r.sbuf.add(r.attr(r.av(aAlt)))
	r.emit(kImage, mix(h, sum(r.sbuf.b)), len(r.sbuf.b))
	if r.opts.trace != nil {
		r.opts.trace(kImage, r.cur, string(r.tmp)+" | "+string(r.sbuf.b))
	}
}

// microdata: an itemprop whose value is an attribute (meta content, time
// datetime) is structured data; one whose value is its text is read as
// text.
func (r *reader) microdata() {
	v := r.av(aContent)
	if v == nil {
		v = r.av(aDatetime)
	}
	if v == nil {
		return
	}
	h := mix(sum(r.attr(r.av(aItemprop)))^seedData, sum(r.attr(v)))
	r.emit(kData, h, len(v))
	if r.opts.trace != nil {
		r.opts.trace(kData, r.cur, string(r.av(aItemprop))+"="+string(v))
	}
}

// rawText reads a raw text element's content (script, style, title,
// textarea…) to its end tag, and keeps a title or a JSON-LD script.
func (r *reader) rawText(name []byte, t tagInfo, i int, hidden bool) int {
	src := r.src
	end, next := len(src), len(src)
	if t.id != tPlaintext {
		end, next = rawEnd(src, i, name)
	}
	if r.skip > 0 || hidden {
		return next
	}
	content := src[i:end]
	switch t.id {
	case tTitle:
		if !r.titleSeen {
			r.titleSeen = true
			r.sbuf.reset()
			r.sbuf.add(r.attr(content))
			if len(r.sbuf.b) > 0 {
				r.p.title = sum(r.sbuf.b)
			}
		}
	case tScript:
		if isJSONLD(r.av(aType)) {
			r.p.data = append(r.p.data, jsonHash(content))
		}
	}
	return next
}

func isJSONLD(typ []byte) bool {
	typ = trimSpace(typ)
	if i := bytes.IndexByte(typ, ';'); i >= 0 {
		typ = trimSpace(typ[:i])
	}
	return bytes.EqualFold(typ, []byte("application/ld+json"))
}

// rawEnd finds a raw text element's end tag from i: "</name" in any case,
// then white space, '/' or '>'. It returns where the content ends and
// where the end tag does (both len(src) when there is none).
func rawEnd(src []byte, i int, name []byte) (int, int) {
	for k := i; k < len(src); {
		d := bytes.Index(src[k:], []byte("</"))
		if d < 0 {
			break
		}
		k += d
		e := k + 2 + len(name)
		if e <= len(src) && bytes.EqualFold(src[k+2:e], name) && (e == len(src) || isSpace(src[e]) || src[e] == '/' || src[e] == '>') {
			j := bytes.IndexByte(src[e:], '>')
			if j < 0 {
				return k, len(src)
			}
			return k, e + j + 1
		}
		k += 2
	}
	return len(src), len(src)
}
