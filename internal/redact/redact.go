// Package redact makes a URL safe to show in logs, errors, /healthz and a
// dry run's output: what a user configures as an endpoint URL may carry
// credentials, and anyone who reads a log or reaches the listener must
// not learn them.
package redact

import (
	"net/url"
	"strings"
)

// Redacted is what stands in place of a hidden value.
const Redacted = "REDACTED"

// URL returns raw safe to show: a userinfo password, every query value and
// the fragment replaced by Redacted; the scheme, host, port, path and
// query parameter names kept, so that the URL still says where it points.
//
// Every query value is hidden, not those whose names look like
// credentials: IndexNow's own key=, and whatever vendors name theirs
// (token, apikey, sig, auth, code, …), are all secrets, and no list of
// names can be complete. A query part without "=" may be a bare token, so
// it is hidden too. The fragment is never sent, so hiding it costs no
// diagnosis, and some schemes carry tokens there.
//
// Values in public are shown as they are: values sitemapd itself put in
// the URL (the index URL of a ping, its {sitemap} placeholder), which
// are public. They are compared with each value decoded.
//
// A URL that does not parse is hidden whole: where its secrets are cannot
// be told.
func URL(raw string, public ...string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return Redacted
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), Redacted)
	}
	u.RawQuery = query(u.RawQuery, public)
	u.ForceQuery = false
	if u.Fragment != "" {
		u.Fragment, u.RawFragment = Redacted, ""
	}
	return u.String()
}

// query hides every value of a raw query, keeping its names and order as
// written (url.Values would sort and re-encode them).
func query(raw string, public []string) string {
	if raw == "" {
		return ""
	}
	parts := strings.Split(raw, "&")
	for i, p := range parts {
		name, value, ok := strings.Cut(p, "=")
		switch {
		case ok && isPublic(value, public):
		case ok:
			parts[i] = name + "=" + Redacted
		case p != "":
			parts[i] = Redacted
		}
	}
	return strings.Join(parts, "&")
}

func isPublic(raw string, public []string) bool {
	v, err := url.QueryUnescape(raw)
	if err != nil {
		return false
	}
	for _, p := range public {
		if v == p {
			return true
		}
	}
	return false
}

// Error rewrites, in place, the URL of every *url.Error in err's tree as
// URL does: net/http reports a failed request as `Post "URL": …` with the
// URL whole (its password only starred, its query as is), and the URL a
// redirect named as given. It returns err. Call it on the error as
// net/http returned it: fmt.Errorf fixes a message when it wraps.
func Error(err error, public ...string) error {
	switch e := err.(type) {
	case nil:
	case *url.Error:
		e.URL = URL(e.URL, public...)
		Error(e.Err, public...)
	case interface{ Unwrap() error }:
		Error(e.Unwrap(), public...)
	case interface{ Unwrap() []error }:
		for _, c := range e.Unwrap() {
			Error(c, public...)
		}
	}
	return err
}
