package tree

import "slices"

// Entry is what a listing says of a page it lists: Listed is false for a
// page it does not have, or hides (then Time and Head are zero).
type Entry struct {
	Listed bool
	Time   int64
	Dated  bool // Time is the date the page's head states (Page.Dated)
	Head   Head
}

// Pair calls f for every page whose entry differs before and after (listed
// on one side only, or on both with another time or head) in the
// directories whose listing old and cur differ (a listing replaced, added
// or gone), with its entry on each side. A directory whose names are in
// the same order on both sides but for a few removed or added (an edit, a
// file created or deleted: Amend keeps the order) is paired in step,
// others by name: a map of a directory of 30,000 pages costs a change more
// than the rest of its directory's work. changeset.Compare makes a
// publish's change set from it; the build, which parts a change touches.
func Pair(old, cur map[string]*Listing, f func(dir, name string, was, is Entry)) {
	for d, ol := range old {
		pairDir(d, ol, cur[d], f)
	}
	for d, cl := range cur {
		if _, ok := old[d]; !ok {
			pairDir(d, nil, cl, f)
		}
	}
}

func pairDir(d string, ol, cl *Listing, f func(dir, name string, was, is Entry)) {
	inStep := func(name string, oi, ci int) bool {
		if oi < 0 || ci < 0 || !sameEntry(ol, oi, cl, ci) {
			if was, is := entryAt(ol, oi), entryAt(cl, ci); was != is {
				f(d, name, was, is)
			}
		}
		return true
	}
	switch {
	case cl == ol:
	case ol == nil:
		cl.Each(func(i int, name string, _ int64) { f(d, name, Entry{}, cl.entry(i)) })
	case cl == nil:
		ol.Each(func(i int, name string, _ int64) { f(d, name, ol.entry(i), Entry{}) })
	case cl.SameNames(ol):
		// Most pages are as they were: find those that are not before
		// looking for their names.
		var differ []int
		for i := range ol.Len() {
			if !sameEntry(ol, i, cl, i) {
				differ = append(differ, i)
			}
		}
		c := ol.Cursor()
		for _, i := range differ {
			for c.i < i {
				c.Advance()
			}
			_, name, _ := c.Peek()
			inStep(name, i, i)
		}
	case fewApart(ol, cl):
		steps(ol, cl, inStep)
	default:
		before := map[string]Entry{}
		ol.Each(func(i int, name string, _ int64) { before[name] = ol.entry(i) })
		cl.Each(func(i int, name string, _ int64) {
			if was, is := before[name], cl.entry(i); was != is {
				f(d, name, was, is)
			}
			delete(before, name)
		})
		for name, was := range before {
			f(d, name, was, Entry{})
		}
	}
}

// sameEntry reports whether page i of a and page j of b have the same
// Entry, without making either.
func sameEntry(a *Listing, i int, b *Listing, j int) bool {
	al, bl := a.listed(i), b.listed(j)
	if !al || !bl {
		return al == bl
	}
	return a.times[i] == b.times[j] && a.datedAt(i) == b.datedAt(j) && stringAt(a.alts, i) == stringAt(b.alts, j) && stringAt(a.images, i) == stringAt(b.images, j)
}

func stringAt(s []string, i int) string {
	if s == nil {
		return ""
	}
	return s[i]
}

// entryAt is page i's entry, or none for -1.
func entryAt(l *Listing, i int) Entry {
	if i < 0 {
		return Entry{}
	}
	return l.entry(i)
}

// stepBudget is how many pages two listings may differ by (removed or
// added) and still be paired in step.
const stepBudget = 64

// fewApart reports whether steps pairs every page of ol and cl that has
// the same name: its removed and added pages are few, and none is both.
func fewApart(ol, cl *Listing) bool {
	var removed, added []string
	if !steps(ol, cl, func(name string, oi, ci int) bool {
		switch {
		case ci < 0:
			removed = append(removed, name)
		case oi < 0:
			added = append(added, name)
		}
		return len(removed)+len(added) <= stepBudget
	}) {
		return false
	}
	for _, name := range removed {
		if slices.Contains(added, name) {
			return false
		}
	}
	return true
}

// steps walks ol and cl side by side and calls visit for each page: with
// both indexes where the names agree, with ci -1 for a page it takes as
// removed and oi -1 for one it takes as added. Where the names disagree it
// looks one page ahead on each side; it does not search further, so a
// page moved elsewhere is seen as removed and added (fewApart tells). It
// stops, returning false, when visit does.
func steps(ol, cl *Listing, visit func(name string, oi, ci int) bool) bool {
	oc, cc := ol.Cursor(), cl.Cursor()
	next := func(c Cursor) string {
		c.Advance()
		_, name, _ := c.Peek()
		return name
	}
	for {
		oi, on, ook := oc.Peek()
		ci, cn, cok := cc.Peek()
		var goOn bool
		switch {
		case !ook && !cok:
			return true
		case ook && cok && on == cn:
			goOn = visit(on, oi, ci)
			oc.Advance()
			cc.Advance()
		case !cok || (ook && next(oc) == cn):
			goOn = visit(on, oi, -1)
			oc.Advance()
		case !ook || next(cc) == on:
			goOn = visit(cn, -1, ci)
			cc.Advance()
		default: // another name at this place
			goOn = visit(on, oi, -1) && visit(cn, -1, ci)
			oc.Advance()
			cc.Advance()
		}
		if !goOn {
			return false
		}
	}
}
