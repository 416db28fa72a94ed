package redact

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

func TestURL(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		public   []string
		want     string
	}{
		{"no query", "https://api.example/indexnow", nil, "https://api.example/indexnow"},
		{"port and path kept", "http://127.0.0.1:8080/a/b", nil, "http://127.0.0.1:8080/a/b"},
		{"one value", "https://api.example/indexnow?token=SECRET", nil, "https://api.example/indexnow?token=REDACTED"},
		{"several values, names and order kept", "https://api.example/x?token=SECRET&key=abc&apikey=k1&sig=s%2F2&auth=",
			nil, "https://api.example/x?token=REDACTED&key=REDACTED&apikey=REDACTED&sig=REDACTED&auth=REDACTED"},
		{"repeated name", "https://api.example/x?k=1&k=2", nil, "https://api.example/x?k=REDACTED&k=REDACTED"},
		{"bare token", "https://api.example/x?s3cr3t&a=1", nil, "https://api.example/x?REDACTED&a=REDACTED"},
		{"empty query", "https://api.example/x?", nil, "https://api.example/x"},
		{"password", "https://user:hunter2@api.example/x", nil, "https://user:REDACTED@api.example/x"},
		{"user alone kept", "https://user@api.example/x", nil, "https://user@api.example/x"},
		{"net/http's starred password", "https://user:***@api.example/x?token=SECRET", nil, "https://user:REDACTED@api.example/x?token=REDACTED"},
		{"fragment", "https://api.example/x?a=1#access_token=SECRET", nil, "https://api.example/x?a=REDACTED#REDACTED"},
		{"fragment without query", "https://api.example/x#SECRET", nil, "https://api.example/x#REDACTED"},
		{"public value shown", "https://ping.example/?sitemap=https%3A%2F%2Fsite.test%2Fi.xml&key=abc",
			[]string{"https://site.test/i.xml"}, "https://ping.example/?sitemap=https%3A%2F%2Fsite.test%2Fi.xml&key=REDACTED"},
		{"placeholder public", "https://ping.example/?s={sitemap}&key=abc", []string{"{sitemap}"}, "https://ping.example/?s={sitemap}&key=REDACTED"},
		{"relative, as a Location", "/new?token=SECRET", nil, "/new?token=REDACTED"},
		{"unparsable", "http://[::1/x?token=SECRET", nil, "REDACTED"},
		{"unparsable escape", "https://api.example/%zz?token=SECRET", nil, "REDACTED"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := URL(tc.in, tc.public...); got != tc.want {
				t.Errorf("URL(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestError: the URL of a *url.Error is rewritten wherever it sits in the
// tree (joined, nested), so the message no longer carries the query.
func TestError(t *testing.T) {
	inner := &url.Error{Op: "Post", URL: "https://other.example/x?token=SECRET", Err: errors.New("refused")}
	outer := &url.Error{Op: "Post", URL: "https://u:***@api.example/?key=abc", Err: inner}
	err := errors.Join(errors.New("first"), outer)
	msg := fmt.Errorf("endpoint ep: %w", Error(err)).Error()
	for _, secret := range []string{"SECRET", "abc", "***"} {
		if strings.Contains(msg, secret) {
			t.Errorf("%q still carries %q", msg, secret)
		}
	}
	for _, want := range []string{"api.example", "other.example", "token=REDACTED", "key=REDACTED"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q does not name %q", msg, want)
		}
	}
	if Error(nil) != nil {
		t.Error("Error(nil) is not nil")
	}
}
