package ping

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/redact"
)

const maxRedirects = 3

// errRedirects stops a redirect loop; it is no reason to retry.
var errRedirects = fmt.Errorf("stopped after %d redirects", maxRedirects)

// RedirectError is an endpoint's redirect to another origin (scheme, host
// or port than its configured URL's), which is never followed: the request
// would carry the IndexNow key and the site's URLs to a server the user
// never named. Like a wrong key it is the configuration's to fix, so it is
// not retried within a run and what is owed stays owed.
type RedirectError struct {
	Status int    // the redirect's status
	Target string // the URL it pointed to, as redact.URL shows it
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("HTTP %d redirects to another host (%s); not followed, so that the key and URLs go only where the configuration says: set the endpoint's url to where it now lives",
		e.Status, e.Target)
}

// newClient returns the HTTP client for every endpoint: a timeout per
// request (zero would mean none), proxies from the environment, and
// redirects followed only when they stay on the endpoint's origin and keep
// the method. Go re-sends a POST redirected by 301, 302 or 303 as a
// bodiless GET, which no IndexNow endpoint wants: such a response is
// returned as is and reported.
func newClient(timeout time.Duration) *http.Client {
	return &http.Client{
		Timeout:   timeout,
		Transport: http.DefaultTransport.(*http.Transport).Clone(),
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			// First: a redirect elsewhere is refused whatever its status
			// or hop, before a byte is sent there.
			if !sameOrigin(req.URL, via[0].URL) {
				return offOrigin(req)
			}
			if len(via) >= maxRedirects {
				return errRedirects
			}
			if req.Method != via[0].Method {
				return http.ErrUseLastResponse
			}
			return nil
		},
	}
}

// offOrigin describes the redirect that created req.
func offOrigin(req *http.Request) *RedirectError {
	e := &RedirectError{Target: redact.URL(req.URL.String())}
	if req.Response != nil {
		e.Status = req.Response.StatusCode
	}
	return e
}

// sameOrigin reports whether a and b have the same scheme, host and port,
// a port left out being the scheme's own.
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "http":
		return "80"
	case "https":
		return "443"
	}
	return ""
}

// final reports a request error that another attempt within the run
// cannot mend.
func final(err error) bool {
	var re *RedirectError
	return errors.Is(err, errRedirects) || errors.As(err, &re)
}

// refusedRedirect logs a redirect elsewhere once a request gives up on it:
// the run's error says it too, but this is what the user must act on.
func (n *Notifier) refusedRedirect(ep *endpoint, err error) {
	var re *RedirectError
	if errors.As(err, &re) {
		n.log.Error("the endpoint redirects to another host; sitemapd will not send the key and URLs there: fix the endpoint's url in the configuration",
			zap.String("endpoint", ep.cfg.Name), zap.String("url", shown(ep.cfg.URL)), zap.Int("status", re.Status), zap.String("target", re.Target))
	}
}
