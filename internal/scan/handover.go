package scan

// Groups are read a few at a time and handed over whole: a group holds
// its pages from its first directory read until it is taken, so the
// number read at once bounds a walk's memory.

// admit starts reading a group at its first visit when fewer than
// maxGroups are being read, or queues it until one is read. Visits of a
// group run in parallel all the same (sem); what the bound bounds is
// memory: a group holds its pages until it is handed over whole, and
// groups read all at once finish all at once, near the end of the walk,
// each holding its pages while it waits its turn to be published.
func (w *Walk) admit(v *visit) {
	w.wg.Add(1) // the queued visit holds the walk open until it starts
	w.groupsMu.Lock()
	if w.reading < w.maxGroups {
		w.reading++
		w.groupsMu.Unlock()
		w.start(v)
		w.wg.Done()
		return
	}
	w.queued = append(w.queued, v)
	w.groupsMu.Unlock()
}

// groupRead notes a group read, and starts the next one queued.
func (w *Walk) groupRead() {
	w.groupsMu.Lock()
	if len(w.queued) == 0 {
		w.reading--
		w.groupsMu.Unlock()
		return
	}
	v := w.queued[0]
	w.queued[0] = nil // a read group's URLs go with its first visit
	w.queued = w.queued[1:]
	w.groupsMu.Unlock()
	w.start(v)
	w.wg.Done()
}

// AddURLs adds to a group the walk handed over the URLs of its recorded
// directories, which the walk left in their listings (some 40 bytes a
// page, where URLs are some 200), as of the clock now: a page written
// since the walk started is no page to come. The taker calls it when it
// takes the group, so that groups waiting their turn hold listings only.
func (w *Walk) AddURLs(g *Group) {
	if len(g.Listings) == 0 || g.Err != nil {
		return
	}
	var due int64
	g.URLs, due = w.s.AppendURLs(g.URLs, g.Listings, w.clock())
	if due != 0 {
		g.due(due)
	}
}
