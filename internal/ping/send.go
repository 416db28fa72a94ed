package ping

import (
	"bytes"
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

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/outname"
	"github.com/sitemapd/sitemapd/internal/redact"
)

// IndexNowBatch is the most URLs one IndexNow POST may carry.
const IndexNowBatch = 10_000

const (
	maxBody     = 64 << 10 // response bytes read; the rest is dropped with the connection
	logBody     = 1 << 10  // response bytes logged
	backoffBase = time.Second
)

// outcome classifies a finished exchange.
type outcome int

const (
	sent      outcome = iota // accepted
	retryNext                // not now: keep it owed for the next run
	drop                     // never deliverable as it is: forget it
	gone                     // the endpoint no longer exists
)

// send delivers what one endpoint is owed and reports. With stopToHold
// (Run's runs), a 429 or 503 with Retry-After ends the run at once, to
// hold the endpoint (hold.go); without (Flush), the run waits within
// itself as long as notify.max_backoff allows, and only its last answer
// may hold.
func (n *Notifier) send(ctx context.Context, ep *endpoint, stopToHold bool) Result {
	res := Result{Endpoint: ep.cfg.Name}
	urls, gens := n.snapshot(ep)
	if len(urls) > 0 {
		switch ep.cfg.Kind {
		case config.IndexNow:
			res.Sent, res.Err = n.sendIndexNow(ctx, ep, urls, gens, stopToHold)
		case config.Ping:
			res.Sent, res.Err = n.sendPing(ctx, ep, urls, gens, stopToHold)
		}
	}
	n.mu.Lock()
	res.Owed = len(ep.owed)
	st := ep.stats
	n.mu.Unlock()
	if len(urls) > 0 {
		n.log.Info("notification run", zap.String("endpoint", ep.cfg.Name), zap.Int("sent", res.Sent), zap.Int("owed", res.Owed),
			zap.Int("attempts", st.Attempts), zap.Int("successes", st.Successes), zap.Int("failures", st.Failures),
			zap.Int("last_status", st.LastStatus), zap.NamedError("error", res.Err))
	}
	return res
}

// onHost splits URLs into those on the site's host and the others, which
// the protocol refuses.
func (n *Notifier) onHost(urls []string) (on, off []string) {
	host := n.host()
	for _, u := range urls {
		if p, err := url.Parse(u); err != nil || p.Host != host {
			off = append(off, u)
		} else {
			on = append(on, u)
		}
	}
	return on, off
}

// batches splits URLs into POST-sized batches.
func batches(urls []string) [][]string {
	var out [][]string
	for len(urls) > 0 {
		k := min(len(urls), IndexNowBatch)
		out = append(out, urls[:k])
		urls = urls[k:]
	}
	return out
}

func (n *Notifier) host() string {
	u, _ := url.Parse(n.cfg.BaseURL)
	return u.Host
}

type indexNowBody struct {
	Host        string   `json:"host"`
	Key         string   `json:"key"`
	KeyLocation string   `json:"keyLocation"`
	URLList     []string `json:"urlList"`
}

func (n *Notifier) sendIndexNow(ctx context.Context, ep *endpoint, urls []string, gens map[string]uint64, stopToHold bool) (int, error) {
	on, off := n.onHost(urls)
	if len(off) > 0 {
		// They can never be sent (a base_url changed since they were owed).
		n.log.Warn("dropping URLs of another host than base_url's", zap.String("endpoint", ep.cfg.Name),
			zap.Int("urls", len(off)), zap.String("example", off[0]), zap.String("host", n.host()))
		n.forget(ep, off, gens)
	}
	total := 0
	for _, batch := range batches(on) {
		body, err := json.Marshal(indexNowBody{
			Host: n.host(), Key: ep.cfg.Key, KeyLocation: n.cfg.BaseURL + outname.KeyName(ep.cfg.Key), URLList: batch,
		})
		if err != nil {
			return total, err
		}
		if err := n.sending(ctx, ep, batch); err != nil {
			return total, err
		}
		status, resp, err := n.do(ctx, ep, len(batch), stopToHold, func(ctx context.Context) (*http.Request, error) {
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.cfg.URL, bytes.NewReader(body))
			if err == nil {
				req.Header.Set("Content-Type", "application/json; charset=utf-8")
			}
			return req, err
		})
		switch o, why := indexNowOutcome(status, err); o {
		case sent:
			n.sent(ctx, ep, batch)
			n.forget(ep, batch, gens)
			total += len(batch)
			n.log.Info("submitted to IndexNow", zap.String("endpoint", ep.cfg.Name), zap.Int("urls", len(batch)), zap.Int("status", status))
		case drop:
			n.log.Error("IndexNow refused a batch; it is dropped: "+why, zap.String("endpoint", ep.cfg.Name),
				zap.String("url", shown(ep.cfg.URL)), zap.Int("status", status), zap.Int("urls", len(batch)), zap.ByteString("body", truncate(resp)))
			n.forget(ep, batch, gens)
		default:
			var held *heldError
			if status != 0 && !errors.As(err, &held) { // a hold is logged by held
				n.log.Error("IndexNow did not take the URLs; they stay owed: "+why, zap.String("endpoint", ep.cfg.Name),
					zap.String("url", shown(ep.cfg.URL)), zap.Int("status", status), zap.ByteString("body", truncate(resp)))
				err = fmt.Errorf("HTTP %d: %s", status, why)
			}
			// The rest would meet the same fate: try them next run.
			return total, fmt.Errorf("endpoint %s: %w", ep.cfg.Name, err)
		}
	}
	return total, nil
}

// indexNowOutcome maps a response to what happens to its batch, with the
// reason to log. 200 and 202 are taken (202: the key is still being
// checked). 400 is a malformed request, which sending again cannot fix, so
// the batch is dropped. 403 (key not valid) and 422 (URLs not of the host,
// or key and key file disagree) are configuration or hosting faults the
// user can fix, and the URLs stay owed until then; so do they on any other
// answer (a failing endpoint, a redirected POST, a status not expected).
func indexNowOutcome(status int, err error) (outcome, string) {
	switch {
	case err != nil:
		return retryNext, err.Error()
	case status == http.StatusOK || status == http.StatusAccepted:
		return sent, ""
	case status == http.StatusBadRequest:
		return drop, "the request is malformed, which no configuration can fix"
	case status == http.StatusForbidden:
		return retryNext, "the key is not valid: check that <key>.txt is served at keyLocation and holds the key (notify.endpoints[].key, base_url)"
	case status == http.StatusUnprocessableEntity:
		return retryNext, "the URLs do not belong to the host, or the key does not match the key file: check base_url and the key"
	case retryable(status):
		return retryNext, "the endpoint is overloaded or failing; trying again at the next run"
	case status >= 300 && status < 400:
		return retryNext, "the endpoint redirects a POST: set its url to where it now lives"
	default:
		return retryNext, "unexpected status"
	}
}

func (n *Notifier) sendPing(ctx context.Context, ep *endpoint, urls []string, gens map[string]uint64, stopToHold bool) (int, error) {
	total := 0
	for _, index := range urls {
		target := pingURL(ep.cfg.URL, index)
		if err := n.sending(ctx, ep, []string{index}); err != nil {
			return total, err
		}
		// The index URL is the site's own and public: errors may show it.
		status, resp, err := n.do(ctx, ep, 1, stopToHold, func(ctx context.Context) (*http.Request, error) {
			return http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
		}, index)
		switch {
		case err != nil:
			return total, fmt.Errorf("endpoint %s: %w", ep.cfg.Name, err)
		case status >= 200 && status < 300:
			n.sent(ctx, ep, []string{index})
			n.forget(ep, []string{index}, gens)
			total++
			n.log.Info("pinged", zap.String("endpoint", ep.cfg.Name), zap.String("sitemap", index), zap.Int("status", status))
		case status == http.StatusNotFound || status == http.StatusGone:
			n.markGone(ep, status)
			return total, fmt.Errorf("endpoint %s: HTTP %d: gone", ep.cfg.Name, status)
		default:
			n.log.Error("ping not accepted; it stays owed", zap.String("endpoint", ep.cfg.Name),
				zap.String("url", shown(target, index)), zap.Int("status", status), zap.ByteString("body", truncate(resp)))
			return total, fmt.Errorf("endpoint %s: HTTP %d", ep.cfg.Name, status)
		}
	}
	return total, nil
}

// markGone stops calls to an endpoint that answered 404 or 410 until its
// configured URL changes; the big engines retired their ping URLs this way.
func (n *Notifier) markGone(ep *endpoint, status int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	ep.gone = ep.cfg.URL
	clear(ep.owed)
	n.log.Warn("endpoint is gone; not calling it again until its url changes in the configuration",
		zap.String("endpoint", ep.cfg.Name), zap.String("url", shown(ep.cfg.URL)), zap.Int("status", status))
	if err := n.saveLocked(); err != nil {
		n.log.Error("cannot save notification state", zap.Error(err))
	}
}

// do makes one request, carrying urls URLs, retrying what is worth
// retrying. It returns the last response's status and (capped) body, or
// the last transport error, its URL shown as redact.URL shows it, values
// in public left as they are; or a *heldError for an answer that asks for
// a hold: the first with stopToHold, the last without (see send).
func (n *Notifier) do(ctx context.Context, ep *endpoint, urls int, stopToHold bool, newReq func(context.Context) (*http.Request, error), public ...string) (int, []byte, error) {
	for attempt := 1; ; attempt++ {
		req, err := newReq(ctx)
		if err != nil {
			return 0, nil, fmt.Errorf("make the request: %w", redactErr(err, public))
		}
		req.Header.Set("User-Agent", n.ua)
		status, body, wait, err := n.exchange(ep, req, public)
		n.observed(ep, urls, status, err)
		if err == nil && holds(status, wait) && (stopToHold || attempt >= n.cfg.Notify.Attempts) {
			return status, body, n.held(ep, status, wait)
		}
		if err == nil && !retryable(status) {
			return status, body, nil
		}
		if ctx.Err() != nil {
			return status, body, ctx.Err()
		}
		if attempt >= n.cfg.Notify.Attempts || final(err) {
			if err == nil && status != 0 {
				return status, body, nil
			}
			n.refusedRedirect(ep, err)
			return status, body, err
		}
		d := n.backoff(attempt)
		if wait > 0 {
			d = wait
		}
		if max := n.cfg.Notify.MaxBackoff; d > max {
			n.log.Warn("capping the wait the endpoint asked for", zap.String("endpoint", ep.cfg.Name),
				zap.Duration("asked", d), zap.Duration("cap", max))
			d = max
		}
		n.log.Info("retrying", zap.String("endpoint", ep.cfg.Name), zap.Int("attempt", attempt),
			zap.Int("status", status), zap.NamedError("error", err), zap.Duration("in", d))
		if err := n.sleep(ctx, d); err != nil {
			return status, body, err
		}
	}
}

// exchange sends one request and reads at most maxBody of the answer.
// wait is the Retry-After the server asked for, if any. An error's URL is
// redacted before anything (the stats, /healthz) keeps it.
func (n *Notifier) exchange(ep *endpoint, req *http.Request, public []string) (status int, body []byte, wait time.Duration, err error) {
	resp, err := n.client.Do(req)
	err = redactErr(err, public)
	var re *RedirectError
	if errors.As(err, &re) {
		// net/http names the redirect's target as the URL requested.
		err = fmt.Errorf("%s %s: %w", req.Method, shown(req.URL.String(), public...), re)
	}
	if err == nil {
		// Read before taking the lock: a slow body must not hold up Note,
		// which the build loop calls.
		body, _ = io.ReadAll(io.LimitReader(resp.Body, maxBody))
		resp.Body.Close() // unread bytes close the connection instead of being drained
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	ep.stats.Attempts++
	ep.stats.LastAttempt = time.Now()
	if err != nil {
		if resp != nil {
			ep.stats.LastStatus = resp.StatusCode // a redirect not followed
		}
		ep.stats.failed(err.Error())
		return 0, nil, 0, err
	}
	ep.stats.LastStatus = resp.StatusCode
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		ep.stats.Successes++
		ep.stats.LastError, ep.stats.FailingSince = "", time.Time{}
	} else {
		ep.stats.failed(resp.Status)
	}
	return resp.StatusCode, body, retryAfter(resp.Header.Get("Retry-After"), time.Now()), nil
}

// retryable reports the statuses worth another attempt within a run: 408
// (the server timed out), 429 (too many requests) and 5xx, which are
// passing troubles of the server, except 501, which says it will never
// handle the request.
func retryable(status int) bool {
	return status == http.StatusRequestTimeout || status == http.StatusTooManyRequests ||
		(status >= 500 && status != http.StatusNotImplemented)
}

// backoff is the wait before attempt+1: full jitter over an exponential
// ceiling, rand(0, min(cap, base·2^(attempt-1))).
func (n *Notifier) backoff(attempt int) time.Duration {
	ceiling := n.cfg.Notify.MaxBackoff
	if attempt-1 < 32 {
		ceiling = min(ceiling, backoffBase<<(attempt-1))
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return time.Duration(n.rnd.Int64N(int64(ceiling) + 1))
}

// retryAfter parses a Retry-After header: delta-seconds or an HTTP-date.
// Anything else, or a time already past, is no wait.
func retryAfter(h string, now time.Time) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(h, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		if secs > int64(365*24*time.Hour/time.Second) {
			secs = int64(365 * 24 * time.Hour / time.Second) // no overflow; the cap applies later
		}
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

func truncate(b []byte) []byte {
	if len(b) > logBody {
		return b[:logBody]
	}
	return b
}

// placeholder is where a ping URL takes the index URL.
const placeholder = "{sitemap}"

// shown is an endpoint's URL as logs, errors and dry runs may show it
// (redact.URL); the placeholder, and values in public (the site's own
// index URL), are no secrets and stay readable.
func shown(raw string, public ...string) string {
	return redact.URL(raw, append([]string{placeholder}, public...)...)
}

// redactErr rewrites the URL net/http's errors carry as shown does.
func redactErr(err error, public []string) error {
	return redact.Error(err, append([]string{placeholder}, public...)...)
}
