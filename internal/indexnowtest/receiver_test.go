package indexnowtest

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json; charset=utf-8", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// TestReceiver: what is kept and counted of accepted, refused and
// malformed posts, by mark and by sender.
func TestReceiver(t *testing.T) {
	r := Start(t, Hosts("a.test"))
	one := `{"host":"a.test","key":"k","urlList":["https://a.test/1","https://a.test/2"]}`
	if got := post(t, r.URL+"/web1", one).StatusCode; got != http.StatusOK {
		t.Fatalf("status %d", got)
	}
	mark := r.Mark()
	r.SetAnswer(func(p Post) (int, time.Duration) {
		if slices.Contains(p.URLs, "https://a.test/busy") {
			return http.StatusTooManyRequests, 30 * time.Second
		}
		return http.StatusAccepted, 0
	})
	busy := post(t, r.URL+"/web2", `{"host":"a.test","urlList":["https://a.test/busy"]}`)
	if busy.StatusCode != http.StatusTooManyRequests || busy.Header.Get("Retry-After") != "30" {
		t.Errorf("refusal: %d, Retry-After %q", busy.StatusCode, busy.Header.Get("Retry-After"))
	}
	for _, c := range []struct{ body string }{{`{"host":"b.test","urlList":["https://b.test/1"]}`}, {`not json`}} {
		if got := post(t, r.URL+"/web3", c.body).StatusCode; got != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400", c.body, got)
		}
	}
	post(t, r.URL+"/web2", `{"host":"a.test","urlList":["https://a.test/2"]}`)

	if got, want := r.URLs(0), []string{"https://a.test/1", "https://a.test/2", "https://a.test/2"}; !slices.Equal(got, want) {
		t.Errorf("URLs(0) = %q, want %q", got, want)
	}
	if got := r.Counts(mark); len(got) != 1 || got["https://a.test/2"] != 1 {
		t.Errorf("Counts(mark) = %v", got)
	}
	if got := r.Senders(0); !slices.Equal(got, []string{"web1", "web2"}) {
		t.Errorf("Senders(0) = %q", got)
	}
	if ps := r.Posts(mark); len(ps) != 2 || ps[0].Accepted() || ps[0].Status != http.StatusTooManyRequests || ps[1].Status != http.StatusAccepted {
		t.Errorf("Posts(mark) = %+v", ps)
	}
	if r.Got("https://a.test/busy") || !r.Got("https://a.test/1") {
		t.Error("Got counts a refused URL, or misses an accepted one")
	}
	if last := r.Posts(0)[2].At; !r.LastAt().Equal(last) {
		t.Errorf("LastAt %v, the last accepted post's %v", r.LastAt(), last)
	}
}
