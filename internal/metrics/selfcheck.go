package metrics

// What /healthz and /metrics say of the self-check (selfcheck in the
// configuration): each problem the last check found, by URL.

import (
	"fmt"
	"time"

	"github.com/sitemapd/sitemapd/internal/reach"
)

// selfCheckHealth is the self-check on /healthz.
type selfCheckHealth struct {
	Checked  time.Time          `json:"checked,omitzero"` // absent before the first check
	URLs     int                `json:"urls"`
	Problems []selfCheckProblem `json:"problems,omitempty"`
}

// selfCheckProblem is one URL that is not served as sitemapd wrote it.
type selfCheckProblem struct {
	What    string `json:"what"`
	URL     string `json:"url"`
	Problem string `json:"problem"` // reach.Problem's name
	Detail  string `json:"detail"`
	Fix     string `json:"fix,omitempty"`
}

// selfCheckOf is st for /healthz, the paths it names relative to roots
// (as the reason's are).
func selfCheckOf(st *reach.Status, roots []string) *selfCheckHealth {
	if st == nil {
		return nil
	}
	h := &selfCheckHealth{Checked: st.Checked, URLs: st.URLs}
	for _, r := range st.Problems {
		h.Problems = append(h.Problems, selfCheckProblem{What: r.What.String(), URL: r.URL, Problem: r.Problem.String(),
			Detail: relative(r.Detail, roots), Fix: relative(r.Fix, roots)})
	}
	return h
}

// selfCheckTrouble names the first problem and how many there are, or
// is "".
func selfCheckTrouble(st *reach.Status) string {
	if st == nil || len(st.Problems) == 0 {
		return ""
	}
	s := "self-check: " + st.Problems[0].String()
	if n := len(st.Problems) - 1; n > 0 {
		s += fmt.Sprintf(" (and %d more: see self_check)", n)
	}
	return s
}

// collectSelfCheck puts the self-check's series.
func collectSelfCheck(put func(metric, float64, ...string), st *reach.Status) {
	if st == nil {
		return
	}
	put(selfCheckRuns, float64(st.Checks))
	var at float64
	if !st.Checked.IsZero() {
		at = float64(st.Checked.Unix())
	}
	put(selfCheckLast, at)
	put(selfCheckURLs, float64(st.URLs))
	for _, r := range st.Problems {
		put(selfCheckProblems, 1, r.What.String(), r.URL, r.Problem.String())
	}
}
