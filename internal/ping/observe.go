package ping

// What the daemon's status page is told of each request (WithObserver).

import (
	"errors"
	"time"
)

// Attempt is one HTTP request made to an endpoint, as an observer sees it.
type Attempt struct {
	Endpoint string    // the endpoint's configured name
	URLs     int       // URLs it carried: an IndexNow batch's, or 1 for a ping
	At       time.Time // when it was answered or failed
	Status   int       // the HTTP status of the answer; 0 when none came
	// Err is why no answer came (Status 0), or a redirect refused (Status
	// 3xx); nil otherwise. Its URL is already shown as redact.URL shows
	// it.
	Err error
}

// WithObserver has f called after every HTTP request to an endpoint, each
// attempt of a retry included, from the goroutine that sent it (several
// endpoints' at once) and without the Notifier's lock held: f may be slow
// (the daemon writes a history file), but it delays that endpoint's run. The status page
// counts requests, not runs, since a retried request is what an endpoint's
// operator sees in their logs.
func WithObserver(f func(Attempt)) Option {
	return func(n *Notifier) { n.observe = f }
}

// observed tells the observer, if any, of a request exchange made: the
// status it answered, or why none came. A redirect refused is the 3xx
// that came, with its error, as Stats keeps it.
func (n *Notifier) observed(ep *endpoint, urls, status int, err error) {
	if n.observe == nil {
		return
	}
	var re *RedirectError
	if errors.As(err, &re) {
		status = re.Status
	}
	n.observe(Attempt{Endpoint: ep.cfg.Name, URLs: urls, At: time.Now(), Status: status, Err: err})
}
