package significant

import (
	"bytes"
	"sync"
)

// The reader is one pass of a byte scanner over the page, in the spirit of
// internal/head's fast path: bytes.IndexByte to the next '<', tags split
// into attributes by the HTML tokenizer's rules (names, '=', quotes, '/',
// the first of a repeated key), comments, doctypes and bogus comments
// ended where the tokenizer ends them, raw text (script, style, title,
// textarea…) read to its end tag at once. It keeps a stack of open
// elements with the few implied ends that matter to grouping text (a p
// closed by a block, an li by the next li, cells and rows), and no tree:
// what it keeps is the Page's nodes (block-level elements) and blocks.
// golang.org/x/net/html's Tokenizer, measured on the same pages, was
// several times slower and allocates per token; the tree builder more.

// frame is an open element on the reader's stack.
type frame struct {
	name  uint64 // its lower-case name's hash, to match its end tag
	id    uint8
	kind  uint8
	outer int32 // the reader's current node when it opened
	node  bool  // it opened a node
	skip  bool  // it opened a subtree that does not count
	link  bool  // it opened a link
}

type reader struct {
	src     []byte
	opts    *Options
	p       *Page
	stack   []frame
	cur     int32 // the current node, -1 for none
	skip    int   // open frames that skip their subtree
	foreign int   // open svg or math frames (self-closing tags count there)
	head    bool  // a head frame is open
	openP   int   // open p frames on the stack

	text, ltext textBuf // the current text run, the current link's text
	view        []byte  // the current text run when it is bytes of the page (addMain)
	sbuf        textBuf // scratch: a title, an alt text
	link        int     // the open link's frame index, -1 for none
	linkNode    int32
	linkHref    uint64
	href        string // the link's target, when tracing
	titleSeen   bool
	mainSeen    bool
	at          attrs
	url         urlBase
	dec, tmp    []byte // scratch: decoded values, resolved URLs
	lowName     [32]byte
	states      [256]uint64 // class tokens' hashes known not to be state classes (| 1)
}

var readers = sync.Pool{New: func() any {
	return &reader{stack: make([]frame, 0, 64), dec: make([]byte, 0, 256), tmp: make([]byte, 0, 256),
		text: textBuf{b: make([]byte, 0, 1024)}, ltext: textBuf{b: make([]byte, 0, 128)},
		sbuf: textBuf{b: make([]byte, 0, 128)}}
}}

// Read reads what a page says: its title, structured data and blocks (see
// Page). It reads any bytes as a browser would read them as HTML, never
// fails on markup, and keeps nothing of page. It is safe to call from
// many goroutines at once. Its only error is ErrTooLarge.
func Read(page []byte, opts Options) (*Page, error) {
	if len(page) > Limit {
		return nil, ErrTooLarge
	}
	// A page of n bytes has some n/50 elements and n/40 blocks: sized once,
	// its slices seldom grow.
	p := &Page{
		nodes:  make([]node, 0, 16+len(page)/80),
		blocks: make([]block, 0, 16+len(page)/60),
		toks:   make([]uint64, 0, 16+len(page)/80),
	}
	readInto(page, &opts, p)
	return p, nil
}

// ReadPrint is m.Print of Read(page, opts), for a caller that keeps only
// the Print (a build printing every page): the Page it reads into is
// used again for the next page, not made anew (some 7 KB for a 7 KB
// page, the walk's largest garbage).
func ReadPrint(page []byte, opts Options, m *Model) (Print, error) {
	if len(page) > Limit {
		return Print{}, ErrTooLarge
	}
	p := pages.Get().(*Page)
	*p = Page{nodes: p.nodes[:0], blocks: p.blocks[:0], toks: p.toks[:0], data: p.data[:0]}
	readInto(page, &opts, p)
	pr := m.Print(p)
	// A huge page's slices are not kept for the next (small) one.
	if cap(p.blocks) <= maxPooled {
		pages.Put(p)
	}
	return pr, nil
}

// maxPooled bounds the blocks of a Page ReadPrint keeps for the next.
const maxPooled = 1 << 14

var pages = sync.Pool{New: func() any {
	return &Page{nodes: make([]node, 0, 256), blocks: make([]block, 0, 256), toks: make([]uint64, 0, 256)}
}}

func readInto(page []byte, opts *Options, p *Page) {
	r := readers.Get().(*reader)
	defer readers.Put(r)
	r.reset(page, opts, p)
	r.run()
	// Whatever is still open ends with the page.
	for len(r.stack) > 0 {
		r.pop()
	}
	r.flush()
	r.endLink()
	r.src, r.opts, r.p = nil, nil, nil
}

func (r *reader) reset(src []byte, opts *Options, p *Page) {
	r.src, r.opts, r.p = src, opts, p
	r.stack = r.stack[:0]
	r.cur, r.skip, r.foreign, r.head, r.openP = -1, 0, 0, false, 0
	r.text.reset()
	r.view = nil
	r.ltext.reset()
	r.link = -1
	r.titleSeen, r.mainSeen = false, false
	r.url.set(opts.URL)
}

func (r *reader) run() {
	src := r.src
	i := 0
	for i < len(src) {
		i = r.gap(i)
		j := 0
		if src[i] != '<' {
			j = bytes.IndexByte(src[i:], '<')
		}
		if j < 0 {
			r.addText(src[i:])
			return
		}
		if j > 0 {
			r.addText(src[i : i+j])
			i += j
		}
		// src[i] == '<'
		if i+1 >= len(src) {
			r.addText(src[i:])
			return
		}
		c := src[i+1]
		switch {
		case isLetter(c):
			i = r.startTag(i + 1)
		case c == '/':
			switch {
			case i+2 < len(src) && isLetter(src[i+2]):
				i = r.endTag(i + 2)
			case i+2 < len(src) && src[i+2] == '>':
				i += 3
			case i+2 >= len(src):
				r.addText(src[i:])
				return
			default:
				i = bogusEnd(src, i+2)
			}
		case c == '!':
			if bytes.HasPrefix(src[i+2:], []byte("--")) {
				i = commentEnd(src, i+4)
			} else {
				i = bogusEnd(src, i+2)
			}
		case c == '?':
			i = bogusEnd(src, i+1)
		default:
			r.addText(src[i : i+1])
			i++
		}
	}
}

// gap reads white space between two tags (a line break, an indent), the
// commonest text of all, from i: a space between words, found without a
// search. It returns where the next tag starts, or i when what follows
// is not only white space before one.
func (r *reader) gap(i int) int {
	src := r.src
	k := i
	for k < len(src) && spaces[src[k]] {
		k++
	}
	if k == i || k == len(src) || src[k] != '<' {
		return i
	}
	if r.skip == 0 && r.foreign == 0 && !r.head {
		r.space()
	}
	return k
}

// nameHash is a lower-case tag name's key, for matching end tags and
// finding the tag: a name of up to eight bytes is its bytes, packed
// (it starts with a letter: no two such names have the same key), and
// a longer one's is its hash with the top bit set (a packed name's is
// clear). Packing is no multiply a byte, and a known name's key is
// found in the tag table without comparing names.
func nameHash(name []byte) uint64 {
	if len(name) <= 8 {
		var h uint64
		for _, c := range name {
			h = h<<8 | uint64(c)
		}
		return h
	}
	return fnv(name) | 1<<63
}

func (r *reader) startTag(i int) int {
	name, nh, i := r.tagName(i)
	t := lookupTag(name, nh)
	// A tag with no attributes (its name then '>') is read here, without
	// readAttrs: most tags of a page's body are such.
	end, selfClosing := i+1, false
	if i < len(r.src) && r.src[i] == '>' {
		r.at.has, r.at.hidden = 0, false
		if t.kind == kBlock && r.foreign == 0 && !r.head && r.skip == 0 && len(r.opts.Ignore) == 0 &&
			(r.mainSeen || r.opts.Main.src == "") {
			return r.openBlock(t, name, nh, i+1)
		}
	} else {
		if t.id == tOther && t.kind&^kInHead == kVoid {
			if end, ok := r.voidTag(t, i); ok {
				return end
			}
		}
		if end, selfClosing = r.readAttrs(i, true); end < 0 {
			return len(r.src)
		}
	}
	if r.foreign > 0 {
		// Inside svg or math nothing counts, and a self-closing tag has
		// no end tag to wait for.
		if !selfClosing && t.kind&kVoid == 0 {
			r.push(frame{name: nh, id: t.id, kind: t.kind, outer: r.cur})
		}
		return end
	}
	return r.element(t, name, nh, end, selfClosing)
}

// element is startTag's course, to end, for an element outside svg and
// math, with its attributes in r.at.
func (r *reader) element(t tagInfo, name []byte, nh uint64, end int, selfClosing bool) int {
	if r.head && t.kind&kInHead == 0 {
		r.closeHead()
	}
	if impliesEnds[t.id] || r.openP > 0 && t.kind&kBlock != 0 {
		r.implied(t)
	}
	hidden := r.at.hidden || len(r.opts.Ignore) > 0 && r.ignored(name)
	if t.kind&kRaw != 0 || t.id == tImg || t.id == tBr || t.id == tBase {
		return r.special(t, name, end, hidden)
	}
	if len(r.av(aItemprop)) > 0 && r.skip == 0 && !hidden {
		r.microdata()
	}
	if t.kind&kVoid != 0 {
		if t.kind&kBlock != 0 { // hr: a boundary between texts
			r.flush()
		}
		return end
	}
	if (t.id == tSvg || t.id == tMath) && selfClosing {
		return end
	}
	f := frame{name: nh, id: t.id, kind: t.kind, outer: r.cur}
	if hidden || t.kind&kSkip != 0 {
		f.skip = true
		r.skip++
		if t.id == tSvg || t.id == tMath {
			r.foreign++
		}
		r.push(f)
		return end
	}
	isMain := !r.mainSeen && r.opts.Main.src != "" && r.opts.Main.match(name, r.av(aID), r.av(aClass), r.av(aRole))
	if (t.kind&kBlock != 0 || isMain) && r.skip == 0 {
		r.openNode(t, name, isMain)
		f.node = true
	}
	if t.id == tHead {
		r.head = true
	}
	if t.id == tA && isLink(r.av(aHref)) && r.skip == 0 {
		r.startLink()
		f.link = true
	}
	r.push(f)
	return end
}

// openBlock is startTag's course, to end, for a block-level element's
// tag with no attributes (<p>, <li>), in a page's body outside anything
// skipped, with no selector to match: what startTag would do with it,
// without asking what cannot be (hidden, raw, void, a link, main…).
func (r *reader) openBlock(t tagInfo, name []byte, nh uint64, end int) int {
	if impliesEnds[t.id] || r.openP > 0 {
		r.implied(t)
	}
	outer := r.cur
	r.openNode(t, name, false)
	r.push(frame{name: nh, id: t.id, kind: t.kind, outer: outer, node: true})
	return end
}

// voidTag reads the attributes, from i, of a void element's tag that
// are nothing to the reader but an itemprop's value (meta, link, input,
// source…: a head's many tags): where the tag ends, and for one with no
// itemprop, nothing more (then ok). One with an itemprop (not ok) is
// read as any other.
func (r *reader) voidTag(t tagInfo, i int) (end int, ok bool) {
	r.at.has, r.at.hidden = 0, false
	if end, _ = r.readAttrs(i, false); end < 0 {
		return len(r.src), true
	}
	if r.at.has != 0 {
		return 0, false
	}
	if r.head && r.foreign == 0 && t.kind&kInHead == 0 {
		r.closeHead()
	}
	return end, true
}

// special is element's course for raw text (script, style, title…),
// img, br and base.
func (r *reader) special(t tagInfo, name []byte, end int, hidden bool) int {
	switch {
	case t.kind&kRaw != 0:
		return r.rawText(name, t, end, hidden)
	case t.id == tImg:
		if r.skip == 0 && !hidden {
			r.image()
		}
	case t.id == tBr:
		r.space()
	case t.id == tBase:
		if len(r.av(aHref)) > 0 {
			r.url.setBase(r.attr(r.av(aHref)), &r.tmp)
		}
	}
	return end
}

func (r *reader) closeHead() {
	for k := len(r.stack) - 1; k >= 0; k-- {
		if r.stack[k].id == tHead {
			for len(r.stack) > k {
				r.pop()
			}
			break
		}
	}
	r.head = false
}

func (r *reader) endTag(i int) int {
	name, h, i := r.tagName(i)
	end := i + 1
	if i >= len(r.src) || r.src[i] != '>' {
		// An end tag's attributes are nothing: only where it ends.
		if end, _ = r.readAttrs(i, false); end < 0 {
			return len(r.src)
		}
	}
	t := lookupTag(name, h)
	switch t.id {
	case tBody, tHTML:
		// The parser keeps body open: what follows is still its text.
		return end
	case tBr:
		r.space()
		return end
	case tP:
		// "</p>" with no p open is an empty p: a boundary all the same.
		r.endText()
		r.ltext.space = true
	}
	for k := len(r.stack) - 1; k >= 0; k-- {
		f := &r.stack[k]
		if f.name == h {
			for len(r.stack) > k {
				r.pop()
			}
			if t.id == tHead {
				r.head = false
			}
			return end
		}
		// An inline end tag does not close past a block (the parser's
		// "special" elements), nor anything past svg or math.
		if (t.kind&kBlock == 0 && f.kind&kBlock != 0) || f.id == tSvg || f.id == tMath {
			return end
		}
	}
	return end
}

// maxDepth is the deepest the reader nests elements, as Blink's parser
// does (512): below it, a start tag opens nothing, and its content is its
// parent's. It keeps the work per tag bounded on pathological input.
const maxDepth = 512

func (r *reader) push(f frame) {
	if len(r.stack) < maxDepth {
		if f.id == tP {
			r.openP++
		}
		r.stack = append(r.stack, f)
		return
	}
	r.pushDeep(f)
}

// pushDeep is push past maxDepth: the frame is not kept, so what it
// started ends at once.
func (r *reader) pushDeep(f frame) {
	if f.skip {
		r.skip--
		if f.id == tSvg || f.id == tMath {
			r.foreign--
		}
	}
	if f.link {
		r.endLink()
	}
	if f.node {
		r.flush()
		r.cur = f.outer
	}
}

func (r *reader) pop() {
	n := len(r.stack) - 1
	f := &r.stack[n] // still there once the stack is shorter
	r.stack = r.stack[:n]
	if f.id == tP {
		r.openP--
	}
	if f.link {
		r.endLink()
	}
	if f.node {
		r.endText()
		r.ltext.space = true
		r.cur = f.outer
	}
	if f.skip {
		r.skip--
		if f.id == tSvg || f.id == tMath {
			r.foreign--
		}
	}
	if f.id == tHead {
		r.head = false
	}
}
