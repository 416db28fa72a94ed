package status

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteText writes the snapshot for a terminal: what the page shows, the
// charts as one line of block characters each, the groups' examples and
// the recent records cut to RecentShown. Lines are plain UTF-8, no colour.
func (s Snapshot) WriteText(w io.Writer) error {
	t := &textWriter{w: w}
	p := newSitePage(&s, "")
	t.summary(&s, p)
	t.line("")
	t.activity(&s, p)
	t.line("")
	t.groups(&s, p)
	t.line("")
	t.endpoints(&s, p)
	t.line("")
	t.recent(p)
	return t.err
}

// summary is the site's health, counts and last publish.
func (t *textWriter) summary(s *Snapshot, p *sitePage) {
	t.line("%s", p.Title)
	if s.Site != "" && s.BaseURL != "" {
		t.line("%s", s.BaseURL)
	}
	if s.Health.Reason != "" {
		t.line("health: %s: %s", s.Health.Level, s.Health.Reason)
	} else {
		t.line("health: %s", s.Health.Level)
	}
	t.line("listed: %s in %s", plural(s.URLs, "URL", "URLs"), plural(s.Sitemaps, "sitemap", "sitemaps"))
	if s.LastPublish.IsZero() {
		t.line("last publish: never")
	} else {
		t.line("last publish: %s (%s), took %s", stamp(s.LastPublish), ago(s.Now, s.LastPublish), duration(s.LastDuration))
	}
	t.line("owed to search engines: %s", plural(s.Owed(), "URL", "URLs"))
	t.line("lastmods from: %s", sourcesText(s.Sources()))
}

// activity is the charts: changes per hour and day, submissions by answer.
func (t *textWriter) activity(s *Snapshot, p *sitePage) {
	a := s.Activity
	t.line("changes per hour, last 24 h (UTC, oldest first):")
	t.line("  %s  %s", spark(a.Hourly), p.Hourly.Desc)
	t.line("changes per day, last 31 days:")
	t.line("  %s  %s", spark(a.Daily), p.Daily.Desc)
	t.line("submissions, last 31 days:")
	if len(p.SentRows) == 0 {
		t.line("  none")
	}
	for _, r := range p.SentRows {
		var parts []string
		for i, c := range r.Counts {
			if c != "0" {
				parts = append(parts, c+" "+Answer(i).String())
			}
		}
		if len(parts) == 0 {
			parts = []string{"none"}
		}
		t.line("  %s: %s (%s)", r.Endpoint, r.Total, strings.Join(parts, ", "))
	}
}

// groups is each directory group shown, with what it leaves out.
func (t *textWriter) groups(s *Snapshot, p *sitePage) {
	t.line("groups (%d; those with pages left out first):", len(s.Groups))
	if len(s.Groups) == 0 {
		t.line("  none yet")
	}
	for _, g := range p.Groups {
		if g.LeftOut != "0" {
			t.line("  %s  %s listed, %s left out", g.Path, g.Listed, g.LeftOut)
		} else {
			t.line("  %s  %s listed", g.Path, g.Listed)
		}
		t.line("    lastmods: %s", viewsText(g.Sources))
		for _, r := range g.Reasons {
			t.line("    %s: %s", r.Reason, r.Count)
			for _, e := range r.Examples {
				t.line("      %s", e)
			}
		}
	}
	switch {
	case p.MoreLeftOut > 0:
		t.line("  and %s more, %s of them with pages left out", count(p.MoreGroups), count(p.MoreLeftOut))
	case p.MoreGroups > 0:
		t.line("  and %s more, every page of which is listed", count(p.MoreGroups))
	}
}

// endpoints is what each search engine endpoint is owed and how it answered.
func (t *textWriter) endpoints(s *Snapshot, p *sitePage) {
	t.line("search engines:")
	if len(s.Endpoints) == 0 {
		t.line("  none configured")
	}
	for _, e := range p.Endpoints {
		t.line("  %s  %s", e.Name, e.URL)
		t.line("    owed %s; last attempt %s; last answer %s; next try %s", e.Owed, timeText(e.Attempt), e.Answer, timeText(e.Next))
	}
}

// recent is the last publishes and submissions, as aligned columns.
func (t *textWriter) recent(p *sitePage) {
	t.line("recent publishes (newest first):")
	if len(p.Publishes) == 0 {
		t.line("  none yet")
	}
	tw := tabwriter.NewWriter(t, 0, 0, 2, ' ', 0)
	for _, r := range p.Publishes {
		failed := ""
		if r.Failed {
			failed = " (failed)"
		}
		fmt.Fprintf(tw, "  %s\t%s%s\ttook %s\t%s URLs\tmoved %s/%s/%s\tremoved %s\n",
			r.At.Text, r.Trigger, failed, r.Took, r.URLs, r.PageDate, r.Content, r.MTime, r.Removed)
	}
	tw.Flush()
	if len(p.Publishes) > 0 {
		t.line("  (moved: page date/content/mtime)")
	}
	t.line("recent submissions (newest first):")
	if len(p.Submissions) == 0 {
		t.line("  none yet")
	}
	tw = tabwriter.NewWriter(t, 0, 0, 2, ' ', 0)
	for _, r := range p.Submissions {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", r.At.Text, r.Endpoint, plural(r.n, "URL", "URLs"), r.Answer)
	}
	tw.Flush()
}

// writeOverviewText is the text of a process's sites, one line each.
func writeOverviewText(w io.Writer, now time.Time, snaps []Snapshot) error {
	t := &textWriter{w: w}
	tw := tabwriter.NewWriter(t, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "site\thealth\tURLs\towed\tlast publish\n")
	for i := range snaps {
		s := &snaps[i]
		last := "never"
		if !s.LastPublish.IsZero() {
			last = ago(now, s.LastPublish)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.Site, s.Health.Level, count(s.URLs), count(s.Owed()), last)
	}
	tw.Flush()
	for i := range snaps {
		if s := &snaps[i]; s.Health.Reason != "" {
			t.line("%s: %s", s.Site, s.Health.Reason)
		}
	}
	return t.err
}

// textWriter keeps the first write error, so that the text is written
// without a check at every line.
type textWriter struct {
	w   io.Writer
	err error
}

func (t *textWriter) Write(b []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	n, err := t.w.Write(b)
	t.err = err
	return n, err
}

func (t *textWriter) line(format string, args ...any) {
	fmt.Fprintf(t, format+"\n", args...)
}

func timeText(v timeView) string {
	if v.Ago == "" {
		return v.Text
	}
	return v.Text + " (" + v.Ago + ")"
}

func sourcesText(s Sources) string {
	var parts []string
	for i, v := range s.values() {
		parts = append(parts, sourceNames[i]+" "+count(v))
	}
	return strings.Join(parts, ", ")
}

// viewsText is sourcesText of counts already formatted (sourcesOf).
func viewsText(vs []sourceView) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.Name + " " + v.Count
	}
	return strings.Join(parts, ", ")
}

// blocks draw a chart in one line: a column per bucket, its height in
// eighths of the largest; "·" for none, so that quiet hours still show.
var blocks = []rune("▁▂▃▄▅▆▇█")

func spark(bs []Bucket) string {
	top := 0
	for _, b := range bs {
		top = max(top, b.Changes())
	}
	var sb strings.Builder
	for _, b := range bs {
		n := b.Changes()
		if n == 0 {
			sb.WriteRune('·')
			continue
		}
		i := (n*len(blocks) - 1) / top // 1..top onto 0..7
		sb.WriteRune(blocks[min(i, len(blocks)-1)])
	}
	return sb.String()
}
