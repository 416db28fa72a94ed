package searchconsole

import (
	"fmt"
	"time"
)

// View is Google's view of one sitemap, as sitemaps.get last told it.
type View struct {
	URL            string    `json:"url"`
	Polled         time.Time `json:"polled"`                   // when Google was asked
	LastSubmitted  time.Time `json:"last_submitted,omitzero"`  // Google's lastSubmitted
	LastDownloaded time.Time `json:"last_downloaded,omitzero"` // Google's lastDownloaded: zero before its first fetch
	Pending        bool      `json:"pending"`                  // not processed yet
	Index          bool      `json:"index"`                    // a sitemap index
	Errors         int64     `json:"errors"`                   // problems of the sitemap itself, which stop its processing
	Warnings       int64     `json:"warnings"`
	Contents       []Content `json:"contents,omitempty"`
}

// Content is the URLs of one type a sitemap submits (contents[]).
type Content struct {
	Type      string `json:"type"` // web, image, video, news…
	Submitted int64  `json:"submitted"`
}

// Sitemap is one sitemap sitemapd announces to the property, as the
// endpoint knows it.
type Sitemap struct {
	URL       string
	Submitted time.Time // when sitemapd last submitted it; zero: not yet
	View      *View     // Google's view; nil before the first poll
}

// Status is one searchconsole endpoint's state, for /healthz, metrics,
// the status page and plan.
type Status struct {
	Endpoint string
	Property string
	Account  string // the service account's client_email
	Sitemaps []Sitemap
	// Requests and Failures count API calls (token requests are not
	// counted apart: a failed one fails its call).
	Requests, Failures int
	// LastError is the last failed call, "" after a success; Kind its
	// kind; FailingSince when the calls that failed since the last
	// success began failing.
	LastError    string
	Kind         Kind
	FailingSince time.Time
	NextPoll     time.Time // when Google's view is read again; zero when not running
}

// FailingAfter is how long calls may keep failing for a passing reason
// (Google's own trouble, a quota) before /healthz says so.
const FailingAfter = time.Hour

// Trouble says why /healthz should report the site degraded, or "":
// Google reports errors in a sitemap, the service account cannot act on
// the property (at once: only the user can fix that), or calls have
// failed for over FailingAfter.
func (s Status) Trouble(now time.Time) string {
	for _, sm := range s.Sitemaps {
		if v := sm.View; v != nil && v.Errors > 0 {
			return fmt.Sprintf("Google reports %d errors in sitemap %s (%s; Search Console, Sitemaps, shows them)", v.Errors, sm.URL, s.Endpoint)
		}
	}
	switch {
	case s.LastError == "":
		return ""
	case s.Kind == Auth:
		return fmt.Sprintf("Search Console endpoint %s cannot act on %s: %s", s.Endpoint, s.Property, s.LastError)
	case !s.FailingSince.IsZero() && now.Sub(s.FailingSince) > FailingAfter:
		return fmt.Sprintf("Search Console calls of %s have failed since %s: %s", s.Endpoint, s.FailingSince.UTC().Format(time.RFC3339), s.LastError)
	}
	return ""
}
