package metrics

// What /healthz and /metrics say of the searchconsole endpoints: Google's
// view of each sitemap submitted.

import (
	"time"

	"github.com/sitemapd/sitemapd/internal/searchconsole"
)

// consoleHealth is one sitemap of a searchconsole endpoint on /healthz.
type consoleHealth struct {
	Endpoint  string    `json:"endpoint"`
	Property  string    `json:"property"`
	Sitemap   string    `json:"sitemap"`
	Submitted time.Time `json:"submitted,omitzero"` // by sitemapd; absent: not yet
	// Google's view, as last polled (absent before the first poll).
	Polled         time.Time        `json:"polled,omitzero"`
	LastDownloaded time.Time        `json:"last_downloaded,omitzero"`
	Pending        bool             `json:"pending,omitempty"`
	Errors         int64            `json:"errors"`
	Warnings       int64            `json:"warnings"`
	URLs           map[string]int64 `json:"urls,omitempty"` // by content type
	// LastError is the endpoint's last failed call, "" after a success.
	LastError string `json:"last_error,omitempty"`
}

// consolesHealth lists every sitemap of every searchconsole endpoint; an
// endpoint with none yet (or that cannot start) is one entry without a
// sitemap, carrying its error.
func consolesHealth(sts []searchconsole.Status) []consoleHealth {
	var out []consoleHealth
	for _, st := range sts {
		if len(st.Sitemaps) == 0 {
			out = append(out, consoleHealth{Endpoint: st.Endpoint, Property: st.Property, LastError: st.LastError})
		}
		for _, sm := range st.Sitemaps {
			h := consoleHealth{Endpoint: st.Endpoint, Property: st.Property, Sitemap: sm.URL, Submitted: sm.Submitted, LastError: st.LastError}
			if v := sm.View; v != nil {
				h.Polled, h.LastDownloaded, h.Pending, h.Errors, h.Warnings = v.Polled, v.LastDownloaded, v.Pending, v.Errors, v.Warnings
				for _, c := range v.Contents {
					if h.URLs == nil {
						h.URLs = map[string]int64{}
					}
					h.URLs[c.Type] += c.Submitted
				}
			}
			out = append(out, h)
		}
	}
	return out
}

// consoleTrouble is the first searchconsole endpoint's trouble, or "".
func consoleTrouble(sts []searchconsole.Status, now time.Time) string {
	for _, st := range sts {
		if t := st.Trouble(now); t != "" {
			return t
		}
	}
	return ""
}

// collectConsoles puts the searchconsole endpoints' series.
func collectConsoles(put func(metric, float64, ...string), sts []searchconsole.Status) {
	for _, st := range sts {
		put(consoleRequests, float64(st.Requests-st.Failures), st.Endpoint, "success")
		put(consoleRequests, float64(st.Failures), st.Endpoint, "failure")
		for _, sm := range st.Sitemaps {
			v := sm.View
			if v == nil {
				continue
			}
			put(consoleErrors, float64(v.Errors), st.Endpoint, sm.URL)
			put(consoleWarnings, float64(v.Warnings), st.Endpoint, sm.URL)
			put(consolePending, b2f(v.Pending), st.Endpoint, sm.URL)
			var downloaded float64
			if !v.LastDownloaded.IsZero() {
				downloaded = float64(v.LastDownloaded.Unix())
			}
			put(consoleDownloaded, downloaded, st.Endpoint, sm.URL)
			urls := map[string]int64{}
			for _, c := range v.Contents {
				urls[c.Type] += c.Submitted
			}
			for typ, n := range urls {
				put(consoleURLs, float64(n), st.Endpoint, sm.URL, typ)
			}
		}
	}
}
