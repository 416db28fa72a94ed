package status

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sitemapd/sitemapd/internal/tree"
)

// The words the page and the text share, so that both say the same thing.

// reasonText is how a reason a page is left out reads to an operator.
func reasonText(r tree.Reason) string {
	switch r {
	case tree.Excluded:
		return "excluded (pages.exclude)"
	case tree.ErrorPage:
		return "error page"
	case tree.Robots:
		return "disallowed by robots.txt"
	case tree.TooLong:
		return "URL too long"
	case tree.DuplicateIndex:
		return "duplicate index file"
	case tree.NoIndex:
		return "noindex"
	case tree.Canonical:
		return "canonical elsewhere"
	case tree.Redirect:
		return "redirect"
	}
	return r.String()
}

// sourceNames are the lastmod sources, in the order they are shown.
var sourceNames = [3]string{"page date", "content", "mtime"}

func (s Sources) values() [3]int { return [3]int{s.PageDate, s.Content, s.MTime} }

// count writes n with thousands separated by commas.
func count(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// plural is "1 page" or "2 pages".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return count(n) + " " + many
}

// stamp is a time as the page and text show it: UTC, to the second.
func stamp(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// ago says how long before now t was ("3 min ago"), or after ("in 2 h").
func ago(now, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	d := now.Sub(t)
	future := d < 0
	if future {
		d = -d
	}
	var s string
	switch {
	case d < time.Minute:
		if !future {
			return "just now"
		}
		s = fmt.Sprintf("%d s", int(d.Seconds()))
	case d < time.Hour:
		s = fmt.Sprintf("%d min", int(d.Minutes()))
	case d < 48*time.Hour:
		s = fmt.Sprintf("%d h", int(d.Hours()))
	default:
		s = fmt.Sprintf("%d days", int(d.Hours()/24))
	}
	if future {
		return "in " + s
	}
	return s + " ago"
}

// duration rounds a publish's duration for people.
func duration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < time.Millisecond:
		return d.Round(time.Microsecond).String()
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(10 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// answerText is a submission's answer: "200", "HTTP 503", "timeout".
func answerText(status int, class ErrorClass) string {
	switch {
	case status != 0:
		return "HTTP " + strconv.Itoa(status)
	case class != NoError:
		return class.String()
	}
	return "none"
}

// endpointAnswer is an endpoint's last answer as shown.
func endpointAnswer(e Endpoint) string {
	switch {
	case e.Gone:
		return fmt.Sprintf("HTTP %d: gone, no longer called", e.LastStatus)
	case e.LastError != "" && e.LastStatus != 0:
		if strings.HasPrefix(e.LastError, strconv.Itoa(e.LastStatus)+" ") {
			return "HTTP " + e.LastError // the answer's status line, as the notifier keeps it
		}
		return fmt.Sprintf("HTTP %d: %s", e.LastStatus, e.LastError)
	case e.LastError != "":
		return e.LastError
	case e.LastStatus != 0:
		return "HTTP " + strconv.Itoa(e.LastStatus)
	}
	return "none yet"
}

// siteTitle names a site on the page: its name, or its base URL for the
// one site of a process.
func siteTitle(s *Snapshot) string {
	if s.Site != "" {
		return s.Site
	}
	if s.BaseURL != "" {
		return s.BaseURL
	}
	return "sitemapd"
}
