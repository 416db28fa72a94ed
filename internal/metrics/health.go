package metrics

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/sitemapd/sitemapd/internal/ping"
)

// health is the /healthz body of one site.
type health struct {
	Status    string    `json:"status"` // "ok", "unhealthy" or "degraded"
	Reason    string    `json:"reason,omitempty"`
	LastBuild time.Time `json:"last_build,omitzero"`
	Watches   int       `json:"watches"`
	// SearchConsole is Google's view of the sitemaps submitted.
	SearchConsole []consoleHealth `json:"search_console,omitempty"`
	// SelfCheck is the public view as the self-check last saw it.
	SelfCheck *selfCheckHealth `json:"self_check,omitempty"`
}

// overall is the /healthz body of a process serving several sites: the
// worst of its sites' statuses, the first such site's reason (named),
// and each site's own.
type overall struct {
	Status string            `json:"status"`
	Reason string            `json:"reason,omitempty"`
	Sites  map[string]health `json:"sites"`
}

// Status values, from best to worst.
const (
	statusOK        = "ok"
	statusDegraded  = "degraded"
	statusUnhealthy = "unhealthy"
)

func rank(status string) int {
	switch status {
	case statusDegraded:
		return 1
	case statusUnhealthy:
		return 2
	}
	return 0
}

// siteHealth reports a site's health. Unhealthy: its sitemaps may not be
// what the tree and its configuration say. Degraded: they are, but search
// engines are not being told, or a fleet's etcd cannot be reached. Either answers 503, with the reason.
func siteHealth(s siteState) health {
	st := s.state
	h := health{Status: statusOK, LastBuild: s.lastBuild, Watches: st.Watches, SearchConsole: consolesHealth(st.SearchConsole),
		SelfCheck: selfCheckOf(st.SelfCheck, st.Roots)}
	switch {
	case s.broken != "":
		h.Reason = s.broken
	case st.Stalled != "":
		h.Reason = st.Stalled
	case h.LastBuild.IsZero():
		h.Reason = "the first build has not finished"
	case st.Refused != "":
		h.Reason = st.Refused
	case !s.lastOK:
		h.Reason = "the last publish failed: " + s.lastErr
	case st.Degraded:
		h.Reason = "some directories are not watched (see the log: inotify limits, or the root is missing)"
	}
	if h.Reason != "" {
		h.Status = statusUnhealthy
	} else if h.Reason = notifyTrouble(st.Endpoints, time.Now()); h.Reason != "" {
		h.Status = statusDegraded
	} else if h.Reason = consoleTrouble(st.SearchConsole, time.Now()); h.Reason != "" {
		h.Status = statusDegraded
	} else if st.Fleet != "" {
		// The sitemaps are this server's truth, and published; they may
		// differ from the fleet's until etcd returns.
		h.Reason, h.Status = st.Fleet, statusDegraded
	} else if h.Reason = selfCheckTrouble(st.SelfCheck); h.Reason != "" {
		h.Status = statusDegraded
	}
	h.Reason = relative(h.Reason, st.Roots)
	return h
}

// Health reports whether every site is ok, and if not, why, naming the
// site in a multi-site process; site, if not "", asks about that one
// only (found is false when no such site is served).
func (m *Metrics) Health(site string) (body any, ok, found bool) {
	states := m.states()
	if !m.multi {
		h := siteHealth(states[0])
		return h, h.Reason == "", true
	}
	if site != "" {
		for _, s := range states {
			if s.name == site {
				h := siteHealth(s)
				return h, h.Reason == "", true
			}
		}
		return nil, false, false
	}
	o := overall{Status: statusOK, Sites: make(map[string]health, len(states))}
	for _, s := range states {
		h := siteHealth(s)
		o.Sites[s.name] = h
		if rank(h.Status) > rank(o.Status) {
			o.Status, o.Reason = h.Status, "site "+s.name+": "+h.Reason
		}
	}
	return o, o.Status == statusOK, true
}

// Reason is why /healthz answers 503, "" when it answers 200.
func (m *Metrics) Reason() string {
	body, ok, _ := m.Health("")
	if ok {
		return ""
	}
	switch b := body.(type) {
	case health:
		return b.Reason
	case overall:
		return b.Reason
	}
	return "unhealthy"
}

// notifyTrouble says which endpoint is not being told, or "".
func notifyTrouble(eps []ping.Stats, now time.Time) string {
	for _, e := range eps {
		switch {
		case e.Gone:
			return fmt.Sprintf("notify endpoint %s answered 404 or 410 and is no longer called (%d URLs owed): check its url", e.Endpoint, e.Owed)
		case e.Owed > 0 && !e.FailingSince.IsZero() && now.Sub(e.FailingSince) > NotifyFailingAfter:
			return fmt.Sprintf("notifications to %s have failed since %s (%d URLs owed): %s",
				e.Endpoint, e.FailingSince.UTC().Format(time.RFC3339), e.Owed, e.LastError)
		}
	}
	return ""
}

// relative rewrites the absolute paths under roots in s as relative ones.
func relative(s string, roots []string) string {
	for _, r := range roots {
		if r == "" || r == "/" {
			continue
		}
		r = strings.TrimSuffix(r, "/")
		s = strings.ReplaceAll(s, r+"/", "")
		s = strings.ReplaceAll(s, r, ".")
	}
	return s
}

// Handler serves /healthz (?site=NAME: one site's), /metrics and what is
// mounted.
func (m *Metrics) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		body, ok, found := m.Health(r.URL.Query().Get("site"))
		w.Header().Set("Content-Type", "application/json")
		switch {
		case !found:
			w.WriteHeader(http.StatusNotFound)
			body = health{Status: statusUnhealthy, Reason: "no site is named " + r.URL.Query().Get("site")}
		case !ok:
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		json.NewEncoder(w).Encode(body)
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
	m.mu.Lock()
	for _, r := range m.mounted {
		mux.Handle(r.pattern, r.h)
	}
	m.mu.Unlock()
	return mux
}
