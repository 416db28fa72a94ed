package searchconsole

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Kind is what a failed call means for what sitemapd does next.
type Kind int

const (
	// Other: a refusal no retry fixes soon (400, an unexpected status);
	// tried again at the next pass.
	Other Kind = iota
	// Transient: the API is overloaded, failing or asks to slow down
	// (408, 429, 5xx, 403 rateLimitExceeded or userRateLimitExceeded):
	// retried at once with exponential backoff, as Google's APIs
	// document.
	Transient
	// Quota: the project's quota is spent (403 quotaExceeded or
	// dailyLimitExceeded): retried no sooner than QuotaWait.
	Quota
	// Auth: the service account cannot act on the property (401, 403
	// forbidden or insufficientPermissions, the API not enabled, a key
	// Google refuses): the user's to fix; /healthz says so at once.
	Auth
	// NotFound: Google does not know the sitemap (404): one that was
	// submitted is submitted again.
	NotFound
)

func (k Kind) String() string {
	return [...]string{"error", "transient", "quota", "auth", "not found"}[k]
}

func (k Kind) retried() bool { return k == Transient }

// APIError is a call Google answered with an error.
type APIError struct {
	Kind    Kind
	Status  int    // HTTP status
	Reason  string // errors[0].reason (or the OAuth 2 error code)
	Message string // Google's message
	Call    string // method and path, or the token endpoint
	Hint    string // what the user can do, if known
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: HTTP %d", e.Call, e.Status)
	if e.Reason != "" {
		b.WriteString(" " + e.Reason)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if e.Hint != "" {
		b.WriteString(" (" + e.Hint + ")")
	}
	return b.String()
}

// classify reads Google's error answer ({"error": {"code", "message",
// "status", "errors": [{"reason"}]}}) to a call for property by the
// service account, and says what it means.
func classify(status int, body []byte, account, property string) *APIError {
	var doc struct {
		Error struct {
			Message string `json:"message"`
			Status  string `json:"status"`
			Errors  []struct {
				Reason string `json:"reason"`
			} `json:"errors"`
		} `json:"error"`
	}
	json.Unmarshal(body, &doc) // a body not of that form leaves it empty
	e := &APIError{Status: status, Message: doc.Error.Message, Reason: doc.Error.Status}
	if len(doc.Error.Errors) > 0 && doc.Error.Errors[0].Reason != "" {
		e.Reason = doc.Error.Errors[0].Reason
	}
	if e.Message == "" && len(body) > 0 && doc.Error.Status == "" {
		e.Message = strings.TrimSpace(string(truncate(body)))
	}
	switch r := e.Reason; {
	case status == http.StatusRequestTimeout || status == http.StatusTooManyRequests || status >= 500,
		status == http.StatusForbidden && (r == "rateLimitExceeded" || r == "userRateLimitExceeded"):
		e.Kind = Transient
	case status == http.StatusForbidden && (r == "quotaExceeded" || r == "dailyLimitExceeded"):
		e.Kind, e.Hint = Quota, "the Google Cloud project's quota for the Search Console API is spent: sitemapd tries again later"
	case status == http.StatusForbidden && (r == "accessNotConfigured" || r == "SERVICE_DISABLED"):
		e.Kind, e.Hint = Auth, "enable the Google Search Console API in the service account's Google Cloud project"
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Kind, e.Hint = Auth, "add "+account+" as an owner or full user of "+property+" in Search Console (Settings, Users and permissions)"
	case status == http.StatusNotFound:
		e.Kind = NotFound
	}
	return e
}

func truncate(b []byte) []byte {
	if len(b) > 512 {
		return b[:512]
	}
	return b
}
