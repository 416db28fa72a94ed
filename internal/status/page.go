package status

import (
	"fmt"
	"net/url"
	"slices"
	"time"

	"github.com/sitemapd/sitemapd/internal/tree"
)

// MaxGroupsShown bounds the groups a page lists: a site of thousands of
// groups would make a page nobody scrolls. Those with pages left out come
// first, so that what needs a look is never cut.
const MaxGroupsShown = 300

// sitePage is what page.html's site template shows.
type sitePage struct {
	Title        string
	Overview     string // the overview's URL when several sites are served, or ""
	S            *Snapshot
	Now          timeView
	Health       healthView
	Last         timeView
	Duration     string
	Sources      []sourceView
	LeftOut      []reasonView // the site's, by reason
	LeftOutTotal int

	Hourly, Daily, Sent chart
	HourRows, DayRows   []tableRow // the charts' data as tables
	SentRows            []sentRow
	Legend              []legendItem

	Groups     []groupView
	MoreGroups int
	// MoreLeftOut is how many of the MoreGroups not shown have pages left
	// out (more than MaxGroupsShown groups have).
	MoreLeftOut int

	Endpoints []endpointView
	// The recent records: the first few shown, the rest behind a click
	// (on a phone, fifty of each are a long way to scroll).
	Publishes, OlderPublishes     []publishView
	Submissions, OlderSubmissions []submissionView
}

// RecentShown is how many publishes and submissions the page shows before
// "more".
const RecentShown = 10

type timeView struct {
	ISO, Text, Ago string
}

func timeOf(now, t time.Time) timeView {
	if t.IsZero() {
		return timeView{Text: "never"}
	}
	return timeView{ISO: t.UTC().Format(time.RFC3339), Text: stamp(t), Ago: ago(now, t)}
}

type healthView struct {
	Class, Text, Reason string
}

func healthOf(h Health) healthView {
	return healthView{Class: "h-" + h.Level.String(), Text: h.Level.String(), Reason: h.Reason}
}

type sourceView struct {
	Name  string
	Count string
}

func sourcesOf(s Sources) []sourceView {
	var out []sourceView
	for i, v := range s.values() {
		out = append(out, sourceView{Name: sourceNames[i], Count: count(v)})
	}
	return out
}

type reasonView struct {
	Reason   string
	Count    string
	Examples []string
}

type groupView struct {
	Path    string
	Listed  string
	LeftOut string
	Reasons []reasonView
	Sources []sourceView
}

type tableRow struct{ Label, Count, More string }

type sentRow struct {
	Endpoint string
	Counts   []string // by Answer
	Total    string
}

type legendItem struct{ Class, Text string }

type endpointView struct {
	Name, URL, Owed, Answer string
	Attempt, Next           timeView
	Trouble                 bool
}

type publishView struct {
	At                       timeView
	Trigger, Took, URLs      string
	PageDate, Content, MTime string
	Removed                  string
	Failed                   bool
}

type submissionView struct {
	At             timeView
	Endpoint, URLs string
	Answer         string
	Class          string
	n              int // URLs, for the text's plural
}

// newSitePage prepares a snapshot for the page. overview is the link back
// to the list of sites, "" when there is one site.
func newSitePage(s *Snapshot, overview string) *sitePage {
	p := &sitePage{
		Title: siteTitle(s), Overview: overview, S: s,
		Now: timeOf(s.Now, s.Now), Health: healthOf(s.Health),
		Last: timeOf(s.Now, s.LastPublish), Duration: duration(s.LastDuration),
		Sources: sourcesOf(s.Sources()),
	}
	tally := s.LeftOut()
	p.LeftOutTotal = tally.Total()
	for r, n := range tally {
		if n > 0 {
			p.LeftOut = append(p.LeftOut, reasonView{Reason: reasonText(tree.Reason(r)), Count: count(n)})
		}
	}
	p.charts(s)
	p.groups(s.Groups)
	for _, e := range s.Endpoints {
		p.Endpoints = append(p.Endpoints, endpointView{
			Name: e.Name, URL: e.Shown(), Owed: count(e.Owed), Answer: endpointAnswer(e),
			Attempt: timeOf(s.Now, e.LastAttempt), Next: timeOf(s.Now, e.NextTry),
			Trouble: e.Gone || e.LastError != "",
		})
		if e.Gone || e.NextTry.IsZero() {
			p.Endpoints[len(p.Endpoints)-1].Next = timeView{Text: "not scheduled"}
		}
	}
	for _, r := range s.Activity.Publishes {
		p.Publishes = append(p.Publishes, publishView{
			At: timeOf(s.Now, r.At), Trigger: r.Trigger, Took: duration(r.Duration), URLs: count(r.URLs),
			PageDate: count(r.Moved.PageDate), Content: count(r.Moved.Content), MTime: count(r.Moved.MTime),
			Removed: count(r.Removed), Failed: r.Failed,
		})
	}
	for _, r := range s.Activity.Submissions {
		p.Submissions = append(p.Submissions, submissionView{
			At: timeOf(s.Now, r.At), Endpoint: r.Endpoint, URLs: count(r.URLs),
			Answer: answerText(r.Status, r.Error), Class: answerClass(r.Answer()), n: r.URLs,
		})
	}
	if len(p.Publishes) > RecentShown {
		p.Publishes, p.OlderPublishes = p.Publishes[:RecentShown], p.Publishes[RecentShown:]
	}
	if len(p.Submissions) > RecentShown {
		p.Submissions, p.OlderSubmissions = p.Submissions[:RecentShown], p.Submissions[RecentShown:]
	}
	return p
}

// charts draws the activity charts and their tables.
func (p *sitePage) charts(s *Snapshot) {
	a := s.Activity
	var cols []column
	changes, publishes := 0, 0
	for i, b := range a.Hourly {
		c := column{Count: b.Changes(), Title: fmt.Sprintf("%s–%s UTC: %s in %s",
			b.Start.Format("15:04"), b.Start.Add(time.Hour).Format("15:04"), plural(b.Changes(), "change", "changes"), plural(b.Publishes, "publish", "publishes"))}
		if (len(a.Hourly)-1-i)%6 == 0 {
			c.Label = b.Start.Format("15:04")
		}
		cols = append(cols, c)
		changes, publishes = changes+b.Changes(), publishes+b.Publishes
		p.HourRows = append(p.HourRows, tableRow{Label: b.Start.Format("15:04"), Count: count(b.Changes()), More: count(b.Publishes)})
	}
	p.Hourly = columnChart("hourly", "Changes published per hour, last 24 hours (UTC)",
		fmt.Sprintf("%s in %s over the last 24 hours.", plural(changes, "change", "changes"), plural(publishes, "publish", "publishes")), cols)

	cols, changes, publishes = nil, 0, 0
	for i, b := range a.Daily {
		c := column{Count: b.Changes(), Title: fmt.Sprintf("%s: %s in %s",
			b.Start.Format("Mon 2 Jan"), plural(b.Changes(), "change", "changes"), plural(b.Publishes, "publish", "publishes"))}
		if (len(a.Daily)-1-i)%7 == 0 {
			c.Label = b.Start.Format("2 Jan")
		}
		cols = append(cols, c)
		changes, publishes = changes+b.Changes(), publishes+b.Publishes
		p.DayRows = append(p.DayRows, tableRow{Label: b.Start.Format("2006-01-02"), Count: count(b.Changes()), More: count(b.Publishes)})
	}
	p.Daily = columnChart("daily", "Changes published per day, last 31 days (UTC)",
		fmt.Sprintf("%s in %s over the last 31 days.", plural(changes, "change", "changes"), plural(publishes, "publish", "publishes")), cols)

	configured := make([]string, 0, len(s.Endpoints))
	for _, e := range s.Endpoints {
		configured = append(configured, e.Name)
	}
	var rows []row
	sent := 0
	for _, name := range endpointNames(configured, a.Daily) {
		var sum AnswerCounts
		for _, b := range a.Daily {
			c := b.Submissions[name]
			for i := range sum {
				sum[i] += c[i]
			}
		}
		r := row{Label: name}
		sr := sentRow{Endpoint: name, Total: count(sum.Total())}
		for _, ans := range Answers() {
			r.Segments = append(r.Segments, segment{Count: sum[ans], Class: answerClass(ans),
				Title: fmt.Sprintf("%s: %s, %s", name, plural(sum[ans], "submission", "submissions"), ans)})
			sr.Counts = append(sr.Counts, count(sum[ans]))
		}
		rows = append(rows, r)
		p.SentRows = append(p.SentRows, sr)
		sent += sum.Total()
	}
	p.Sent = rowChart("sent", "Submissions per endpoint by answer, last 31 days",
		fmt.Sprintf("%s to %s over the last 31 days.", plural(sent, "submission", "submissions"), plural(len(rows), "endpoint", "endpoints")), rows)
	for _, ans := range Answers() {
		p.Legend = append(p.Legend, legendItem{Class: answerClass(ans), Text: ans.String()})
	}
}

// groups lists the groups, those with pages left out first, then by path.
func (p *sitePage) groups(gs []Group) {
	order := slices.Clone(gs)
	slices.SortStableFunc(order, func(a, b Group) int {
		la, lb := a.LeftOutTotal() > 0, b.LeftOutTotal() > 0
		switch {
		case la && !lb:
			return -1
		case lb && !la:
			return 1
		}
		return 0
	})
	if len(order) > MaxGroupsShown {
		p.MoreGroups = len(order) - MaxGroupsShown
		for _, g := range order[MaxGroupsShown:] {
			if g.LeftOutTotal() > 0 {
				p.MoreLeftOut++
			}
		}
		order = order[:MaxGroupsShown]
	}
	for _, g := range order {
		v := groupView{Path: g.Path, Listed: count(g.Listed), LeftOut: count(g.LeftOutTotal()), Sources: sourcesOf(g.Sources)}
		for _, l := range g.LeftOut {
			v.Reasons = append(v.Reasons, reasonView{Reason: reasonText(l.Reason), Count: count(l.Count), Examples: l.Examples[:min(len(l.Examples), MaxExamples)]})
		}
		p.Groups = append(p.Groups, v)
	}
}

// overviewPage is what page.html's overview template shows.
type overviewPage struct {
	Title string
	Now   timeView
	Sites []overviewSite
}

type overviewSite struct {
	Name, Link, BaseURL, URLs, Owed string
	Health                          healthView
	Last                            timeView
}

func newOverviewPage(now time.Time, snaps []Snapshot) *overviewPage {
	p := &overviewPage{Title: "sitemapd: " + plural(len(snaps), "site", "sites"), Now: timeOf(now, now)}
	for i := range snaps {
		s := &snaps[i]
		p.Sites = append(p.Sites, overviewSite{
			Name: s.Site, Link: "?site=" + url.QueryEscape(s.Site), BaseURL: s.BaseURL,
			URLs: count(s.URLs), Owed: count(s.Owed()), Health: healthOf(s.Health), Last: timeOf(now, s.LastPublish),
		})
	}
	return p
}
