// Package indexnowtest is an IndexNow endpoint for sitemapd's tests and
// benches: it listens on loopback, keeps every submission it is sent (when,
// from which sender, for which host, which URLs) and answers as the test
// says. What it decodes is the protocol's JSON body (indexnow.org: host,
// key, urlList), not sitemapd's own types, so a submission sitemapd got
// wrong shows as such.
package indexnowtest

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"path"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Post is one submission received.
type Post struct {
	At time.Time
	// Sender is the last element of the request's path: tests give each
	// server its own (…/web1), to know who sent what.
	Sender string
	Host   string
	URLs   []string
	// Status is the answer given; only a 2xx accepts the URLs.
	Status int
}

// Accepted reports whether the receiver accepted the post.
func (p Post) Accepted() bool { return p.Status >= 200 && p.Status < 300 }

// Answer decides the status of the answer to a well-formed post, and
// the Retry-After it carries (0: none). The default accepts everything.
type Answer func(p Post) (status int, retryAfter time.Duration)

// Receiver is a running endpoint. Its methods are safe for concurrent use.
type Receiver struct {
	// URL is where to submit: http://127.0.0.1:port.
	URL string

	mu     sync.Mutex
	posts  []Post
	answer Answer
	hosts  []string
}

// Option adjusts a Receiver.
type Option func(*Receiver)

// Hosts has the receiver refuse (400 Bad Request) a post for a host not
// among hosts; it is not kept.
func Hosts(hosts ...string) Option { return func(r *Receiver) { r.hosts = hosts } }

// Start runs a receiver until the test ends.
func Start(t testing.TB, opts ...Option) *Receiver {
	r := newReceiver(opts)
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

// Serve runs a receiver on l (a bench's, which has no testing.TB) until l
// is closed.
func Serve(l net.Listener, opts ...Option) *Receiver {
	r := newReceiver(opts)
	r.URL = "http://" + l.Addr().String()
	go http.Serve(l, r)
	return r
}

func newReceiver(opts []Option) *Receiver {
	r := &Receiver{}
	for _, o := range opts {
		o(r)
	}
	return r
}

// SetAnswer has the receiver answer from now on as a says (nil: accept
// everything).
func (r *Receiver) SetAnswer(a Answer) {
	r.mu.Lock()
	r.answer = a
	r.mu.Unlock()
}

// ServeHTTP takes one submission.
func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	at := time.Now()
	var body struct {
		Host    string   `json:"host"`
		URLList []string `json:"urlList"`
	}
	if err := json.NewDecoder(req.Body).Decode(&body); err != nil {
		http.Error(w, "not an IndexNow submission: "+err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.hosts) > 0 && !slices.Contains(r.hosts, body.Host) {
		http.Error(w, "host "+strconv.Quote(body.Host)+" is not this receiver's", http.StatusBadRequest)
		return
	}
	p := Post{At: at, Sender: path.Base(req.URL.Path), Host: body.Host, URLs: body.URLList, Status: http.StatusOK}
	var retry time.Duration
	if r.answer != nil {
		p.Status, retry = r.answer(p)
	}
	r.posts = append(r.posts, p)
	if retry > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(retry.Seconds())))
	}
	w.WriteHeader(p.Status)
}

// Mark is where the posts received from now on begin, for the methods
// that take a mark (0: since the start).
func (r *Receiver) Mark() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.posts)
}

// Posts are the posts received since mark, refused ones included.
func (r *Receiver) Posts(mark int) []Post {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.posts[mark:])
}

// URLs are the URLs accepted since mark, in the order received.
func (r *Receiver) URLs(mark int) []string {
	var out []string
	for _, p := range r.Posts(mark) {
		if p.Accepted() {
			out = append(out, p.URLs...)
		}
	}
	return out
}

// Counts is how often each URL was accepted since mark.
func (r *Receiver) Counts(mark int) map[string]int {
	out := map[string]int{}
	for _, u := range r.URLs(mark) {
		out[u]++
	}
	return out
}

// Got reports whether u was accepted since the start.
func (r *Receiver) Got(u string) bool { return slices.Contains(r.URLs(0), u) }

// Senders are the senders of the posts accepted since mark, in the order
// first seen.
func (r *Receiver) Senders(mark int) []string {
	var out []string
	for _, p := range r.Posts(mark) {
		if p.Accepted() && !slices.Contains(out, p.Sender) {
			out = append(out, p.Sender)
		}
	}
	return out
}

// LastAt is when the last post accepted arrived (zero: none yet).
func (r *Receiver) LastAt() time.Time {
	ps := r.Posts(0)
	for i := len(ps) - 1; i >= 0; i-- {
		if ps[i].Accepted() {
			return ps[i].At
		}
	}
	return time.Time{}
}
