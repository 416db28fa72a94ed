// Package searchconsole tells Google of a site's sitemaps through the
// Search Console API (webmasters/v3), the one way left to do so besides
// robots.txt's Sitemap lines: Google's ping endpoint answers 404 since
// 2024 and Google takes no IndexNow.
//
// A Client is one searchconsole endpoint: a property (sc-domain:HOST or a
// URL prefix) and a service account's JSON key. The daemon tells it which
// sitemaps the site announces (Announce: the index files and robots.txt's
// Sitemap lines); it submits each one the property has not been given by
// sitemapd yet (sitemaps.submit), once: Google reads a sitemap it knows
// again by itself, so a change of the sitemap is no reason to submit it.
// A sitemap sitemapd submitted and no longer announces (an index renamed,
// base_url moved) is deleted from the property (sitemaps.delete); others'
// are never touched. Every PollEvery, and after each submission, it reads
// Google's view of each sitemap (sitemaps.get: last downloaded, pending,
// errors, warnings, URLs by type), which Status reports for /healthz
// (degraded while Google reports errors in one, or the account cannot act
// on the property), the metrics, the status page and `build -dry-run`.
//
// What was submitted to which property, and Google's last view, live in
// state_dir (StateFile), written atomically: a restart submits nothing
// again. The state of another property than the configured one is none.
//
// Authentication is OAuth 2's JWT bearer grant (RFC 7523) through
// golang.org/x/oauth2/google: a JWT signed RS256 with the key, asking
// token_uri (from the key file) for a token of Scope, reused until it
// expires. The calls are three plain REST requests, so Google's generated
// API client (google.golang.org/api), with its transport, gRPC and
// telemetry dependencies, would bring far more than it saves.
//
// Failures (errors.go): 408, 429, 5xx and 403 rate-limit reasons are
// retried within a call, notify.attempts times, with exponential backoff
// and full jitter capped at notify.max_backoff, Retry-After honoured, as
// Google documents for its APIs; a 401 (the token revoked before it
// expired) asks for a new token and makes the call again, once; a quota spent waits QuotaWait; an
// authorisation failure (401, 403, a key the token endpoint refuses) is
// not retried until the next pass and is reported at once, saying what
// to do. Passes that fail are tried again after 1 minute, doubling to an
// hour.
package searchconsole
