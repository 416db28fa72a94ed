package reach

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/sitemapd/sitemapd/internal/ctxtime"
)

// MaxBody bounds what one answer is read to: a sitemap's limit (50 MB
// uncompressed), and some room.
const MaxBody = 64 << 20

// maxKey bounds what a key file's answer is read to: a key is at most 128
// bytes, and the answer is quoted when it is not the key.
const maxKey = 64 << 10

// DefaultTimeout is how long an answer is waited for when Options gives
// no timeout.
const DefaultTimeout = 30 * time.Second

// answer is what one GET brought back.
type answer struct {
	status int
	ctype  string // the media type, lower case, without parameters
	body   []byte
	hops   []string // each redirect followed, and a redirect not followed, "301 to URL"
}

// newTransport is the Checker's transport: connect, if set, is the
// address every request to base's host and port is sent to, whatever
// the name resolves to (TLS still verifies base's host name).
func newTransport(base *url.URL, connect string) *http.Transport {
	t := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: DefaultTimeout,
		MaxIdleConnsPerHost:   2,
	}
	dialer := &net.Dialer{Timeout: 10 * time.Second}
	t.DialContext = dialer.DialContext
	if connect == "" || base == nil {
		return t
	}
	t.Proxy = nil // the point is to reach this server, not a proxy
	target := hostPort(base)
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if addr == target {
			addr = connect
		}
		return dialer.DialContext(ctx, network, addr)
	}
	return t
}

// hostPort is u's host and port, the scheme's port if it names none.
func hostPort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return net.JoinHostPort(u.Hostname(), p)
	}
	if u.Scheme == "https" {
		return net.JoinHostPort(u.Hostname(), "443")
	}
	return net.JoinHostPort(u.Hostname(), "80")
}

// retryAfter is how long a strict check waits before it asks again a
// server that gave no answer: a connection reset once is no finding.
const retryAfter = time.Second

// fetch GETs u, reading up to limit bytes of the body; with follow it
// follows redirects (recording each hop), else a redirect is the answer.
// Strict, a request that got no answer is made once more.
func (c *Checker) fetch(ctx context.Context, u string, follow bool, limit int64) (*answer, error) {
	a, err := c.get(ctx, u, follow, limit)
	if err == nil || !c.opts.Strict {
		return a, err
	}
	if ctxtime.Sleep(ctx, retryAfter) != nil {
		return nil, err
	}
	return c.get(ctx, u, follow, limit)
}

func (c *Checker) get(ctx context.Context, u string, follow bool, limit int64) (*answer, error) {
	a := &answer{}
	client := &http.Client{Transport: c.transport, Timeout: c.opts.Timeout, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if !follow {
			return http.ErrUseLastResponse
		}
		if len(via) >= 10 {
			return errors.New("more than 10 redirects")
		}
		a.hops = append(a.hops, fmt.Sprintf("%d to %s", req.Response.StatusCode, req.URL))
		return nil
	}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	if c.opts.UserAgent != "" {
		req.Header.Set("User-Agent", c.opts.UserAgent)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	a.status = resp.StatusCode
	a.ctype, _, _ = mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if a.status/100 == 3 {
		a.hops = append(a.hops, fmt.Sprintf("%d to %s", a.status, resp.Header.Get("Location")))
	}
	if a.body, err = io.ReadAll(io.LimitReader(resp.Body, limit)); err != nil {
		return nil, fmt.Errorf("GET %s: reading the answer: %w", u, err)
	}
	return a, nil
}
