package scan

import (
	"os"
	"path"
	"slices"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/robots"
	"github.com/sitemapd/sitemapd/internal/significant"
	"github.com/sitemapd/sitemapd/internal/sitemap"
	"github.com/sitemapd/sitemapd/internal/siteurl"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// Scanner reads the tree of one configuration. Its walks may run one
// after another, not at once with SetRobots.
type Scanner struct {
	cfg    *config.Config
	log    *zap.Logger
	loc    *siteurl.Locator
	filter *Filter
	rules  []rule
	robots robots.Rules
	depth  tree.Depth
	heads  bool // some head rule, or the news sitemap, is on: HTML pages' heads are read
	news   bool // the news sitemap is on: pages keep the articles they are
	// images, if set, is the rule of pages.images: HTML pages' bodies
	// are read for the images they show.
	images  *imageRule
	content bool // lastmod is when a page's bytes last changed: they are hashed
	// sig, if set, reads HTML pages for their prints (pages.lastmod:
	// significant; content is set too), under model (significant.go).
	sig     *sigReader
	model   atomic.Pointer[significant.Model]
	keep    tree.Kept
	openDir func(string) (*os.File, error)
	// ownInRoot: outputs are written into the document root, so the walk
	// meets them and reports them (Group.Own); otherwise the output tree
	// is the caller's to scan.
	ownInRoot bool
	agree     Agreer // Options.Agree
}

// Options adjust a Scanner.
type Options struct {
	// OpenDir opens a directory to read it; nil is os.Open. A seam for
	// tests that inject faults.
	OpenDir func(string) (*os.File, error)
	// MTimeOnly takes lastmods from mtimes though the configuration says
	// content: there is nowhere to keep content hashes.
	MTimeOnly bool
	// Agree, if set, decides each page's time with the other servers of
	// a fleet (agree.go).
	Agree Agreer
}

// New returns a Scanner for a validated configuration, whose URLs loc
// maps. A nil logger logs nothing.
func New(cfg *config.Config, log *zap.Logger, loc *siteurl.Locator, opts Options) *Scanner {
	if log == nil {
		log = zap.NewNop()
	}
	if opts.OpenDir == nil {
		opts.OpenDir = os.Open
	}
	p := &cfg.Pages
	s := &Scanner{
		cfg: cfg, log: log, loc: loc, filter: NewFilter(cfg), rules: compileRules(p.Rules),
		depth: tree.Depth(cfg.Depth), heads: p.NoIndex || p.Canonical || p.Hreflang || p.Redirects || p.HeadDates || cfg.News.On(),
		news:    cfg.News.On(),
		content: p.LastModFrom.KeepsTimes() && !opts.MTimeOnly,
		openDir: opts.OpenDir, ownInRoot: cfg.OutputRoot() == cfg.Root,
		images: newImageRule(cfg), agree: opts.Agree,
	}
	if s.heads || s.content || s.images != nil {
		s.keep |= tree.KeepStamps
	}
	if s.content {
		s.keep |= tree.KeepSums
	}
	if s.content && p.LastModFrom == config.LastModSignificant {
		s.sig = newSigReader(p.Main, p.Template)
		s.keep |= tree.KeepPrints
	}
	return s
}

// SetRobots sets the robots.txt rules that later walks apply.
func (s *Scanner) SetRobots(r robots.Rules) { s.robots = r }

// Filter is the scanner's filter.
func (s *Scanner) Filter() *Filter { return s.filter }

// Keeps says what listings keep of each page: nothing when pages' bytes
// are never read (their stamps are then not worth keeping either).
func (s *Scanner) Keeps() tree.Kept { return s.keep }

// HashesContent reports whether pages' bytes are hashed (pages.lastmod:
// content, with somewhere to keep the hashes).
func (s *Scanner) HashesContent() bool { return s.content }

// SkipDir reports whether a directory (relative to the root) is never
// listed, so never needs watching: dot-directories, ignored names and
// excluded trees.
func (s *Scanner) SkipDir(rel string) bool {
	if rel == "" || rel == "." {
		return false // the root
	}
	return s.filter.Ignored(path.Base(rel)) || s.filter.Excluded("/"+rel)
}

// PageLoc is the URL of a page of a directory.
func (s *Scanner) PageLoc(dir, name string) string {
	return s.loc.Loc(s.loc.PagePath(dir, name))
}

// pageURL is the URL entry of a remembered page (the walk checked its
// name and length when it was read).
func (s *Scanner) pageURL(dir, name string, t int64, now time.Time) sitemap.URL {
	up := s.loc.PagePath(dir, name)
	return s.urlAt(up, s.loc.Loc(up), t, now)
}

// urlAt is the URL entry of a page at site path up, whose URL is loc.
func (s *Scanner) urlAt(up, loc string, t int64, now time.Time) sitemap.URL {
	u := sitemap.URL{Loc: loc, LastMod: tree.LastMod(t, now)}
	if r := matchRule(s.rules, up); r != nil {
		u.ChangeFreq, u.Priority = r.changefreq, r.priority
	}
	return u
}

// withHead completes a remembered page's URL entry with what its head
// said: AppendURLs and URLsIn both take it from here.
func withHead(u sitemap.URL, h tree.Head) sitemap.URL {
	u.Alternates, u.Images = tree.Alternates(h.Alts), tree.Images(h.Images)
	return u
}

// AppendURLs appends to urls the URLs of a group's remembered
// directories, unsorted, and returns when the first of them still to come
// is due (Group.Due). urls grows once: at 120 bytes a URL, a group of
// 80,000 pages grown by appending would hold half again as much.
func (s *Scanner) AppendURLs(urls []sitemap.URL, dirs map[string]*tree.Listing, now time.Time) (_ []sitemap.URL, due int64) {
	n := 0
	for _, l := range dirs {
		n += l.Len()
	}
	out := slices.Grow(urls, n)
	for d, l := range dirs {
		l.Each(func(i int, name string, t int64) {
			u := s.pageURL(d, name, t, now)
			if toCome(t, now) && (due == 0 || t < due) {
				due = t
			}
			out = append(out, withHead(u, l.Head(i)))
		})
	}
	return out, due
}
