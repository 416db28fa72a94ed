package fleet

// What a server does not owe: the changes it copied, not made.
//
// Adopted times: a page whose bytes this server knew, published with a
// time that becomes the fleet's (another server recorded its version
// first: a server's first run with etcd down, two servers on the same
// new version at once), changes only by that time. The version is the
// other server's change, which that server owes (and the leader sends);
// this one owes nothing for it (TakeOwed).
//
// Late copies: a server whose copy of a page changes after the leader
// sent that change (its deploy came after the leader's mark) must not owe
// it again. The ledger's marks forget what a server owed when they
// arrive; a change noted after the mark would stay owed, and be sent
// again if this server led one day. So each server keeps the marks of
// the last hour written by others (URL hash -> the mark's revision), and
// the revision at which each version recent enough to matter was
// recorded (by the watch, or read with the records at a load: those
// recorded since the oldest mark). A page published with a version the fleet recorded (not a
// new one of this server's) whose URL another server marked sent after
// that version was recorded was sent, that version or a later one's
// change: it is not owed here (TakeSent). A version this server records
// itself is new to the fleet, and stays owed.

import (
	"time"
)

// markRec is a URL's latest mark by another server, for one endpoint.
type markRec struct {
	rev int64     // the mark's revision
	at  time.Time // when it arrived here: it goes SentTTL later, as in etcd
}

// pruneEvery bounds how often the marks and revisions are swept.
const pruneEvery = time.Minute

// SetPageURL gives the fleet the URL of a page by its root-relative path,
// for the marks (which name URLs) to be matched with the versions
// published (which name paths). It must be safe for concurrent use, and
// set before the first publish; without it, late copies stay owed.
func (a *Agreement) SetPageURL(f func(rel string) string) {
	a.mu.Lock()
	a.pageURL = f
	a.mu.Unlock()
}

// noteMark records a mark another server wrote, at rev, of the URLs
// whose hashes are given, sent to endpoint.
func (a *Agreement) noteMark(endpoint string, hashes map[string]bool, rev int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := time.Now()
	for h := range hashes {
		eps := a.marks[h]
		if eps == nil {
			eps = map[string]markRec{}
			a.marks[h] = eps
		}
		if m, ok := eps[endpoint]; !ok || m.rev < rev {
			eps[endpoint] = markRec{rev: rev, at: now}
		}
	}
	a.seenRev(rev)
	a.pruneLocked(now)
}

// recorded notes the revision at which version k was recorded (created
// by a server, this one or another); a.mu is held.
func (a *Agreement) recorded(k vkey, rev int64) {
	a.seenRev(rev)
	a.fresh[k] = rev
	a.pruneLocked(time.Now())
}

func (a *Agreement) seenRev(rev int64) { a.lastRev = max(a.lastRev, rev) }

// revAt is a version and the revision it was recorded at.
type revAt struct {
	k   vkey
	rev int64
}

// loadedAt notes that the mirror was loaded at rev, the oldest mark then
// known being at oldest (0: none), and recent the versions it holds
// recorded at or after that mark, with their revisions. Each other
// version it holds was recorded before every mark this server may meet:
// at most oldest-1, or, with no mark, rev. a.mu is held.
func (a *Agreement) loadedAt(rev, oldest int64, recent []revAt) {
	for _, r := range recent {
		a.fresh[r.k] = r.rev
	}
	if oldest > 0 {
		a.floor = oldest - 1
	} else {
		a.floor = max(a.floor, rev)
	}
	a.seenRev(rev)
}

// pruneLocked forgets the marks older than SentTTL, and the revisions of
// versions older than every mark left (any mark is after them: the floor
// says so), at most once every pruneEvery. The revisions seen since the
// last sweep stay, marks or not: a mark read a little after the version
// it follows (two watches) still finds its revision. a.mu is held.
func (a *Agreement) pruneLocked(now time.Time) {
	if now.Before(a.nextPrune) {
		return
	}
	a.nextPrune = now.Add(pruneEvery)
	cutoff := a.swept + 1
	a.swept = a.lastRev
	for h, eps := range a.marks {
		for ep, m := range eps {
			if now.Sub(m.at) > SentTTL*time.Second {
				delete(eps, ep)
				continue
			}
			cutoff = min(cutoff, m.rev)
		}
		if len(eps) == 0 {
			delete(a.marks, h)
		}
	}
	for k, rev := range a.fresh {
		if rev < cutoff {
			delete(a.fresh, k)
		}
	}
	a.floor = max(a.floor, cutoff-1)
}

// checkOwed notes, for a page published with version k the mirror holds
// (for time t), whether it is a change this server does not owe: its
// bytes unchanged and its time becoming the fleet's, or another server
// marked its URL sent after k was recorded. a.mu is held.
func (a *Agreement) checkOwed(k vkey, c claim, t int64) {
	if a.pageURL == nil || (len(c.rel) > 0 && c.rel[0] == fileMark[0]) {
		return
	}
	if c.same && t != c.local {
		a.adopted[a.pageURL(c.rel)] = true
	}
	if len(a.marks) == 0 {
		return
	}
	u := a.pageURL(c.rel)
	eps := a.marks[urlHash(u)]
	if len(eps) == 0 {
		return
	}
	rev, known := a.fresh[k]
	if !known {
		rev = a.floor // recorded at or before it
	}
	for ep, m := range eps {
		if m.rev > rev {
			if a.sent[ep] == nil {
				a.sent[ep] = map[string]bool{}
			}
			a.sent[ep][u] = true
		}
	}
}

// TakeOwed returns, and forgets, what of the pages published since the
// last call this server does not owe: those whose only change is a time
// adopted from the fleet (adopted), and those whose version another
// server sent to an endpoint (its mark, after the version was recorded),
// by endpoint (sent). A publish calls it as it records what it owes.
func (a *Agreement) TakeOwed() (adopted map[string]bool, sent map[string]map[string]bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	adopted, sent = a.adopted, a.sent
	a.adopted, a.sent = map[string]bool{}, map[string]map[string]bool{}
	a.pruneLocked(time.Now())
	return adopted, sent
}
