package tree

import (
	"strconv"
	"strings"
)

// Reason says why a page that exists is not listed. The zero Reason,
// Listed, is none: the page is listed.
type Reason uint8

// The reasons a page is left out, in the order a page is tested for them.
// The values are stored in the head store: append, never renumber.
const (
	Listed         Reason = iota
	Excluded              // a pages.exclude glob matches it
	ErrorPage             // a pages.error_pages glob matches it
	Robots                // robots.txt disallows it
	TooLong               // its URL is longer than the protocol allows
	DuplicateIndex        // another index file of its directory has its URL
	NoIndex               // its head says noindex
	Canonical             // its head names another page as canonical
	Redirect              // its head redirects at once (meta refresh)
	numReasons
)

var reasonNames = [numReasons]string{
	Listed: "listed", Excluded: "excluded", ErrorPage: "error_page", Robots: "robots",
	TooLong: "too_long", DuplicateIndex: "duplicate_index", NoIndex: "noindex",
	Canonical: "canonical", Redirect: "redirect",
}

// String is the reason's name in logs and metric labels.
func (r Reason) String() string {
	if r < numReasons {
		return reasonNames[r]
	}
	return "unknown"
}

// FromHead reports whether a reason is one a page's head gives (and so is
// remembered with the head, not decided again from the page's name).
func (r Reason) FromHead() bool { return r == NoIndex || r == Canonical || r == Redirect }

// Reasons lists every reason a page is left out, for reports and metrics.
func Reasons() []Reason {
	out := make([]Reason, 0, numReasons-1)
	for r := Listed + 1; r < numReasons; r++ {
		out = append(out, r)
	}
	return out
}

// Tally counts pages left out, by reason. The zero Tally counts none.
type Tally [numReasons]int

// Add counts one page left out for r (Listed is not counted).
func (t *Tally) Add(r Reason) {
	if r != Listed && r < numReasons {
		t[r]++
	}
}

// Merge adds another tally's counts.
func (t *Tally) Merge(o Tally) {
	for i := range t {
		t[i] += o[i]
	}
}

// Total is the number of pages left out.
func (t *Tally) Total() int {
	n := 0
	for _, c := range t[Listed+1:] {
		n += c
	}
	return n
}

// Top is the reason that left out the most pages (Listed for none).
func (t *Tally) Top() Reason {
	top := Listed
	for _, r := range Reasons() {
		if t[r] > t[top] { // t[Listed] is 0: any count beats none
			top = r
		}
	}
	return top
}

// String lists the non-zero counts, "robots=3 noindex=1", or "none".
func (t *Tally) String() string {
	var b strings.Builder
	for _, r := range Reasons() {
		if t[r] > 0 {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(r.String())
			b.WriteByte('=')
			b.WriteString(strconv.Itoa(t[r]))
		}
	}
	if b.Len() == 0 {
		return "none"
	}
	return b.String()
}
