package hreflang

import (
	"fmt"
	"strings"
)

// Reason is what became of one alternate a page's head names: Kept, or
// why its sitemap entry does not list it.
type Reason uint8

const (
	Kept      Reason = iota
	OtherHost        // on a host that is neither base_url's nor one pages.hreflang_hosts names
	Unlisted         // on the site's host, but no page the site lists there names alternates
	NoReturn         // a page the site lists, whose head does not name this page back
	NoSelf           // the page's set does not name the page itself: the whole set is dropped
	Alone            // all that is left names the page itself only
	nReasons
)

var reasonNames = [nReasons]string{"kept", "other_host", "unlisted", "no_return", "no_self", "alone"}

func (r Reason) String() string {
	if r < nReasons {
		return reasonNames[r]
	}
	return fmt.Sprintf("reason(%d)", r)
}

// Reasons lists every Reason, Kept first.
func Reasons() []Reason { return append([]Reason{Kept}, Dropped()...) }

// Dropped lists the reasons an alternate is not listed, in order.
func Dropped() []Reason { return []Reason{OtherHost, Unlisted, NoReturn, NoSelf, Alone} }

// Tally counts alternates by what became of them.
type Tally [nReasons]int

// Dropped is the number of alternates not listed.
func (t *Tally) Dropped() int {
	n := 0
	for _, r := range Dropped() {
		n += t[r]
	}
	return n
}

// String is the non-zero counts of dropped alternates, "unlisted 2,
// no_return 1", or "none".
func (t *Tally) String() string {
	var b strings.Builder
	for _, r := range Dropped() {
		if t[r] == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", r, t[r])
	}
	if b.Len() == 0 {
		return "none"
	}
	return b.String()
}

// lookup returns the targets of the listed page at a key that names
// alternates, if there is one.
type lookup func(Key) ([]Key, bool)

// decide is the rule (see the package comment): what becomes of each of
// the targets a page at self names, written into out (len(targets)).
// Every decision, what an entry lists and what the counts say, is made
// here.
func decide(self Key, targets []Key, find lookup, out []Reason) {
	hasSelf, others := false, 0
	for _, t := range targets {
		hasSelf = hasSelf || t == self
	}
	for i, t := range targets {
		switch {
		case !hasSelf:
			out[i] = NoSelf
		case t == self:
			out[i] = Kept
		case t == foreign:
			out[i] = OtherHost
		case t == allowed:
			out[i], others = Kept, others+1
		default:
			back, ok := find(t)
			switch {
			case !ok:
				out[i] = Unlisted
			case !contains(back, self):
				out[i] = NoReturn
			default:
				out[i], others = Kept, others+1
			}
		}
	}
	if hasSelf && others == 0 {
		for i := range out {
			if out[i] == Kept {
				out[i] = Alone
			}
		}
	}
}

func contains(ks []Key, k Key) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}
