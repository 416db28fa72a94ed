// Package significant decides whether two versions of an HTML page say
// the same thing, for a <lastmod> that moves only when a page changes in
// substance, as Google asks: "an update to the main content, the
// structured data, or links on the page is generally considered
// significant, however an update to the copyright date is not."
//
// # The rule
//
// A page's Print is a hash of each part of what it says: its title, the
// text, links (target and text) and images (source and alt text) of its
// content, and its structured data (every JSON-LD script, normalized: key
// order and white space do not count, every value does, dateModified
// included; and the microdata values of its content). Its lastmod moves
// when its Print does; Print.Diff says in which parts.
//
// What does not count: markup that renders the same (white space runs,
// attribute order and quoting, character references, comments, tag
// case), scripts but JSON-LD, styles, <link>s and <meta>s (fingerprinted
// asset names, integrity, preloads, nonces, generator and build stamps),
// noscript, template, svg and math subtrees, form controls, hidden
// elements (the hidden attribute, aria-hidden="true"), links that go
// nowhere ("#", javascript:), and the site's template: header, menus,
// breadcrumbs, sidebars, footer, previous/next links, whether marked up
// with nav/header/footer/aside/roles or with <div class=…> only.
//
// # Reading
//
// Read makes one pass over the page's bytes with a scanner of its own
// (read.go: the HTML tokenizer's rules for tags, attributes, comments, raw
// text and character references, a stack of open elements with the
// implied ends that matter to grouping text) and keeps a Page: per
// block-level element a node (its tag, role, class and id tokens, less
// state classes such as current, active, open or md-nav__link--active),
// and in document order its blocks: the text of an element between two
// block boundaries (less its links' text), each link, each image, each
// microdata value, hashed. Links and image sources are resolved against
// the page's URL, so that "../a.html" on one page and "a.html" on another
// are the same link. Text is white space collapsed (no-break spaces
// included) and its references decoded; it is not Unicode-normalized
// (golang.org/x/text is no dependency): a generator does not change the
// normal form of a page's text from one build to the next.
//
// # The model
//
// What is template is learnt from the site (Learner): a few hundred of its
// pages, spread over it. A region is a block-level element named by the
// chain of signatures from the top of the page to it (tag, role, and the
// class and id tokens on at least two pages and a quarter of the sample:
// a post's id, a section's slug, a tag's class are not; nor are the
// classes of html and body, which say what kind of page it is). Siblings
// of the same signature are one region: a new entry in a menu is in the
// region of the others.
//
// A block repeats when it is in the same region, with the same content, on
// two pages of the sample. On each page the content root is the deepest
// element holding three quarters of what the page alone has (its
// non-repeating blocks, by length). A region is a content root of the
// model when the pages it is the root of hold twice as much unique
// content as those it is on but neither the root nor around it. A region
// repeats when half its content (by length) repeats, on three pages or
// more; or when it is on three pages or more outside their content root,
// and on fewer than half as many under it (the menu of an index page
// whose root, having little of its own, is the wrapper around other
// pages' roots). A content root region around other pages' roots, on
// three pages or more, is a wrapper: a region new directly in it is
// template (a menu entry a theme option adds beside the content).
//
// Under the model a block is content when it is under a page's content
// root, the deepest instance of a root region on its path (Hugo's list
// pages keep their content in the region around a post's, where a post
// has its breadcrumbs and pager), and not in a region that repeats.
// Everything outside the content root is template, wherever it is and
// however it is marked up: a nav entry added, a footer's "© 2027", a new
// widget in the sidebar, the build time. A region the model never saw is
// judged by its place: in the content root it is content (a new table in
// an article), elsewhere template (a new social link in the header). So
// a template change that lands page by page during a deploy moves no page,
// the first to land included, because pages are judged by the model
// learnt before the change, not by what the new version looks like.
//
// A page whose only content roots are wrappers, or that has none (a
// theme option added or dropped a wrapper above the content, and the
// chain of signatures no longer names its root), has its root found
// again by its own signature: the only node of the page, in a region the
// model never saw, with the tag, role and tokens, or those and its
// parent's, of a content root that had them alone on every page it was
// the root of (and more than a bare tag) takes that root's key, and its
// subtree the keys under it. A page with no block under a content root
// still (a layout the model has not seen) counts what the landmark rule
// counts and the model does not know to repeat. A nil *Model (no model yet: the first build) judges every
// page by the landmark rule: everything but nav, aside, header and footer
// outside an article, and roles navigation, banner, contentinfo,
// complementary and search; and only what is in <main> (or role=main)
// when the page has one. Its Prints are not comparable with a model's.
//
// # Stickiness
//
// The model is the caller's to keep (MarshalBinary, some 8 bytes a region
// seen: a few KiB for a site) and to keep using: Prints are comparable
// only under the same model. NewLearner(model) extends it with a new
// sample: regions it never saw get verdicts from the sample, every
// verdict it had is kept, and regions are named with its tokens, so no
// Print of a page whose regions it knew moves. Model.Known tells how much
// of a page the model knows: a page of a new layout, or a site whose theme
// changed, has blocks it does not.
//
// # The override
//
// Options.Main (pages.main) is a simple selector (ParseSelector: tag,
// #id, .class, tag.class, tag#id, [role=…]): only what is under the first
// element it matches counts, whatever the model. Options.Ignore
// (pages.template) are elements whose subtrees never count. A page where
// Main matches nothing is judged as without it.
//
// # Limits
//
//   - A theme switch, or a theme update that renames the classes on the
//     way to the content, makes the content root a region the model never
//     saw: every page falls back to the landmark rule once, and its Print
//     moves. A wrapper added or dropped above the root (Sphinx's
//     nosidebar) does not, when the root has a signature of its own
//     (alone, or with its parent's) that is unique on its pages. Learn a new model (and accept that move) when Known says most
//     of the site is unknown.
//   - Content that repeats across pages in the same region of the
//     content, half of it or more, is taken for template: a boilerplate
//     paragraph on every page, a "Note" label. The region's other blocks
//     count. A template part inside the content root on fewer than three
//     sampled pages, or made new by a theme update inside the content root
//     (share buttons added to every article), counts as content.
//   - A template part that says something else on every page and sits
//     with the content is content: prev/next links inside the content
//     root (a theme with no wrapper of its own around the text), or, on
//     a page with little of its own (a list of links), whose content
//     root is then its body, a build time that differs from page to page
//     (Hugo's now to the millisecond: a region repeats only when half
//     its content over the sample does). Options.Ignore (pages.template)
//     takes them out.
//   - A list page's list is content: a page added moves the section page
//     that lists it, and Sphinx's toctree moves the page that holds it.
//     A page's visible title in a header outside the content root counts
//     through <title> only.
//   - A change to the site's name in every <title>, or to JSON-LD every
//     page carries (jekyll-seo-tag's author), moves every page: it is what
//     the pages say.
//   - Code blocks are text, their white space collapsed: re-indented code
//     is the same.
//
// # Cost
//
// Read and Print cost some 10–30 µs for a 5–15 KB page on a 2-CPU
// machine (BenchmarkPage), a few times a content hash and a head read:
// a caller reads a page again only when its bytes' hash changed, and
// keeps its Print otherwise. Print alone is about 1 µs. ReadPrint is
// both for a caller that keeps only the Print (a build): it reads into
// a Page used again. Text, most of a page of prose, is checked sixteen
// bytes at a time where it is ASCII and needs no collapsing, and white
// space between two tags is a space without a search; a run of text that
// is one piece of the page as it is (most paragraphs) is hashed where it
// is, not copied; a tag name of up to eight bytes is its own key, packed,
// not hashed; a tag's attributes are kept by a bit set, not cleared;
// JSON-LD is hashed by a reader of its own (jsonfast.go: each value read
// once, wherever it is nested), encoding/json reading what that one does
// not (a \u escape, invalid UTF-8, a duplicate key, an error), for the
// same hash. Read and ReadPrint are safe for concurrent use; a Model is
// immutable and safe for concurrent Print. TestPrintsStable and
// TestPrintsStableMutated hold the Pages and Prints of real pages, and
// of thousands of mutated ones, to those recorded before the reader was
// made faster: a page store's prints stay valid. TestTagAgainstTokenizer
// and TestCopyRun hold the fast paths to x/net/html's tokenizer and to
// the byte rules.
package significant
