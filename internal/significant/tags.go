package significant

// What the reader knows of elements: which are block-level (each one a
// region, a node of a block's chain, and a boundary between texts), which
// are void, which hold raw text, which subtrees never count, and which are
// landmarks. An element it does not know is inline: a span, a custom
// element, a typo.

// Tag ids: 0 is every element without one. Only those the reader treats
// apart have one; blocks carry their id in their region's signature.
const (
	tOther uint8 = iota
	tA
	tImg
	tBr
	tP
	tLi
	tDt
	tDd
	tTr
	tTd
	tTh
	tTable
	tOption
	tHead
	tBody
	tHTML
	tMain
	tNav
	tHeader
	tFooter
	tAside
	tArticle
	tSection
	tTitle
	tScript
	tBase
	tH // h1-h6
	tSvg
	tMath
	tTemplate
	tPlaintext
	tButton
	tFirstPlain // block-level elements with no rule of their own from here
)

// Tag kinds.
const (
	kBlock  = 1 << iota // block-level: a region
	kVoid               // no content, no end tag
	kRaw                // raw text or RCDATA: its content is read to its end tag at once
	kSkip               // its subtree never counts
	kInHead             // may be in a head (does not end it)
)

type tagInfo struct {
	id   uint8
	kind uint8
	sum  uint64 // sum of the name, for a node's role slot; 0 for an unknown name
}

var tags = map[string]tagInfo{}

// tagTable is tags by nameHash(name), for lookups without hashing a
// string twice: the reader keys each name once, to match end tags too.
var tagTable [512]struct {
	h    uint64
	name string
	info tagInfo
}

func fnv(b []byte) uint64 {
	h := uint64(fnvOffset)
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime
	}
	return h
}

// FNV-1a's constants (nameHash of a name longer than eight bytes).
const fnvOffset, fnvPrime = 14695981039346656037, 1099511628211

func indexTags() {
	for name, info := range tags {
		h := nameHash([]byte(name))
		for i := tagSlot(h); ; i = (i + 1) & 511 {
			if tagTable[i].name == "" {
				info.sum = sum([]byte(name))
				tagTable[i].h, tagTable[i].name, tagTable[i].info = h, name, info
				if len(name) == 1 {
					oneLetter[name[0]] = info
				}
				break
			}
		}
	}
}

func init() {
	special := []struct {
		name string
		id   uint8
		kind uint8
	}{
		{"a", tA, 0}, {"img", tImg, kVoid}, {"br", tBr, kVoid},
		{"p", tP, kBlock}, {"li", tLi, kBlock}, {"dt", tDt, kBlock}, {"dd", tDd, kBlock},
		{"tr", tTr, kBlock}, {"td", tTd, kBlock}, {"th", tTh, kBlock}, {"table", tTable, kBlock},
		{"option", tOption, 0}, {"head", tHead, kBlock | kInHead}, {"body", tBody, kBlock},
		{"html", tHTML, kBlock}, {"main", tMain, kBlock}, {"nav", tNav, kBlock},
		{"header", tHeader, kBlock}, {"footer", tFooter, kBlock}, {"aside", tAside, kBlock},
		{"article", tArticle, kBlock}, {"section", tSection, kBlock},
		{"title", tTitle, kRaw | kInHead}, {"script", tScript, kRaw | kInHead},
		{"base", tBase, kVoid | kInHead},
		{"svg", tSvg, kSkip}, {"math", tMath, kSkip}, {"template", tTemplate, kSkip | kInHead},
		{"plaintext", tPlaintext, kRaw}, {"button", tButton, 0},
	}
	for _, t := range special {
		tags[t.name] = tagInfo{id: t.id, kind: t.kind}
	}
	for _, h := range []string{"h1", "h2", "h3", "h4", "h5", "h6"} {
		tags[h] = tagInfo{id: tH, kind: kBlock}
	}
	id := tFirstPlain
	for _, name := range []string{
		"address", "blockquote", "center", "details", "dialog", "dir", "div", "dl",
		"fieldset", "figcaption", "figure", "form", "hgroup", "hr", "legend", "listing",
		"menu", "ol", "pre", "search", "summary", "ul", "caption", "thead", "tbody",
		"tfoot", "colgroup",
	} {
		k := uint8(kBlock)
		if name == "hr" {
			k |= kVoid
		}
		tags[name] = tagInfo{id: id, kind: k}
		id++
	}
	for _, name := range []string{"area", "col", "embed", "input", "keygen", "param", "source", "track", "wbr"} {
		tags[name] = tagInfo{id: 0, kind: kVoid}
	}
	for _, name := range []string{"link", "meta"} {
		tags[name] = tagInfo{id: 0, kind: kVoid | kInHead}
	}
	for _, name := range []string{"style", "noscript", "xmp", "iframe", "noembed", "noframes", "textarea"} {
		k := uint8(kRaw)
		if name != "xmp" && name != "textarea" && name != "iframe" && name != "noembed" && name != "noframes" {
			k |= kInHead
		}
		tags[name] = tagInfo{id: 0, kind: k}
	}
	// Subtrees that say nothing: a canvas, an object's fallback, a select's
	// options (a form control's state, not the page's text).
	for _, name := range []string{"canvas", "object", "select", "datalist", "audio", "video", "map"} {
		tags[name] = tagInfo{id: 0, kind: kSkip}
	}
}

// oneLetter are the tags of one-letter names (a, p), by their letter.
var oneLetter [256]tagInfo

// tagSlot is where a key's search in tagTable starts: a packed name's
// low bits are its last letter's, too few apart to index by.
func tagSlot(h uint64) uint64 { return (h * 0x9E3779B97F4A7C15) >> 55 }

// lookupTag finds a lower-case tag name whose nameHash is h. A packed
// key is the name: only a hashed one needs the names compared.
func lookupTag(name []byte, h uint64) tagInfo {
	if len(name) == 1 {
		return oneLetter[name[0]]
	}
	for i := tagSlot(h); ; i = (i + 1) & 511 {
		e := &tagTable[i]
		if e.name == "" {
			return tagInfo{}
		}
		if e.h == h && (h>>63 == 0 || sameName(e.name, name)) {
			return e.info
		}
	}
}

// sameName is e.name == string(name), a byte at a time: names are a few
// bytes, shorter than a call to compare memory.
func sameName(a string, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(b); i++ {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// closesP: a start tag of a block-level element closes an open p, as the
// HTML parser does ("close a p element" in button scope).
func closesP(t tagInfo) bool {
	if t.kind&kBlock == 0 {
		return false
	}
	switch t.id {
	case tTr, tTd, tTh, tHead, tBody, tHTML:
		return false
	}
	return !isTablePart(t.id)
}

// tablePartIDs is indexed by tag id: an array, not a map, as closesP is
// asked at every block-level start tag.
var tablePartIDs [256]bool

func init() {
	for _, n := range []string{"caption", "thead", "tbody", "tfoot", "colgroup"} {
		tablePartIDs[tags[n].id] = true
	}
	indexTags()
}

func isTablePart(id uint8) bool { return tablePartIDs[id] }

// State classes: a class token that marks where the reader is (the
// current page's entry in a menu, an open section of a sidebar) varies
// from page to page in the same template, so it is no part of a region's
// signature. Real themes: "current", "active", "current-menu-item",
// "current_page_item" (WordPress), "md-nav__item--active",
// "md-nav__link--passed" (Material for MkDocs), "toctree-l1 current"
// (Sphinx), "is-active", "show", "open", "expanded", "selected".
var stateWords = []string{"active", "current", "selected", "expanded", "collapsed"}

var stateSuffixes = map[string]bool{
	"open": true, "opened": true, "show": true, "shown": true, "in": true, "on": true,
	"here": true, "passed": true, "visited": true, "focus": true, "hover": true,
	"checked": true, "target": true, "highlight": true, "highlighted": true, "toggled": true,
}

func isStateClass(tok []byte) bool {
	var low [64]byte
	if len(tok) > len(low) {
		return false
	}
	l := low[:len(tok)]
	for i, c := range tok {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		l[i] = c
	}
	for _, w := range stateWords {
		if contains(l, w) {
			return true
		}
	}
	last := l
	for i := len(l) - 1; i >= 0; i-- {
		if l[i] == '-' || l[i] == '_' {
			last = l[i+1:]
			break
		}
	}
	return stateSuffixes[string(last)]
}

func contains(b []byte, s string) bool {
	for i := 0; i+len(s) <= len(b); i++ {
		if string(b[i:i+len(s)]) == s {
			return true
		}
	}
	return false
}
