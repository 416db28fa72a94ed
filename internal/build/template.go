package build

import (
	"context"
	"sync"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/pagestore"
	"github.com/sitemapd/sitemapd/internal/scan"
	"github.com/sitemapd/sitemapd/internal/significant"
)

// template owns the site's template model (pages.lastmod: significant):
// the model that pages' prints are made under, kept in the page store with
// them (prints are comparable only under the model that made them), and
// learnt from a sample of the site's pages when the store has none.
//
// The model is sticky: once learnt or read it stays for the life of the
// store, so that a template change landing page by page is judged by the
// template as it was. It is learnt anew only when there is none: a first
// build, a store of an older version or one kept with no HTML page to
// learn from; the prints then known (of the old store, or of memory) were
// made under another model, and the walk that follows is told so
// (WalkOptions.StalePrints): their pages keep their times and get new
// prints.
//
// The daemon (WithDeferredPrints) does not wait for a model, nor for
// prints, to publish a site it has none for: with nothing known to compare
// a print with, the first publish needs none. Its first full build learns
// nothing and prints nothing (prints are then owed); every walk defers
// them until the next full build, which the daemon runs as soon as the
// first has published (Report.PrintsOwed), learns the model and prints every
// page. A page whose bytes change before then moves by its bytes, as
// under pages.lastmod: content.
type template struct {
	log   *zap.Logger
	scan  *scan.Scanner
	model *significant.Model
	bytes []byte // model, serialised, as the store keeps it

	owed     bool // prints are deferred until the next full build
	deferred bool // a build deferred them once: the next one may not

	// learnt, if set, is told of each sample learnt from (tests: the
	// walk uses it, and the engine keeps none once the build is done).
	learnt func(*scan.Sample)
}

// fromStore takes the model a store found at start keeps, if any.
func (t *template) fromStore(s *pagestore.Store) {
	b := s.Model()
	if b == nil || !t.scan.Prints() {
		return
	}
	m := new(significant.Model)
	if err := m.UnmarshalBinary(b); err != nil {
		t.log.Warn("page store's template model cannot be read; it is learnt anew, and every page read again", zap.Error(err))
		return
	}
	t.model, t.bytes = m, b
	t.scan.SetModel(m)
}

// prepare makes sure a full build has a model, learning one if there is
// none (seen is told of what it reads), unless mayDefer lets this build
// defer the model and the prints (once in an engine's life). It reports
// whether the prints known before are stale (made under no model, or
// another one) and whether the walk is to defer prints, and the pages a
// model was learnt from (for the walk that follows: scan.Sample; not
// kept here, so that the engine at rest holds none).
func (t *template) prepare(ctx context.Context, seen func(n int), mayDefer bool) (stale, deferPrints bool, sample *scan.Sample) {
	t.owed = false
	if t.model != nil || !t.scan.Prints() {
		return false, false, nil
	}
	if mayDefer && !t.deferred {
		t.deferred, t.owed = true, true
		return true, true, nil
	}
	m, sample, err := t.scan.Learn(ctx, seen)
	if err != nil || m == nil {
		return false, false, nil // no page to learn from, or cancelled: prints stay the landmark rule's
	}
	b, err := m.MarshalBinary()
	if err != nil {
		t.log.Warn("template model cannot be kept; learnt again next time", zap.Error(err))
		return false, false, nil
	}
	t.model, t.bytes = m, b
	t.scan.SetModel(m)
	if t.learnt != nil {
		t.learnt(sample)
	}
	return true, false, sample
}

// keepIn writes the model into a store being written whole.
func (t *template) keepIn(w *pagestore.Writer) {
	if w != nil && t.bytes != nil {
		w.SetModel(t.bytes)
	}
}

// Lastmods says what became of the lastmods of the pages a publish read
// again whose bytes changed: how many kept their time (other bytes that
// say the same), moved because what they say changed, or moved because
// their bytes did (nothing tells more: not HTML, pages.lastmod: content,
// no print known), and the first maxJudged of them, in the order read.
type Lastmods struct {
	Kept, Moved, MovedBytes int
	Pages                   []scan.Judgement
}

// maxJudged bounds Lastmods.Pages: enough for a person to read, while a
// template deploy of a million pages costs no more.
const maxJudged = 1000

// judged notes a walk's judgements in a Lastmods (WalkOptions.Judged,
// called from the walk's goroutines).
type judged struct {
	mu sync.Mutex
	l  *Lastmods
}

func (n *judged) note(j scan.Judgement) {
	n.mu.Lock()
	defer n.mu.Unlock()
	l := n.l
	switch j.Verdict {
	case scan.Kept:
		l.Kept++
	case scan.Moved:
		l.Moved++
	default:
		l.MovedBytes++
	}
	if len(l.Pages) < maxJudged {
		l.Pages = append(l.Pages, j)
	}
}

// Field is the Lastmods as a log field, or a skipped one when no page's
// bytes changed.
func (l *Lastmods) Field() zap.Field {
	if l.Kept+l.Moved+l.MovedBytes == 0 {
		return zap.Skip()
	}
	return zap.Dict("lastmods", zap.Int("kept", l.Kept), zap.Int("moved", l.Moved), zap.Int("moved_by_bytes", l.MovedBytes))
}
