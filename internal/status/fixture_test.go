package status_test

import (
	"sync"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/status"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// t0 is the fixed "now" of the golden files.
var t0 = time.Date(2026, 3, 14, 15, 30, 0, 0, time.UTC)

// clock is a fake clock the tests move.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock(t time.Time) *clock { return &clock{t: t} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// script is a month of a site's life, recorded through the History with
// the clock moved to each record's time, ending at t0. What it adds up
// to is counted independently, for the tests to check the charts by.
type script struct {
	publishes   []status.Publish
	submissions []status.Submission
}

// month returns the scripted records, oldest first: a publish every 7
// hours over 40 days (some outside the month), with changes that vary;
// each endpoint told at every third publish, answering by a pattern.
func month() script {
	var s script
	start := t0.Add(-40 * 24 * time.Hour)
	triggers := []string{"change", "change", "periodic rescan", "change", "retry"}
	for i := 0; ; i++ {
		at := start.Add(time.Duration(i) * 7 * time.Hour).Add(17 * time.Minute)
		if at.After(t0) {
			break
		}
		p := status.Publish{
			At: at, Duration: time.Duration(40+i%13*17) * time.Millisecond, Trigger: triggers[i%len(triggers)],
			URLs:    1200 + i,
			Moved:   status.Sources{PageDate: i % 3, Content: (i * 7) % 11, MTime: i % 2},
			Removed: i % 4 / 3, Failed: i%17 == 16,
		}
		s.publishes = append(s.publishes, p)
		if i%3 != 0 {
			continue
		}
		statuses := []int{200, 200, 202, 503, 0, 200, 429}
		s.submissions = append(s.submissions, status.Submission{
			At: at.Add(5 * time.Minute), Endpoint: "indexnow", URLs: p.Moved.Total() + p.Removed,
			Status: statuses[i%len(statuses)], Error: map[bool]status.ErrorClass{true: status.Timeout}[statuses[i%len(statuses)] == 0],
		})
		s.submissions = append(s.submissions, status.Submission{
			At: at.Add(6 * time.Minute), Endpoint: "google-ping", URLs: 1, Status: []int{200, 200, 200, 410}[i/3%4],
		})
	}
	return s
}

// record plays the script into h, moving c to each record's time, and
// leaves c at t0.
func (s script) record(t testing.TB, h *status.History, c *clock) {
	t.Helper()
	pi, si := 0, 0
	for pi < len(s.publishes) || si < len(s.submissions) {
		if si >= len(s.submissions) || (pi < len(s.publishes) && !s.publishes[pi].At.After(s.submissions[si].At)) {
			c.Set(s.publishes[pi].At)
			if err := h.RecordPublish(s.publishes[pi]); err != nil {
				t.Fatal(err)
			}
			pi++
			continue
		}
		c.Set(s.submissions[si].At)
		if err := h.RecordSubmission(s.submissions[si]); err != nil {
			t.Fatal(err)
		}
		si++
	}
	c.Set(t0)
}

// sample is a site's snapshot as the daemon would fill it, at t0.
func sample(a status.Activity) status.Snapshot {
	last := t0.Add(-13 * time.Minute)
	if len(a.Publishes) > 0 {
		last = a.Publishes[0].At
	}
	return status.Snapshot{
		Site: "blog", BaseURL: "https://blog.example.org/", Now: t0,
		URLs: 1283, Sitemaps: 4,
		LastPublish: last, LastDuration: 245 * time.Millisecond,
		Health: status.Health{Level: status.Degraded,
			Reason: "notifications to indexnow have failed since 2026-03-14T13:17:00Z (12 URLs owed): HTTP 503"},
		Groups: []status.Group{
			{Path: "/", Listed: 40, Sources: status.Sources{Content: 38, MTime: 2}},
			{Path: "/docs/", Listed: 820, Sources: status.Sources{PageDate: 800, Content: 20},
				LeftOut: []status.LeftOut{
					{Reason: tree.NoIndex, Count: 5, Examples: []string{
						"https://blog.example.org/docs/draft.html", "https://blog.example.org/docs/old/a.html",
						"https://blog.example.org/docs/old/b.html", "https://blog.example.org/docs/old/c.html"}},
					{Reason: tree.Canonical, Count: 2, Examples: []string{
						"https://blog.example.org/docs/print/intro.html", "https://blog.example.org/docs/print/setup.html"}},
				}},
			{Path: "/posts/", Listed: 423, Sources: status.Sources{PageDate: 400, Content: 23},
				LeftOut: []status.LeftOut{
					{Reason: tree.Robots, Count: 12, Examples: []string{"https://blog.example.org/posts/private/1.html"}},
					{Reason: tree.Redirect, Count: 1, Examples: []string{"https://blog.example.org/posts/moved.html"}},
					{Reason: tree.ErrorPage, Count: 1, Examples: []string{"https://blog.example.org/posts/404.html"}},
					{Reason: tree.Excluded, Count: 30, Examples: []string{"https://blog.example.org/posts/tmp/x.html"}},
				}},
		},
		Endpoints: []status.Endpoint{
			{Name: "indexnow", URL: "https://user:hunter2@api.indexnow.example/indexnow?key=SECRETKEY&x=1",
				Owed: 12, LastAttempt: t0.Add(-7 * time.Minute), LastStatus: 503, LastError: "503 Service Unavailable",
				NextTry: t0.Add(8 * time.Minute)},
			{Name: "google-ping", URL: "https://ping.example/ping?sitemap={sitemap}",
				LastAttempt: t0.Add(-6 * time.Minute), LastStatus: 404, Gone: true},
		},
		Activity: a,
	}
}

// sites is a Source of fixed snapshots.
type sites struct {
	names []string
	snaps map[string]status.Snapshot
}

func (s sites) Sites() []string { return s.names }

func (s sites) Snapshot(name string) (status.Snapshot, bool) {
	v, ok := s.snaps[name]
	return v, ok
}

func oneSite(s status.Snapshot) sites {
	return sites{names: []string{s.Site}, snaps: map[string]status.Snapshot{s.Site: s}}
}
