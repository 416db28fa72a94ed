package status_test

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/status"
	"github.com/sitemapd/sitemapd/internal/tree"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it); got:\n%s", path, got)
	}
}

// scripted returns the sample snapshot with a month's activity recorded
// through a History.
func scripted(t *testing.T) status.Snapshot {
	c := newClock(t0)
	h, _ := open(t, t.TempDir(), c)
	month().record(t, h, c)
	return sample(h.Activity())
}

func get(t *testing.T, h http.Handler, method, target string) (*http.Response, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, target, nil))
	res := rec.Result()
	body, _ := io.ReadAll(res.Body)
	return res, string(body)
}

func multi(snaps ...status.Snapshot) sites {
	s := sites{snaps: map[string]status.Snapshot{}}
	for _, v := range snaps {
		s.names = append(s.names, v.Site)
		s.snaps[v.Site] = v
	}
	return s
}

// shop is a second site, healthy and quiet, for the overview.
func shop() status.Snapshot {
	return status.Snapshot{Site: "shop", BaseURL: "https://shop.example.org/", Now: t0, URLs: 52000, Sitemaps: 3,
		LastPublish: t0.Add(-26 * time.Hour)}
}

func TestGolden(t *testing.T) {
	snap := scripted(t)
	for _, tc := range []struct {
		name, target, golden string
		src                  status.Source
	}{
		{"site page", "/status", "site.html", oneSite(snap)},
		{"site text", "/status?format=text", "site.txt", oneSite(snap)},
		{"empty site", "/status", "empty.html", oneSite(status.Snapshot{BaseURL: "https://new.example/", Now: t0,
			Health: status.Health{Level: status.Failing, Reason: "the first build has not finished"}})},
		{"empty site text", "/status?format=text", "empty.txt", oneSite(status.Snapshot{BaseURL: "https://new.example/", Now: t0,
			Health: status.Health{Level: status.Failing, Reason: "the first build has not finished"}})},
		{"overview", "/status", "overview.html", multi(snap, shop())},
		{"overview text", "/status?format=text", "overview.txt", multi(snap, shop())},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := status.NewHandler(tc.src, nil)
			h.SetClock(func() time.Time { return t0 })
			res, body := get(t, h, "GET", tc.target)
			if res.StatusCode != 200 {
				t.Fatalf("status %d: %s", res.StatusCode, body)
			}
			golden(t, tc.golden, []byte(body))
		})
	}
}

// WriteText is what `sitemapd status` prints: the same text as the
// handler's, written straight from a Snapshot.
func TestWriteText(t *testing.T) {
	var buf bytes.Buffer
	if err := scripted(t).WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	golden(t, "site.txt", buf.Bytes())
}

func TestHandler(t *testing.T) {
	snap := scripted(t)
	for _, tc := range []struct {
		name, method, target string
		src                  status.Source
		code                 int
		has, hasNot          []string
	}{
		{"one site at /status", "GET", "/status", oneSite(snap), 200, []string{"<h1>blog</h1>"}, []string{"All sites"}},
		{"one site by name", "GET", "/status?site=blog", oneSite(snap), 200, []string{"<h1>blog</h1>"}, nil},
		{"sites listed", "GET", "/status", multi(snap, shop()), 200,
			[]string{`<a href="?site=blog">blog</a>`, `<a href="?site=shop">shop</a>`}, []string{"<h2>Groups</h2>"}},
		{"one of several", "GET", "/status?site=shop", multi(snap, shop()), 200,
			[]string{"<h1>shop</h1>", `<a href="/status">All sites</a>`}, nil},
		{"no such site", "GET", "/status?site=nope", multi(snap, shop()), 404, []string{"no site is named nope"}, nil},
		{"post refused", "POST", "/status", oneSite(snap), 405, nil, nil},
		{"head has no body", "HEAD", "/status", oneSite(snap), 200, nil, []string{"<html"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, body := get(t, status.NewHandler(tc.src, nil), tc.method, tc.target)
			if res.StatusCode != tc.code {
				t.Fatalf("status %d, want %d: %s", res.StatusCode, tc.code, body)
			}
			for _, s := range tc.has {
				if !strings.Contains(body, s) {
					t.Errorf("the answer lacks %q", s)
				}
			}
			for _, s := range tc.hasNot {
				if strings.Contains(body, s) {
					t.Errorf("the answer has %q", s)
				}
			}
			if tc.code != 200 && !strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain") {
				t.Errorf("an error answers %q, want text/plain (a name it repeats is not markup)", res.Header.Get("Content-Type"))
			}
			if tc.code == 200 && tc.method == "GET" && !strings.Contains(res.Header.Get("Content-Security-Policy"), "default-src 'none'") {
				t.Errorf("CSP %q", res.Header.Get("Content-Security-Policy"))
			}
		})
	}
}

// Neither the page nor the text shows an endpoint's credentials.
func TestNoSecretShown(t *testing.T) {
	snap := scripted(t)
	for _, target := range []string{"/status", "/status?format=text"} {
		_, body := get(t, status.NewHandler(oneSite(snap), nil), "GET", target)
		for _, secret := range []string{"SECRETKEY", "hunter2"} {
			if strings.Contains(body, secret) {
				t.Errorf("%s shows %q", target, secret)
			}
		}
		if !strings.Contains(body, "api.indexnow.example/indexnow?key=REDACTED") {
			t.Errorf("%s does not show the endpoint's redacted URL", target)
		}
	}
}

// The charts have a bar per hour and per day, and a bar per endpoint and
// answer that came; their counts add up to what was recorded.
func TestChartBars(t *testing.T) {
	snap := scripted(t)
	_, body := get(t, status.NewHandler(oneSite(snap), nil), "GET", "/status")
	if n := strings.Count(body, "<rect "); n != status.Hours+status.Days+wantSentBars(snap) {
		t.Errorf("%d bars, want %d", n, status.Hours+status.Days+wantSentBars(snap))
	}
}

// wantSentBars counts the (endpoint, answer) pairs of the scripted month
// within the daily window, from the script itself.
func wantSentBars(s status.Snapshot) int {
	first := s.Activity.Daily[0].Start
	pairs := map[string]bool{}
	for _, sub := range month().submissions {
		if !sub.At.Before(first) {
			pairs[sub.Endpoint+"/"+sub.Answer().String()] = true
		}
	}
	return len(pairs)
}

// TestGroupsShown: the groups with pages left out come first, then the
// others, each set by path; past MaxGroupsShown the rest are counted, and
// so are those of them with pages left out, which the page must not call
// fully listed.
func TestGroupsShown(t *testing.T) {
	groups := func(listed, leftOut int) []status.Group {
		var gs []status.Group
		for i := range listed + leftOut {
			g := status.Group{Path: fmt.Sprintf("/g%04d/", i), Listed: 1}
			if i >= listed { // the last by path: shown first
				g.LeftOut = []status.LeftOut{{Reason: tree.NoIndex, Count: 1, Examples: []string{fmt.Sprintf("https://b.example/g%04d/x.html", i)}}}
			}
			gs = append(gs, g)
		}
		return gs
	}
	for _, tc := range []struct {
		name            string
		listed, leftOut int
		first           string // the first group shown
		tail            string // the text's line after the groups, "" for none
	}{
		{"few", 3, 2, "/g0003/", ""},
		{"all listed past the bound", status.MaxGroupsShown + 5, 0, "/g0000/", "  and 5 more, every page of which is listed"},
		{"left out past the bound", 10, status.MaxGroupsShown + 2, "/g0010/", "  and 12 more, 2 of them with pages left out"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			snap := status.Snapshot{BaseURL: "https://b.example/", Now: t0, Groups: groups(tc.listed, tc.leftOut)}
			var buf bytes.Buffer
			if err := snap.WriteText(&buf); err != nil {
				t.Fatal(err)
			}
			text := buf.String()
			lines := strings.Split(text, "\n")
			for i, l := range lines {
				if strings.HasPrefix(l, "groups (") {
					if got := strings.Fields(lines[i+1])[0]; got != tc.first {
						t.Errorf("first group %q, want %q", got, tc.first)
					}
				}
			}
			hasTail := tc.tail != "" && strings.Contains(text, tc.tail+"\n")
			if tc.tail != "" && !hasTail {
				t.Errorf("the text lacks %q:\n%s", tc.tail, text[strings.Index(text, "groups ("):])
			}
			if tc.tail == "" && strings.Contains(text, "  and ") {
				t.Errorf("groups cut though %d fit", tc.listed+tc.leftOut)
			}
			// Those shown with pages left out all precede those without.
			_, page := get(t, status.NewHandler(oneSite(snap), nil), "GET", "/status")
			if i, j := strings.LastIndex(page, " left out</strong></summary>"), strings.Index(page, " listed</summary>"); i >= 0 && j >= 0 && j < i {
				t.Errorf("a group with every page listed comes before one with pages left out")
			}
		})
	}
}
