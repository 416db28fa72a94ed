package status

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"time"
)

// Publish is one publish as the History keeps it.
type Publish struct {
	At       time.Time     `json:"at"`       // when it ended; zero: the History's clock, now
	Duration time.Duration `json:"duration"` // how long it took
	// Trigger is what started it, as the daemon names its Trigger
	// ("change", "initial build", …): shown, never acted on, and kept as
	// text so that a file outlives a renumbering of the daemon's values.
	Trigger string `json:"trigger"`
	URLs    int    `json:"urls"` // URLs listed after it
	// Moved counts the pages whose lastmod moved (added or changed), by
	// where the new lastmod came from.
	Moved   Sources `json:"moved"`
	Removed int     `json:"removed"`         // page URLs no longer listed
	Failed  bool    `json:"failed,omitzero"` // it did not land (or only partly)
}

// Changes is what the charts count of a publish: lastmods moved and URLs
// removed, each a change search engines are owed.
func (p Publish) Changes() int { return p.Moved.Total() + p.Removed }

// Submission is one request to a notify endpoint as the History keeps it.
type Submission struct {
	At       time.Time `json:"at"`       // when it was answered or failed; zero: now
	Endpoint string    `json:"endpoint"` // the endpoint's configured name
	URLs     int       `json:"urls"`     // URLs it carried
	// Status is the HTTP status of the answer, 0 when none came.
	Status int `json:"status,omitzero"`
	// Error is why no answer came (Status 0); NoError otherwise.
	Error ErrorClass `json:"error,omitzero"`
}

// Answer classifies the submission's outcome for the charts.
func (s Submission) Answer() Answer {
	switch {
	case s.Status >= 200 && s.Status < 300:
		return Accepted
	case s.Status >= 400 && s.Status < 500:
		return Rejected
	case s.Status >= 500 && s.Status < 600:
		return ServerError
	case s.Status == 0:
		return NoAnswer
	}
	return OtherAnswer
}

// ErrorClass is why a request got no HTTP answer. The history stores its
// name, so values may be added anywhere; an unknown name reads as
// OtherError.
type ErrorClass uint8

const (
	NoError    ErrorClass = iota // an answer came
	Timeout                      // no answer within the timeout
	Network                      // no connection: refused, reset, unreachable, DNS
	TLS                          // the TLS handshake or the certificate failed
	Canceled                     // the daemon stopped or reloaded meanwhile
	OtherError                   // anything else (a redirect refused, a bad request)
	numErrorClasses
)

var errorClassNames = [numErrorClasses]string{
	NoError: "", Timeout: "timeout", Network: "network", TLS: "tls", Canceled: "canceled", OtherError: "error",
}

// String is the class's name ("" for NoError).
func (c ErrorClass) String() string {
	if c < numErrorClasses {
		return errorClassNames[c]
	}
	return errorClassNames[OtherError]
}

// MarshalText writes the class's name.
func (c ErrorClass) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText reads a class's name; an unknown one is OtherError.
func (c *ErrorClass) UnmarshalText(b []byte) error {
	for i, n := range errorClassNames {
		if n == string(b) {
			*c = ErrorClass(i)
			return nil
		}
	}
	*c = OtherError
	return nil
}

// Classify says why err kept a request from its answer: what an operator
// needs to know of it without its text, which may name the endpoint's URL.
func Classify(err error) ErrorClass {
	var (
		netErr  net.Error
		opErr   *net.OpError
		dnsErr  *net.DNSError
		certErr *tls.CertificateVerificationError
		hostErr x509.HostnameError
		authErr x509.UnknownAuthorityError
		recErr  tls.RecordHeaderError
		tlsErr  tls.AlertError
	)
	switch {
	case err == nil:
		return NoError
	case errors.Is(err, context.Canceled):
		return Canceled
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return Timeout
	case errors.As(err, &certErr), errors.As(err, &hostErr), errors.As(err, &authErr),
		errors.As(err, &recErr), errors.As(err, &tlsErr):
		return TLS
	case errors.As(err, &dnsErr), errors.As(err, &opErr):
		return Network
	}
	return OtherError
}

// Answer is a submission's outcome, as the charts group them. The
// History's buckets are arrays indexed by it: append, never renumber.
type Answer uint8

const (
	Accepted    Answer = iota // 2xx
	Rejected                  // 4xx: the request, the key or the URLs are refused
	ServerError               // 5xx
	NoAnswer                  // no HTTP answer (see ErrorClass)
	OtherAnswer               // 1xx, 3xx (a redirect not followed)
	numAnswers
)

var answerNames = [numAnswers]string{
	Accepted: "2xx accepted", Rejected: "4xx rejected", ServerError: "5xx server error",
	NoAnswer: "no answer", OtherAnswer: "other",
}

// String is the answer's label in legends.
func (a Answer) String() string {
	if a < numAnswers {
		return answerNames[a]
	}
	return "unknown"
}

// Answers lists every Answer, in legend order.
func Answers() []Answer {
	out := make([]Answer, numAnswers)
	for i := range out {
		out[i] = Answer(i)
	}
	return out
}

// AnswerCounts counts submissions by Answer.
type AnswerCounts [numAnswers]int

// Total is the number of submissions counted.
func (c AnswerCounts) Total() int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}
