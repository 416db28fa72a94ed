package status

import "github.com/sitemapd/sitemapd/internal/ping"

// SubmissionOf is a request the notifier made (ping.WithObserver), as the
// History keeps it: the daemon's and `sitemapd ping`'s alike. Its error's
// text is not kept, only its class: the text may name the endpoint's URL.
func SubmissionOf(a ping.Attempt) Submission {
	return Submission{At: a.At, Endpoint: a.Endpoint, URLs: a.URLs, Status: a.Status, Error: Classify(a.Err)}
}
