package searchconsole

// The three calls of the Search Console API (webmasters/v3) sitemapd
// makes, and how their failures are told apart.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"
	"golang.org/x/oauth2"
)

// apiBase is where the Search Console API (webmasters/v3) lives.
const apiBase = "https://www.googleapis.com/webmasters/v3/"

// Scope is the OAuth 2 scope of the calls: submitting a sitemap needs
// write access (webmasters.readonly only reads).
const Scope = "https://www.googleapis.com/auth/webmasters"

const maxBody = 64 << 10 // response bytes read

// escape writes a path parameter as Google's client libraries do (RFC
// 6570 simple string expansion): every byte but A-Z a-z 0-9 - . _ ~
// percent-encoded with upper-case hex, so a property's or a sitemap's
// "://", "/" and ":" stay inside their segment.
func escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// sitemapURL is the API's URL of one sitemap of the property:
// sites/{siteUrl}/sitemaps/{feedpath}.
func (c *Client) sitemapURL(feed string) (*url.URL, error) {
	raw := c.base + "sites/" + escape(c.ep.Property) + "/sitemaps/" + escape(feed)
	return url.Parse(raw) // keeps the escaped path as RawPath
}

// apiSitemap is the API's Sitemap resource, as sitemaps.get answers.
type apiSitemap struct {
	Path            string `json:"path"`
	LastSubmitted   string `json:"lastSubmitted"`
	IsPending       bool   `json:"isPending"`
	IsSitemapsIndex bool   `json:"isSitemapsIndex"`
	Type            string `json:"type"`
	LastDownloaded  string `json:"lastDownloaded"`
	// The API's longs are JSON strings ("12"); ",string" reads them.
	Warnings int64 `json:"warnings,string"`
	Errors   int64 `json:"errors,string"`
	Contents []struct {
		Type      string `json:"type"`
		Submitted int64  `json:"submitted,string"`
	} `json:"contents"`
}

// view turns the API's answer into Google's view of the sitemap.
func (a apiSitemap) view(u string, polled time.Time) View {
	v := View{URL: u, Polled: polled, Pending: a.IsPending, Index: a.IsSitemapsIndex,
		Errors: a.Errors, Warnings: a.Warnings,
		LastSubmitted: parseTime(a.LastSubmitted), LastDownloaded: parseTime(a.LastDownloaded)}
	for _, c := range a.Contents {
		v.Contents = append(v.Contents, Content{Type: c.Type, Submitted: c.Submitted})
	}
	return v
}

func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// submit is sitemaps.submit: PUT, no body, an empty answer.
func (c *Client) submit(ctx context.Context, feed string) error {
	_, err := c.call(ctx, http.MethodPut, feed)
	return err
}

// remove is sitemaps.delete.
func (c *Client) remove(ctx context.Context, feed string) error {
	_, err := c.call(ctx, http.MethodDelete, feed)
	return err
}

// get is sitemaps.get: Google's view of one sitemap.
func (c *Client) get(ctx context.Context, feed string) (View, error) {
	body, err := c.call(ctx, http.MethodGet, feed)
	if err != nil {
		return View{}, err
	}
	var a apiSitemap
	if err := json.Unmarshal(body, &a); err != nil {
		return View{}, fmt.Errorf("sitemaps.get %s: the answer is not a Sitemap resource: %v", feed, err)
	}
	return a.view(feed, c.now()), nil
}

// call makes one API call, retrying what the API says to retry (see
// classify) up to notify.attempts times with exponential backoff and full
// jitter, honouring Retry-After, capped at notify.max_backoff.
func (c *Client) call(ctx context.Context, method, feed string) ([]byte, error) {
	u, err := c.sitemapURL(feed)
	if err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		body, wait, err := c.once(ctx, method, u)
		c.note(err)
		if err == nil || ctx.Err() != nil {
			return body, err
		}
		var ae *APIError
		if errors.As(err, &ae) && ae.Status == http.StatusUnauthorized && attempt == 1 {
			// The token held was refused: ask for another, once, at once.
			c.newToken()
			continue
		}
		if !errors.As(err, &ae) || !ae.Kind.retried() || attempt >= c.attempts {
			return nil, err
		}
		d := c.backoff(attempt)
		if wait > 0 {
			d = wait
		}
		d = min(d, c.maxBackoff)
		c.log.Info("Search Console: retrying", zap.String("endpoint", c.ep.Name), zap.String("call", method+" "+feed), zap.Error(err), zap.Duration("in", d))
		if err := c.sleep(ctx, d); err != nil {
			return nil, err
		}
	}
}

// once makes one request; wait is the Retry-After asked for, if any.
func (c *Client) once(ctx context.Context, method string, u *url.URL) ([]byte, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, method, u.String(), nil)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("User-Agent", c.ua)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, 0, c.transportError(method, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return body, 0, nil
	}
	ae := classify(resp.StatusCode, body, c.account, c.ep.Property)
	ae.Call = method + " " + u.Path
	return nil, retryAfter(resp.Header.Get("Retry-After")), ae
}

// transportError names a failure to get a token as such: the key, the
// clock or the account is wrong, which no retry soon fixes.
func (c *Client) transportError(method string, err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		code, desc := tokenError(re.Body)
		return &APIError{Kind: Auth, Status: re.Response.StatusCode, Reason: code, Message: desc, Call: "token " + c.tokenURI,
			Hint: "Google refused the service account's key " + c.account + " (deleted or disabled key, or this machine's clock is off): create a new key and save it as credentials"}
	}
	return fmt.Errorf("Search Console %s: %w", method, err)
}

// tokenError reads an OAuth 2 error answer (RFC 6749, 5.2).
func tokenError(body []byte) (code, desc string) {
	var e struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if json.Unmarshal(body, &e) != nil {
		return "", strings.TrimSpace(string(body))
	}
	return e.Error, e.Description
}

// retryAfter parses a Retry-After of delta-seconds or an HTTP-date.
func retryAfter(h string) time.Duration {
	h = strings.TrimSpace(h)
	if secs, err := strconv.ParseInt(h, 10, 64); err == nil && secs > 0 {
		return time.Duration(min(secs, 86400)) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil {
		return max(0, time.Until(t))
	}
	return 0
}
