package build

import (
	"slices"
	"strings"
	"time"

	"github.com/sitemapd/sitemapd/internal/feed"
	"github.com/sitemapd/sitemapd/internal/hreflang"
	"github.com/sitemapd/sitemapd/internal/news"
	"github.com/sitemapd/sitemapd/internal/outname"
	"github.com/sitemapd/sitemapd/internal/textrecord"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// published is the engine's model of what is published: each group's
// files and what is known of them, the daemon's memory of the tree as
// published, the index files, whether the feed is stale, the record of
// text sitemaps, and whether the last full build was refused. A publish
// changes it when its files are committed: it stages the groups' new
// states aside (run.next) and the model takes them (take), so that a
// publish refused or failed leaves it as it was, true to the files.
type published struct {
	depth      tree.Depth
	groups     map[string]*group  // by group directory
	mem        *tree.Memory       // the tree as last published; nil unless WithChanges
	indexParts int                // index files last published
	feedStale  bool               // some group's feed entries changed since the feed was made
	text       *textrecord.Record // text sitemaps written, by hash
	refused    *ShrinkError       // the last full build's refusal, until one succeeds
	started    bool               // a full build has run (the canonical warning is given once)
	// times are the parts' bytes and mtimes as they landed, here and as
	// the groups record says (landings.go).
	times partTimes
	// left is what the groups list and leave out, for the status page
	// (leftout.go).
	left leftBook
	// alts are the listed pages that name hreflang alternates, nil with
	// pages.hreflang off (hreflang.go).
	alts *hreflang.Graph
}

// group is what the engine knows of one group between publishes.
type group struct {
	// parts are the group's sitemap files (relative to the output root)
	// as last published, textParts its text sitemaps; nil when not known,
	// to be found on disk (publishedParts).
	parts, textParts []string
	links            []string // directories its followed symlinks point into
	failed           bool     // its last publish failed: retry it
	urls             int      // URLs its published parts list; -1 when not known
	// feed is the group's first entries of the feed of changes, when
	// feedKnown (feed.go).
	feed      []feed.Entry
	feedKnown bool
	due       int64 // when its first page still to come is due (Unix ns), 0 for none
	// news are its pages' news articles, fresh or still to come, as of
	// its last publish (news.go).
	news []news.Article
	// published are its parts as they landed (daemon mode; parts.go), nil
	// when not known: then a change encodes and compares every part.
	published []part
}

func newPublished(depth tree.Depth, mem *tree.Memory) *published {
	return &published{depth: depth, groups: map[string]*group{}, mem: mem, feedStale: true}
}

// state returns the state of a group, creating it.
func (m *published) state(dir string) *group {
	g := m.groups[dir]
	if g == nil {
		g = &group{urls: -1}
		m.groups[dir] = g
	}
	return g
}

// take swaps in the groups' states a publish staged, as it commits: a
// nil state is a group with nothing left to keep.
func (m *published) take(next map[string]*group) {
	for dir, g := range next {
		if g == nil {
			delete(m.groups, dir)
		} else {
			m.groups[dir] = g
		}
	}
}

// groupsFor returns the groups to rebuild when the pages of the given
// directories may have changed: their own groups, and the groups that list
// them through a symlink.
func (m *published) groupsFor(dirs []string) []string {
	set := map[string]bool{}
	for _, d := range dirs {
		set[m.depth.GroupOf(d)] = true
		for dir, g := range m.groups {
			for _, t := range g.links {
				if d == t || strings.HasPrefix(d, t+"/") {
					set[dir] = true
				}
			}
		}
	}
	out := make([]string, 0, len(set))
	for d := range set {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

// failed lists the groups whose last publish failed, sorted.
func (m *published) failed() []string {
	var out []string
	for dir, g := range m.groups {
		if g.failed {
			out = append(out, dir)
		}
	}
	slices.Sort(out)
	return out
}

// listed counts the groups published and the URLs they list, as far as
// known.
func (m *published) listed() (groups, urls int) {
	for _, g := range m.groups {
		if g.urls >= 0 {
			groups++
			urls += g.urls
		}
	}
	return groups, urls
}

// due is when the first page still to come of any group is due (Unix
// ns), 0 for none.
func (m *published) due() int64 {
	var first int64
	for _, g := range m.groups {
		if g.due != 0 && (first == 0 || g.due < first) {
			first = g.due
		}
	}
	return first
}

// dueGroups lists the groups holding a page whose time has come by now.
func (m *published) dueGroups(now time.Time) []string {
	var out []string
	for dir, g := range m.groups {
		if g.due != 0 && g.due <= now.UnixNano() {
			out = append(out, dir)
		}
	}
	slices.Sort(out)
	return out
}

// remembered is what memory holds of a group (nil without memory).
func (m *published) remembered(dir string) map[string]*tree.Listing {
	if m.mem == nil {
		return nil
	}
	return m.mem.Listings(dir)
}

// claims reports whether an output file is a part of its group as
// published.
func (m *published) claims(p string) bool {
	g := m.groups[m.depth.GroupOf(tree.Parent(p))]
	return g != nil && (slices.Contains(g.parts, p) || slices.Contains(g.textParts, p))
}

// indexNames lists the index files of the last publish.
func (m *published) indexNames(out *outname.Site) []string {
	names := make([]string, m.indexParts)
	for i := range names {
		names[i] = out.Out(outname.Part(out.Index(), i+1))
	}
	return names
}

// setEntries records a group's feed entries once its files landed, and
// whether that changes the feed.
func (m *published) setEntries(g *group, entries []feed.Entry) {
	if !g.feedKnown || !slices.Equal(g.feed, entries) {
		m.feedStale = true
	}
	g.feed, g.feedKnown = entries, true
}

// unknownEntries marks a group's entries as not known: they are read from
// its files on disk when the feed is next made.
func (m *published) unknownEntries(g *group) {
	g.feed, g.feedKnown = nil, false
	m.feedStale = true
}
