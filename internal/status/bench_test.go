package status_test

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/status"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// bigSite is a snapshot of a site of 1,000,000 URLs in `groups` groups,
// one in four with pages left out for three reasons (three examples
// each), and a full history: every hourly and daily bucket with three
// endpoints' submissions, and as many recent records as are kept. The
// history is bounded, so this is as large as its part of the page gets.
func bigSite(groups int) status.Snapshot {
	s := status.Snapshot{Site: "big", BaseURL: "https://big.example/", Now: t0, URLs: 1_000_000, Sitemaps: groups + 1_000_000/50_000,
		LastPublish: t0.Add(-time.Minute), LastDuration: 40 * time.Millisecond}
	for i := range groups {
		g := status.Group{Path: fmt.Sprintf("/section-%05d/", i), Listed: 1_000_000 / groups, Sources: status.Sources{Content: 1_000_000 / groups}}
		if i%4 == 0 {
			for _, r := range []tree.Reason{tree.NoIndex, tree.Canonical, tree.Robots} {
				l := status.LeftOut{Reason: r, Count: 40}
				for j := range status.MaxExamples {
					l.Examples = append(l.Examples, fmt.Sprintf("https://big.example/section-%05d/page-%d-%d.html", i, r, j))
				}
				g.LeftOut = append(g.LeftOut, l)
			}
		}
		s.Groups = append(s.Groups, g)
	}
	ends := []string{"indexnow", "bing-ping", "yandex"}
	for _, e := range ends {
		s.Endpoints = append(s.Endpoints, status.Endpoint{Name: e, URL: "https://" + e + ".example/?key=SECRET", Owed: 12,
			LastAttempt: t0.Add(-time.Minute), LastStatus: 200, NextTry: t0.Add(time.Minute)})
	}
	bucket := func(start time.Time, n int) status.Bucket {
		b := status.Bucket{Start: start, Publishes: n, Moved: status.Sources{Content: 3 * n}, Removed: n / 10, Submissions: map[string]status.AnswerCounts{}}
		for _, e := range ends {
			b.Submissions[e] = status.AnswerCounts{n, 1, 1, 1, 0}
		}
		return b
	}
	for i := range status.Hours {
		s.Activity.Hourly = append(s.Activity.Hourly, bucket(t0.Truncate(time.Hour).Add(time.Duration(i-status.Hours+1)*time.Hour), 60))
	}
	for i := range status.Days {
		s.Activity.Daily = append(s.Activity.Daily, bucket(t0.Truncate(24*time.Hour).AddDate(0, 0, i-status.Days+1), 1440))
	}
	for i := range status.MaxPublishes {
		s.Activity.Publishes = append(s.Activity.Publishes, status.Publish{At: t0.Add(-time.Duration(i) * time.Minute), Duration: 40 * time.Millisecond,
			Trigger: "change", URLs: 1_000_000, Moved: status.Sources{Content: 3}})
	}
	for i := range status.MaxSubmissions {
		s.Activity.Submissions = append(s.Activity.Submissions, status.Submission{At: t0.Add(-time.Duration(i) * time.Minute),
			Endpoint: ends[i%len(ends)], URLs: 3, Status: 200})
	}
	return s
}

// BenchmarkPage renders /status and its text for a site of 1M URLs, in
// 1,000 and in 20,000 groups (the page lists MaxGroupsShown of them). It
// reports the page's size.
func BenchmarkPage(b *testing.B) {
	for _, groups := range []int{1_000, 20_000} {
		snap := bigSite(groups)
		for _, target := range []string{"/status", "/status?format=text"} {
			b.Run(fmt.Sprintf("groups=%d/%s", groups, target[1:]), func(b *testing.B) {
				h := status.NewHandler(oneSite(snap), nil)
				h.SetClock(func() time.Time { return t0 })
				b.ReportAllocs()
				var size int
				for b.Loop() {
					rec := httptest.NewRecorder()
					h.ServeHTTP(rec, httptest.NewRequest("GET", target, nil))
					if rec.Code != 200 {
						b.Fatalf("status %d", rec.Code)
					}
					size = rec.Body.Len()
				}
				b.ReportMetric(float64(size), "page-B")
			})
		}
	}
}

// BenchmarkHistoryRecord records a busy site's minutes: each op is one
// minute, one publish and a submission to each of three endpoints, each
// saved as the daemon saves it (a rewrite, fsync and rename). It reports
// the history's size at the end: run it with -benchtime=1440x for a day,
// 44640x for a month (TMPDIR on the state directory's filesystem for
// its cost; the size does not depend on it).
func BenchmarkHistoryRecord(b *testing.B) {
	dir := b.TempDir()
	c := newClock(t0)
	h, err := status.Open(dir, nil, status.WithClock(c.Now))
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	ends := []string{"indexnow", "bing-ping", "yandex"}
	for i := 0; b.Loop(); i++ {
		c.Advance(time.Minute)
		if err := h.RecordPublish(status.Publish{Duration: 40 * time.Millisecond, Trigger: "change", URLs: 1_000_000 + i,
			Moved: status.Sources{Content: 1 + i%5}, Removed: i % 3}); err != nil {
			b.Fatal(err)
		}
		for j, e := range ends {
			if err := h.RecordSubmission(status.Submission{Endpoint: e, URLs: 1 + i%5, Status: []int{200, 202, 429, 503}[(i+j)%4]}); err != nil {
				b.Fatal(err)
			}
		}
	}
	st, err := os.Stat(filepath.Join(dir, status.FileName))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(st.Size()), "file-B")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/4, "ns/record")
}
