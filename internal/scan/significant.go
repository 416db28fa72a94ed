package scan

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"

	"github.com/cespare/xxhash/v2"
	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/safefile"
	"github.com/sitemapd/sitemapd/internal/significant"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// pages.lastmod: significant. A page's time moves when what it says
// changes (its print, package significant), not when its bytes do: the
// bytes' hash stays the first, cheap test (equal bytes are not parsed),
// and the print is made only when they differ, or when the page has no
// print yet (a store of an older version: its time is kept, its print
// recorded). The template model that prints are made under is the
// scanner's (SetModel); the engine keeps it with the page store.

// sigReader is how a scanner reads pages for their prints.
type sigReader struct {
	main     significant.Selector
	template []significant.Selector
}

func newSigReader(main string, template []string) *sigReader {
	r := &sigReader{}
	// Validated with the configuration: errors cannot happen here.
	r.main, _ = significant.ParseSelector(main)
	if main == "" {
		r.main = significant.Selector{}
	}
	r.template, _ = significant.ParseSelectors(template)
	return r
}

// read reads what page b (whose URL is loc) says.
func (r *sigReader) read(b []byte, loc string) (*significant.Page, error) {
	return significant.Read(b, r.options(loc))
}

// options are how page loc is read.
func (r *sigReader) options(loc string) significant.Options {
	return significant.Options{URL: loc, Main: r.main, Ignore: r.template}
}

// SetModel sets the template model the scanner's prints are made under
// (nil: none learnt yet, the landmark rule).
func (s *Scanner) SetModel(m *significant.Model) { s.model.Store(m) }

// Model is the template model prints are made under, or nil.
func (s *Scanner) Model() *significant.Model { return s.model.Load() }

// Prints reports whether HTML pages get prints (pages.lastmod:
// significant, with somewhere to keep them).
func (s *Scanner) Prints() bool { return s.sig != nil }

// printUnder makes the print of page b under model m, or reports false
// (the page is not read for it: too large, say), in which case its
// bytes' hash decides.
func (s *Scanner) printUnder(b []byte, loc string, m *significant.Model) (significant.Print, bool) {
	pr, err := significant.ReadPrint(b, s.sig.options(loc), m)
	if err != nil {
		return significant.Print{}, false
	}
	return pr, true
}

// partsBits is how many bits each part of a print takes in tree.Page's
// Parts as packed here; a Listing keeps 8 of them and 24 bits of the
// print's sum (tree.ShortPrint), and prints are compared as it keeps them.
const partsBits = 12

// packParts packs the short hashes of a print's parts.
func packParts(pr significant.Print) uint64 {
	var v uint64
	for i, h := range [...]uint32{pr.Title, pr.Text, pr.Links, pr.Images, pr.Data} {
		v |= uint64(h&(1<<partsBits-1)) << (i * partsBits)
	}
	return v
}

// ChangedParts says which parts of a page's print differ between two
// packed Parts (tree.Page.Parts): why its lastmod moved.
func ChangedParts(was, now uint64) significant.Parts {
	var out significant.Parts
	for i, part := range [...]significant.Parts{significant.Title, significant.Text, significant.Links, significant.Images, significant.Data} {
		mask := uint64(1<<partsBits-1) << (i * partsBits)
		if was&mask != now&mask {
			out |= part
		}
	}
	return out
}

// printSum is the print's sum as kept (tree.Page.Print): never 0, which
// means none.
func printSum(pr significant.Print) uint64 {
	if v := pr.Sum(); v != 0 {
		return v
	}
	return 1
}

// Judgement is what became of the lastmod of a page read again whose
// bytes changed (WalkOptions.Judged).
type Judgement struct {
	Path    string // root-relative
	Verdict Verdict
	Parts   significant.Parts // for Moved: the parts of what it says that changed
}

// Verdict is what a page's bytes changing did to its lastmod.
type Verdict uint8

const (
	// Kept: other bytes that say the same (template, scripts, styles,
	// asset fingerprints, build stamps).
	Kept Verdict = iota
	// Moved: what the page says changed (Judgement.Parts).
	Moved
	// MovedBytes: its bytes changed, and nothing tells whether what it
	// says did (not HTML, too large, pages.lastmod: content, or no print
	// known of it before).
	MovedBytes
)

func (v Verdict) String() string {
	switch v {
	case Kept:
		return "kept: other bytes, the same content"
	case Moved:
		return "moved: what the page says changed"
	}
	return "moved: its bytes changed"
}

// judge sets the time, sum and print of page p, read now (its bytes
// hashing to sum, its print pr if printed), from what was known of it,
// and tells WalkOptions.Judged of a page whose bytes changed.
func (w *Walk) judge(rel string, p *tree.Page, k tree.Page, wasKnown bool, sum uint64, pr significant.Print, printed bool) {
	p.Sum = sum
	if printed {
		p.Print, p.Parts = tree.ShortPrint(printSum(pr), packParts(pr))
	}
	switch {
	case wasKnown && k.Sum == sum:
		// The same bytes, rewritten (whatever the new mtime says, later
		// or earlier): they changed when they last did. A page that had
		// no print yet (an older store) gets one, keeping its time.
		p.Time = k.Time
		if !printed {
			p.Print, p.Parts = k.Print, k.Parts
		}
	case wasKnown && printed && k.Print != 0 && k.Print == p.Print && k.Parts == p.Parts:
		// Other bytes that say the same: the template, a script, an
		// asset's fingerprint, a build stamp changed.
		p.Time = k.Time
		w.judged(Judgement{Path: rel, Verdict: Kept})
	case wasKnown && k.Print != 0 && printed:
		parts := ChangedParts(k.Parts, p.Parts)
		if ce := w.log.Check(zap.DebugLevel, "lastmod moved: what the page says changed"); ce != nil {
			ce.Write(zap.String("path", w.abs(rel)), zap.Stringer("parts", parts))
		}
		w.judged(Judgement{Path: rel, Verdict: Moved, Parts: parts})
	case wasKnown:
		w.judged(Judgement{Path: rel, Verdict: MovedBytes})
	}
}

func (w *Walk) judged(j Judgement) {
	if w.o.Judged != nil {
		w.o.Judged(j)
	}
}

// sampleSize is how many HTML pages a model is learnt from, and
// perDir how many of one directory: spread over the site, a few hundred
// pages show what repeats on them.
const (
	sampleSize = 300
	perDir     = 12
	// learnDirs bounds the directories read to find the sample: a tree
	// of few HTML pages in many directories is not read whole twice.
	learnDirs = 5000
)

// Learn learns the site's template model from a sample of its HTML pages,
// spread over its directories (breadth first, at most perDir a
// directory, sampleSize in all, reading at most learnDirs directories),
// read as the walk reads them (regular files only, no symlink followed,
// bounded). A directory's pages are taken spread over it, not its first
// ones (in name order these are often one chapter's), and a site of few
// directories (a documentation tree of one huge directory) is sampled
// further from its directories' other pages once all are read. It tells
// seen of the entries and pages it reads as it goes (the engine's
// progress: a watchdog must see a first build's learning move). It
// returns nil when the site has no HTML page to learn from, and else the
// pages it read too, for the walk that follows (WalkOptions.Sample).
func (s *Scanner) Learn(ctx context.Context, seen func(n int)) (*significant.Model, *Sample, error) {
	if s.sig == nil {
		return nil, nil, nil
	}
	l := significant.NewLearner(nil)
	sample := newSample()
	add := func(pages []string) {
		for _, rel := range pages {
			if l.Len() >= sampleSize {
				return
			}
			if p, size, ok := s.samplePage(rel); ok {
				l.Add(p.page)
				sample.add(rel, p, size)
			}
			seen(1)
		}
	}
	var more []string // past each directory's perDir, spread, at most sampleSize
	queue := []string{""}
	for read := 0; len(queue) > 0 && l.Len() < sampleSize && read < learnDirs; read++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		dir := queue[0]
		queue = queue[1:]
		entries, err := os.ReadDir(s.abs(dir))
		if err != nil {
			continue // unreadable: the walk reports it
		}
		seen(len(entries))
		var pages []string
		for _, e := range entries {
			rel := path.Join(dir, e.Name())
			switch {
			case e.Name()[0] == '.' || s.filter.Excluded(rel):
			case e.IsDir():
				queue = append(queue, rel)
			case e.Type().IsRegular() && isHTML(e.Name()) && s.filter.IsPage(e.Name()):
				pages = append(pages, rel)
			}
		}
		first, rest := spread(pages, perDir)
		add(first)
		extra, _ := spread(rest, sampleSize-len(more))
		more = append(more, extra...)
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	add(more)
	if l.Len() == 0 {
		return nil, nil, nil
	}
	m := l.Model()
	sample.model = m
	s.log.Info("learnt the site's template from its pages", zap.Int("pages", l.Len()))
	return m, sample, nil
}

// spread picks up to k of names, evenly spaced in their order, and
// returns them and the others.
func spread(names []string, k int) (picked, rest []string) {
	if len(names) <= k {
		return names, nil
	}
	if k <= 0 {
		return nil, names
	}
	next := 0 // the index of the next pick
	for i, n := range names {
		if i == next*len(names)/k && next < k {
			picked = append(picked, n)
			next++
		} else {
			rest = append(rest, n)
		}
	}
	return picked, rest
}

// samplePage reads one page of the sample (ok) of size bytes, with the
// hash of its bytes and its URL, as the walk makes them (read, page), so
// that the walk may print it from what was read here.
func (s *Scanner) samplePage(rel string) (p sampled, size int, ok bool) {
	b, err := safefile.ReadFile(s.abs(rel), significant.Limit, safefile.NoFollow)
	if err != nil {
		var tooLarge *safefile.TooLargeError
		if !errors.As(err, &tooLarge) && !errors.Is(err, fs.ErrNotExist) {
			s.log.Debug("template sample: page not read", zap.String("path", s.abs(rel)), zap.Error(err))
		}
		return p, 0, false
	}
	p.loc = s.PageLoc(tree.Parent(rel), path.Base(rel))
	if p.page, err = s.sig.read(b, p.loc); err != nil {
		return p, 0, false
	}
	p.sum = xxhash.Sum64(b)
	return p, len(b), true
}

// abs is a root-relative path's absolute path.
func (s *Scanner) abs(rel string) string {
	if rel == "" {
		return s.cfg.Root
	}
	return s.cfg.Root + "/" + rel
}
