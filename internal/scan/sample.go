package scan

import (
	"sync"
	"sync/atomic"

	"github.com/sitemapd/sitemapd/internal/significant"
)

// Sample is the pages a template model was learnt from (Learn), as they
// were read then, kept for the walk that follows the learning: a page of
// it whose bytes the walk finds the same is printed from what the sample
// read (Model.Print of the page is what ReadPrint of its bytes computes)
// instead of being parsed a second time. On a documentation tree of a
// thousand pages the sample is a quarter of them, and parsing them twice
// was a fifth of a fresh build's time.
//
// It is for one walk (WalkOptions.Sample), each page at most once, and
// is dropped with it: its pages cost some KB each, and a daemon at rest
// keeps none (its memory at rest is some 100 bytes a file). It is safe
// for the walk's goroutines to use at once.
type Sample struct {
	model *significant.Model // the model learnt from it: its pages print under it alone
	mu    sync.Mutex
	pages map[string]sampled // by root-relative path
	size  int                // the bytes of the pages kept (sampleBytes)
	// left is len(pages), so that the pages of a large site past the
	// sample's few hundred take no lock.
	left   atomic.Int64
	reused atomic.Int64
}

// sampled is one page of a Sample: what it says, and the hash of the
// bytes and the URL it was read with.
type sampled struct {
	page *significant.Page
	sum  uint64 // xxhash of its bytes, as the walk hashes them
	loc  string
}

// sampleBytes bounds the bytes of the pages a Sample keeps (a Page takes
// some 0.8 bytes a byte of its page): the learner held them all while it
// learnt, but the walk holds them beside its own memory. A sample of 300
// pages of 15 KB is 4.5 MB; one of huge pages keeps what fits, and the
// walk reads the others again.
const sampleBytes = 16 << 20

func newSample() *Sample { return &Sample{pages: make(map[string]sampled)} }

// add keeps a page read for the sample, of size bytes, if it fits; rel is
// its root-relative path, which the walk reads it by once.
func (s *Sample) add(rel string, p sampled, size int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.pages[rel]; ok || s.size+size > sampleBytes {
		return
	}
	s.size += size
	s.left.Add(1)
	s.pages[rel] = p
}

// take returns the sampled page at rel and gives it up, if it was read
// from bytes hashing to sum with URL loc, and the model it is to be
// printed under is the one learnt from the sample: otherwise the page
// must be read again (nil). A page the walk meets is taken whatever it
// finds, so the sample shrinks as the walk goes.
func (s *Sample) take(rel string, sum uint64, loc string, m *significant.Model) *significant.Page {
	if s == nil || s.left.Load() == 0 {
		return nil
	}
	s.mu.Lock()
	p, ok := s.pages[rel]
	if ok {
		delete(s.pages, rel)
		s.left.Add(-1)
	}
	s.mu.Unlock()
	if !ok || m == nil || m != s.model || p.sum != sum || p.loc != loc {
		return nil
	}
	s.reused.Add(1)
	return p.page
}

// Len is how many pages the sample still holds.
func (s *Sample) Len() int { return int(s.left.Load()) }

// Reused is how many of its pages walks printed without reading them
// again.
func (s *Sample) Reused() int { return int(s.reused.Load()) }

// printOf makes the print of page b (whose root-relative path is rel,
// URL loc, and bytes' xxhash sum, when hashed) under the scanner's model:
// from the sample when it read the same bytes, else by reading them.
func (w *Walk) printOf(b []byte, rel, loc string, sum uint64, hashed bool) (significant.Print, bool) {
	m := w.s.model.Load()
	if hashed {
		if p := w.o.Sample.take(rel, sum, loc, m); p != nil {
			return m.Print(p), true
		}
	}
	return w.s.printUnder(b, loc, m)
}
