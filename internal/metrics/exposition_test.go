package metrics

import (
	"errors"
	"flag"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/hreflang"
	"github.com/sitemapd/sitemapd/internal/ping"
	"github.com/sitemapd/sitemapd/internal/tree"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// TestExpositionGolden pins sitemapd's own lines of /metrics (HELP, TYPE
// and samples; not the Go runtime's nor the process's), of a single-site
// and of a multi-site process, byte for byte: the names, types, help and
// labels are a contract with dashboards and alerts.
func TestExpositionGolden(t *testing.T) {
	for _, tc := range []struct {
		name  string
		m     *Metrics
		sites []string
	}{
		{"single", New("1.2.3"), []string{""}},
		{"multi", NewMulti("1.2.3"), []string{"a", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, name := range tc.sites {
				s := tc.m.Site(name)
				s.SetState(func() State {
					st := State{Watches: 12, Overflows: 2, Degraded: name == "b", Endpoints: []ping.Stats{
						{Endpoint: "indexnow", Attempts: 5, Successes: 3, Failures: 2, LastStatus: 202, Owed: 4},
						{Endpoint: "ping", Gone: true},
					}}
					if name != "b" { // one of a fleet; b is not
						st.FleetStats = &FleetStats{Reachable: true, Leading: true, Queued: 3, Requests: 40, Adopted: 2, Resent: 1, ResentURLs: 60, Forgotten: 250}
					}
					return st
				})
				s.Published("initial build", 2*time.Second, 1234, nil)
				s.Published("change", 5*time.Millisecond, -1, errors.New("x"))
				var left tree.Tally
				left[tree.Redirect] = 7
				s.LeftOut(left)
				var alts hreflang.Tally
				alts[hreflang.Kept], alts[hreflang.NoReturn] = 9, 2
				s.Hreflang(alts)
			}
			srv := httptest.NewServer(tc.m.Handler())
			defer srv.Close()
			_, body := get(t, srv, "/metrics")
			var own []string
			for _, l := range strings.Split(body, "\n") {
				if strings.HasPrefix(l, "sitemapd_") || strings.HasPrefix(l, "# HELP sitemapd_") || strings.HasPrefix(l, "# TYPE sitemapd_") {
					own = append(own, l)
				}
			}
			got := strings.Join(own, "\n") + "\n"
			golden := "testdata/exposition-" + tc.name + ".golden"
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("/metrics changed (go test -update to accept):\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// TestTableIsTheExposition: every metric of metricTable is exported with
// the table's name, type and help, with and without the site label, and
// no other of sitemapd's is.
func TestTableIsTheExposition(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    *Metrics
	}{{"single", New("1")}, {"multi", NewMulti("1")}} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.m.Site("a")
			s.SetState(func() State {
				return State{Endpoints: []ping.Stats{{Endpoint: "e"}}, SearchConsole: consoleSample(), FleetStats: &FleetStats{}, SelfCheck: selfCheckSample()}
			})
			s.Published("change", time.Millisecond, 1, nil)
			srv := httptest.NewServer(tc.m.Handler())
			defer srv.Close()
			_, body := get(t, srv, "/metrics")
			defined := map[string]bool{}
			for _, d := range metricTable {
				defined[d.name] = true
				for _, want := range []string{"# HELP " + d.name + " " + d.help + "\n", "# TYPE " + d.name + " " + d.kind.String() + "\n"} {
					if !strings.Contains(body, want) {
						t.Errorf("no %q in /metrics", want)
					}
				}
			}
			for _, l := range strings.Split(body, "\n") {
				if name, ok := strings.CutPrefix(l, "# TYPE sitemapd_"); ok {
					if name, _, _ = strings.Cut(name, " "); !defined["sitemapd_"+name] {
						t.Errorf("sitemapd_%s is exported but not in metricTable", name)
					}
				}
			}
		})
	}
}
