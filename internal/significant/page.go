package significant

import (
	"errors"
	"math/bits"

	"github.com/cespare/xxhash/v2"
)

// Limit is the largest page Read reads: a larger one is refused with
// ErrTooLarge, and the caller falls back to hashing its bytes.
const Limit = 16 << 20

// ErrTooLarge is Read's error for a page of more than Limit bytes.
var ErrTooLarge = errors.New("page too large to read for its content")

// Options are how a page is read.
type Options struct {
	// URL is the page's URL, or its path from the site's root
	// ("/docs/intro.html"): relative links and image sources are resolved
	// against it (and a <base href>), so that a link to the same page is
	// the same wherever the linking page is. Links to the URL's own
	// origin are kept as paths. "" reads them as written.
	URL string
	// Main, when not zero, is where the content is (pages.main): only
	// what is under the first element it matches counts, whatever the
	// model says. A page where it matches nothing is judged as without it.
	Main Selector
	// Ignore are elements whose subtrees never count (pages.ignore).
	Ignore []Selector

	// trace, for tests, sees each block as it is made: kind, node, what
	// was hashed.
	trace func(kind uint8, node int32, what string)
}

// Page is what Read found in a page: its title, its structured data, and
// its blocks (text, links, images, microdata values) in document order,
// each with the chain of block-level elements it is in. It is immutable,
// small (some 30 bytes a block and a region), holds no reference to the
// page's bytes, and is judged by a Model (Print) or learnt from (Learner).
type Page struct {
	title  uint64   // the normalized title's hash, 0 for none
	data   []uint64 // each JSON-LD script's canonical hash, in order
	nodes  []node
	toks   []uint64 // the nodes' class and id tokens, hashed
	blocks []block
	main   bool // Options.Main matched an element
	landmk bool // the page has a <main> or role=main (the landmark rule)
}

// node is a block-level element, a region: its parent (-1 at the top),
// its tag, role and tokens (toks[tok0:tok0+ntok]), and the flags it
// inherits.
type node struct {
	parent int32
	tok0   int32
	ntok   uint16
	tag    uint8
	flags  uint8
	role   uint64
}

// Node flags, inherited by every node below.
const (
	fMain     = 1 << iota // at or under the element Options.Main matched
	fLandmark             // under navigation, a banner, a sidebar, a page footer…
	fMainLM               // under <main> or role=main
	fArticle              // under article, main or section: its header and footer are not the page's
)

// block is a unit of what the page says: a text (the text of a block-level
// element between two others, minus its links'), a link (href and text),
// an image (src and alt) or a microdata value, in its node (-1: none).
// hash is its content; weight its length, for the learner.
type block struct {
	node   int32
	kind   uint8
	weight uint32
	hash   uint64
}

// Block kinds.
const (
	kText = iota
	kLink
	kImage
	kData
)

// Title reports whether the page has a title, for tests and the caller's
// logs: the title itself is not kept.
func (p *Page) Title() bool { return p.title != 0 }

// Blocks is how many blocks the page has.
func (p *Page) Blocks() int { return len(p.blocks) }

// mix folds v into h, in order: the hash of a sequence.
func mix(h, v uint64) uint64 {
	h ^= v * 0x9E3779B97F4A7C15
	h = bits.RotateLeft64(h, 29) * 0xBF58476D1CE4E5B9
	return h ^ h>>32
}

// sum is a byte string's hash, never 0 (0 is "nothing").
func sum(b []byte) uint64 {
	h := xxhash.Sum64(b)
	if h == 0 {
		h = 1
	}
	return h
}
