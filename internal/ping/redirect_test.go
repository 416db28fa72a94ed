package ping

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/config"
)

// TestRedirectElsewhere: an endpoint on 127.0.0.1 redirecting to another
// port of it (another origin, as another host is) is never followed,
// whatever the status: the other server receives nothing, the request is
// not retried, what is owed stays owed, and the error and an error-level
// log line say why, naming the status and the target's host but not the
// secrets of its URL.
func TestRedirectElsewhere(t *testing.T) {
	other := newRecorder(t, status(200))
	otherHost := strings.TrimPrefix(other.URL, "http://")
	for _, kind := range []config.EndpointKind{config.IndexNow, config.Ping} {
		for _, code := range []int{301, 302, 303, 307, 308} {
			t.Run(fmt.Sprintf("%s %d", kind, code), func(t *testing.T) {
				before := len(other.requests())
				ep := newRecorder(t, func(w http.ResponseWriter, r *http.Request, _ int) {
					http.Redirect(w, r, other.URL+"/moved?token=SECRET", code)
				})
				path := "/indexnow"
				if kind == config.Ping {
					path = "/ping?sitemap={sitemap}"
				}
				n, logs := open(t, setup(t, kind, ep.URL+path, "", ""), nil)
				n.Note(pages(2), []string{"https://static.test/sitemap_index.xml"}, true, false)
				owed := n.Stats()[0].Owed
				res := n.Flush(context.Background())
				if got := len(other.requests()) - before; got != 0 {
					t.Errorf("the other host received %d requests", got)
				}
				if got := len(ep.requests()); got != 1 {
					t.Errorf("the endpoint received %d requests, want 1: no retry", got)
				}
				if res[0].Owed != owed || res[0].Sent != 0 {
					t.Errorf("result %+v, want the %d URLs still owed", res[0], owed)
				}
				if res[0].Err == nil {
					t.Fatal("no error")
				}
				msg := res[0].Err.Error()
				for _, want := range []string{"another host", fmt.Sprint(code), otherHost, "url"} {
					if !strings.Contains(msg, want) {
						t.Errorf("error %q does not say %q", msg, want)
					}
				}
				st := n.Stats()[0]
				if st.LastStatus != code || strings.Contains(st.LastError, "SECRET") || strings.Contains(msg, "SECRET") {
					t.Errorf("stats %+v, error %q: want status %d and no secret", st, msg, code)
				}
				found := logs.FilterMessageSnippet("will not send the key and URLs there").FilterLevelExact(zap.ErrorLevel).All()
				if len(found) != 1 {
					t.Fatalf("%d error-level lines about the redirect, want 1; logs %v", len(found), messages(logs))
				}
				if target, _ := found[0].ContextMap()["target"].(string); !strings.Contains(target, otherHost) || strings.Contains(target, "SECRET") {
					t.Errorf("the log names the target %q", target)
				}
			})
		}
	}
}

// TestSameHostRedirectPing: a ping endpoint's redirect on its own origin
// is followed, as an IndexNow endpoint's 307 is (TestIndexNowRedirect307).
func TestSameHostRedirectPing(t *testing.T) {
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/new?"+r.URL.RawQuery, http.StatusMovedPermanently)
			return
		}
		w.WriteHeader(200)
	})
	n, _ := open(t, setup(t, config.Ping, srv.URL+"/old?sitemap={sitemap}", "", ""), nil)
	n.Note(nil, []string{"https://static.test/sitemap_index.xml"}, true, false)
	if res := n.Flush(context.Background()); res[0].Err != nil || res[0].Sent != 1 {
		t.Fatalf("result %+v", res[0])
	}
	if reqs := srv.requests(); len(reqs) != 2 || reqs[1].path != "/new" {
		t.Errorf("requests %+v, want the ping repeated at /new", reqs)
	}
}

func TestSameOrigin(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"http://127.0.0.1:8080/a", "http://127.0.0.1:8080/b?x=1", true},
		{"http://Example.COM/a", "http://example.com:80/b", true},
		{"https://example.com/a", "https://example.com:443/", true},
		{"http://127.0.0.1:8080/a", "http://127.0.0.1:8081/a", false},
		{"http://example.com/a", "https://example.com/a", false},
		{"https://example.com/a", "https://example.com:8443/a", false},
		{"https://example.com/a", "https://api.example.com/a", false},
		{"https://example.com/a", "https://example.com.evil.test/a", false},
	} {
		a, _ := url.Parse(tc.a)
		b, _ := url.Parse(tc.b)
		if got := sameOrigin(a, b); got != tc.want {
			t.Errorf("sameOrigin(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
