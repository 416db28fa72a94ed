package scan

import (
	"net/url"
	"strings"
	"sync"

	"github.com/sitemapd/sitemapd/internal/tree"
)

// LeftOut is what a read left out of a group: pages whose files exist but
// that are not listed, by reason and by URL, and what their canonical
// links say of the site's real base URL.
type LeftOut struct {
	Tally tree.Tally
	// Locs are the URLs of the pages left out: a page listed before and
	// in Locs now was dropped by a rule, not deleted (the shrink guard
	// tells the two apart).
	Locs map[string]tree.Reason
	// Elsewhere counts the pages left out as canonical elsewhere whose
	// canonical URL is not under base_url, by the base URL those
	// canonicals seem to share (canonicalBase).
	Elsewhere map[string]int
	// Canonicals is the number of pages read whose head names a canonical
	// URL, their own or another.
	Canonicals int
	// Dirs is what the read left out of each directory it read whole, by
	// directory (relative to the root): a directory with none left out is
	// there too, as nil, so that what it left out before is known to be
	// gone. It stays each group's (Merge does not add it).
	Dirs map[string]*DirLeft
	// Amended is, for each directory a Refresh read only some entries of
	// (and not whole), what reading them changed (see Amend).
	Amended map[string]*Amend
}

// DirLeft is what a read left out of one directory: its count by reason,
// and for each reason one of their URLs (the least, in byte order) as an
// example. It is what the status page keeps of a directory, where a URL
// per page left out would cost memory per page.
type DirLeft struct {
	Tally    tree.Tally
	Examples [len(tree.Tally{})]string
}

func (d *DirLeft) add(why tree.Reason, loc string) {
	if why == tree.Listed || int(why) >= len(d.Tally) {
		return
	}
	d.Tally.Add(why)
	if ex := d.Examples[why]; ex == "" || loc < ex {
		d.Examples[why] = loc
	}
}

// Amend is what a Refresh that read some entries of a directory by name
// changed of what it leaves out: Tally counts the reasons those entries
// have now less those they had before (negative where fewer), Examples
// are of those left out now, and Reread are the URLs of the entries read:
// an example from before among them no longer holds. The counts of the
// directory's other entries are as they were: a Refresh reads a
// directory whole when a named entry is one a rule of the configuration
// or robots.txt leaves out by its path (refreshNames), as whether it was
// there before is not remembered.
type Amend struct {
	DirLeft
	Reread []string
}

// read notes a directory read whole (Dirs), with none left out until add
// says otherwise: most directories have none, and cost an entry only.
func (l *LeftOut) read(dir string) {
	if l.Dirs == nil {
		l.Dirs = map[string]*DirLeft{}
	}
	if _, ok := l.Dirs[dir]; !ok {
		l.Dirs[dir] = nil
	}
}

// dir is what Dirs holds of dir, made if it holds nothing yet.
func (l *LeftOut) dir(dir string) *DirLeft {
	d := l.Dirs[dir]
	if d == nil {
		d = &DirLeft{}
		if l.Dirs == nil {
			l.Dirs = map[string]*DirLeft{}
		}
		l.Dirs[dir] = d
	}
	return d
}

// take removes and returns what Dirs holds of dir (had: it held an
// entry), under mu: a Refresh reading some of its entries by name notes
// what they leave out there (add), to amend what the directory left out
// before.
func (l *LeftOut) take(mu *sync.Mutex, dir string) (d *DirLeft, had bool) {
	mu.Lock()
	defer mu.Unlock()
	d, had = l.Dirs[dir]
	delete(l.Dirs, dir)
	return d, had
}

// amend turns what reading the named entries of dir left out (noted in
// Dirs[dir] by add) into dir's Amend: less what they left out before, as
// old, the directory's listing before, says (it holds the pages their
// heads hide; a page a rule leaves out by its path is never read by name).
// was is what Dirs held of dir before (take), if it had an entry: a
// read of the whole directory in the same Refresh, which stands, with no
// Amend.
func (l *LeftOut) amend(dir string, was *DirLeft, had bool, old *tree.Listing, names []string, locOf func(string) string) {
	now := l.Dirs[dir]
	delete(l.Dirs, dir)
	if had {
		if l.Dirs == nil {
			l.Dirs = map[string]*DirLeft{}
		}
		l.Dirs[dir] = was
		return
	}
	a := &Amend{}
	if now != nil {
		a.DirLeft = *now
	}
	for _, name := range names {
		a.Reread = append(a.Reread, locOf(name))
		if i, ok := old.Find(name); ok {
			if why := old.Head(i).Out; why != tree.Listed && int(why) < len(a.Tally) {
				a.Tally[why]--
			}
		}
	}
	if l.Amended == nil {
		l.Amended = map[string]*Amend{}
	}
	l.Amended[dir] = a
}

func (l *LeftOut) add(why tree.Reason, loc, dir, elsewhere string) {
	l.Tally.Add(why)
	l.dir(dir).add(why, loc)
	if l.Locs == nil {
		l.Locs = map[string]tree.Reason{}
	}
	l.Locs[loc] = why
	if elsewhere != "" {
		if l.Elsewhere == nil {
			l.Elsewhere = map[string]int{}
		}
		l.Elsewhere[elsewhere]++
	}
}

// Merge adds another read's findings (of other pages).
func (l *LeftOut) Merge(o *LeftOut) {
	l.Tally.Merge(o.Tally)
	l.Canonicals += o.Canonicals
	for k, v := range o.Elsewhere {
		if l.Elsewhere == nil {
			l.Elsewhere = map[string]int{}
		}
		l.Elsewhere[k] += v
	}
}

// canonicalBase guesses the base URL a canonical link that is not under
// base is written for: the canonical minus the page's own path below
// base, when it ends with it (a site built for
// https://docs.example.org/en/latest/ names that in every canonical), or
// else its scheme and host. It returns "" for a canonical under base.
func canonicalBase(canonical, base string, pages ...string) string {
	if strings.HasPrefix(strings.ToLower(canonical), strings.ToLower(base)) {
		return ""
	}
	for _, p := range pages {
		rel, ok := strings.CutPrefix(p, base)
		switch {
		case !ok:
		case rel == "" && strings.HasSuffix(canonical, "/"):
			return canonical // the home page: its canonical is the base
		case rel != "" && strings.HasSuffix(canonical, "/"+rel):
			return canonical[:len(canonical)-len(rel)]
		}
	}
	u, err := url.Parse(canonical)
	if err != nil || u.Host == "" {
		return canonical
	}
	return u.Scheme + "://" + u.Host + "/"
}
