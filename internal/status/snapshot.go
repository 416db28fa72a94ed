package status

import (
	"time"

	"github.com/sitemapd/sitemapd/internal/redact"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// Snapshot is what the status page shows of one site at one moment. It is
// plain data: the daemon fills it from what it already holds (the
// metrics' health, the engine's groups, the notifier's stats, the
// History's Activity) and nothing here reads the daemon's state.
//
// Everything in it may be shown to anyone who reaches the listener, so it
// holds no filesystem path, key or secret: groups are named by their URL
// path, examples are page URLs the sitemaps could list, and an endpoint's
// URL is only ever shown through redact.URL (Endpoint.Shown).
type Snapshot struct {
	Site    string    // the site's name; "" for the one site of a process
	BaseURL string    // base_url, public
	Now     time.Time // when the snapshot was taken: ages are counted from it

	URLs     int // URLs the published sitemaps list
	Sitemaps int // sitemap files published (parts, URL files' sitemaps)

	LastPublish  time.Time     // when the last publish ended; zero before the first
	LastDuration time.Duration // how long it took
	Health       Health

	// Groups are the directory groups, in the order the page lists them
	// (the daemon's: by path).
	Groups []Group
	// Endpoints are the configured notify endpoints, in configuration order.
	Endpoints []Endpoint
	// Activity is what the History remembers: buckets and recent records.
	Activity Activity
}

// Level is how well a site is served, from best to worst.
type Level uint8

const (
	// OK: the sitemaps are what the tree says and search engines are told.
	OK Level = iota
	// Degraded: the sitemaps are right, but search engines are not being
	// told (an endpoint has been failing, or is gone).
	Degraded
	// Failing: the sitemaps may not be what the tree and the
	// configuration say (a publish failed, a build was refused, the
	// configuration is invalid, directories are not watched).
	Failing
	numLevels
)

var levelNames = [numLevels]string{OK: "ok", Degraded: "degraded", Failing: "failing"}

// String is the level's name on the page and in the text.
func (l Level) String() string {
	if l < numLevels {
		return levelNames[l]
	}
	return "unknown"
}

// HealthOf reads the status /healthz answers for a site ("ok",
// "degraded", "unhealthy") and its reason; a status it does not know is
// Failing, so that nothing wrong ever shows as fine.
func HealthOf(status, reason string) Health {
	switch status {
	case "ok":
		return Health{Level: OK, Reason: reason}
	case "degraded":
		return Health{Level: Degraded, Reason: reason}
	}
	return Health{Level: Failing, Reason: reason}
}

// Health is a site's level and, when it is not OK, why.
type Health struct {
	Level Level
	// Reason is why the site is not OK, as /healthz says it (its paths
	// already relative to the roots: take it from metrics.Health).
	Reason string
}

// Group is one directory group: one sitemap (in parts) for a directory
// and what folds into it.
type Group struct {
	// Path is the group's URL path below the base URL ("/", "/docs/"),
	// never its directory on the server.
	Path    string
	Listed  int       // pages listed
	LeftOut []LeftOut // pages left out, one entry per reason that left any out
	Sources Sources   // where the lastmods of the pages listed come from
}

// LeftOutTotal is the number of the group's pages left out.
func (g Group) LeftOutTotal() int {
	n := 0
	for _, l := range g.LeftOut {
		n += l.Count
	}
	return n
}

// MaxExamples is how many example URLs a LeftOut shows.
const MaxExamples = 3

// LeftOut is the pages of a group one reason left out.
type LeftOut struct {
	Reason tree.Reason
	Count  int
	// Examples are up to MaxExamples of their URLs (more are not shown).
	Examples []string
}

// Sources counts lastmods by where they come from (pages.lastmod,
// pages.head_dates).
type Sources struct {
	PageDate int `json:"page_date"` // the date the page's head states
	Content  int `json:"content"`   // when its bytes last changed (by their hash)
	MTime    int `json:"mtime"`     // its file's modification time
}

// Total is the sum of the counts.
func (s Sources) Total() int { return s.PageDate + s.Content + s.MTime }

// Add returns the sums of two counts.
func (s Sources) Add(o Sources) Sources {
	return Sources{PageDate: s.PageDate + o.PageDate, Content: s.Content + o.Content, MTime: s.MTime + o.MTime}
}

// Endpoint is one notify endpoint: what it is owed and how it answered.
type Endpoint struct {
	Name string
	// URL is the configured URL. It may carry credentials (IndexNow's
	// key=, a vendor's token): it is only ever shown through Shown.
	URL         string
	Owed        int       // URLs owed now
	LastAttempt time.Time // when the last request was made; zero for none
	// LastStatus is the HTTP status of the last answer, 0 for none.
	LastStatus int
	// LastError is why the last request failed, as the notifier reports
	// it (its URLs already redacted), "" after a success.
	LastError string
	NextTry   time.Time // when the schedule next runs it; zero when it will not
	Gone      bool      // it answered 404 or 410: calls stopped until its URL changes
}

// Shown is the endpoint's URL as it may be shown: its password, query
// values and fragment hidden, but for a ping URL's {sitemap} placeholder,
// which sitemapd fills with the public index URL.
func (e Endpoint) Shown() string {
	if e.URL == "" {
		return ""
	}
	return redact.URL(e.URL, "{sitemap}")
}

// Sources is the site's lastmod sources: the sum of its groups'.
func (s Snapshot) Sources() Sources {
	var t Sources
	for _, g := range s.Groups {
		t = t.Add(g.Sources)
	}
	return t
}

// LeftOut is the site's pages left out, by reason: the sum of its groups'.
func (s Snapshot) LeftOut() tree.Tally {
	var t tree.Tally
	for _, g := range s.Groups {
		for _, l := range g.LeftOut {
			if int(l.Reason) < len(t) { // a reason this build does not know is not counted
				t[l.Reason] += l.Count
			}
		}
	}
	return t
}

// Owed is the URLs owed, summed over the endpoints.
func (s Snapshot) Owed() int {
	n := 0
	for _, e := range s.Endpoints {
		n += e.Owed
	}
	return n
}
