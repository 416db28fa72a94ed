package searchconsole

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"time"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/publish"
	"github.com/sitemapd/sitemapd/internal/safefile"
)

// stateVersion is bumped when the file's meaning changes; a file of
// another version is set aside, never misread.
const stateVersion = 1

// maxStateSize bounds what is read of a state file: a few sitemaps.
const maxStateSize = 1 << 20

// state is what state_dir keeps of one endpoint: which sitemaps were
// submitted to which property, and Google's last view of each.
type state struct {
	Version  int    `json:"version"`
	Property string `json:"property"`
	// Submitted maps each sitemap URL submitted to when.
	Submitted map[string]time.Time `json:"submitted"`
	// Views is Google's view of each sitemap announced, as last polled.
	Views map[string]View `json:"views"`
}

// StateFile is the name of an endpoint's state file in state_dir:
// searchconsole-NAME.json, the name escaped as a URL path segment so that
// any endpoint name makes one file name.
func StateFile(endpoint string) string {
	return "searchconsole-" + url.PathEscape(endpoint) + ".json"
}

func newState(property string) *state {
	return &state{Version: stateVersion, Property: property, Submitted: map[string]time.Time{}, Views: map[string]View{}}
}

// readState loads an endpoint's state. A missing file, or one of another
// property (the configuration names another now: nothing was submitted
// to it), is a fresh state; one that cannot be read or parsed is moved
// aside with a warning, and the sitemaps are submitted again, which is
// harmless; unless readOnly, which leaves it where it is.
func readState(dir, endpoint, property string, readOnly bool, log *zap.Logger) *state {
	p := filepath.Join(dir, StateFile(endpoint))
	data, err := safefile.ReadFile(p, maxStateSize, safefile.NoFollow)
	if errors.Is(err, fs.ErrNotExist) {
		return newState(property)
	}
	st := newState(property)
	if err == nil {
		err = json.Unmarshal(data, st)
		if err == nil && st.Version != stateVersion {
			err = fmt.Errorf("version %d, want %d", st.Version, stateVersion)
		}
	}
	if err != nil && readOnly {
		return newState(property)
	}
	if err != nil {
		aside, rerr := publish.Quarantine(p)
		log.Warn("Search Console state is unreadable; starting afresh (the sitemaps are submitted again)",
			zap.String("path", p), zap.String("moved_to", aside), zap.Error(err), zap.NamedError("move_error", rerr))
		return newState(property)
	}
	if st.Property != property {
		return newState(property)
	}
	if st.Submitted == nil {
		st.Submitted = map[string]time.Time{}
	}
	if st.Views == nil {
		st.Views = map[string]View{}
	}
	return st
}

// ReadStatus is what the state directory says of an endpoint, for a
// command that does not run it (`build -dry-run`): the sitemaps it
// submitted and Google's last view of each, beside the sitemaps announce
// names (those not submitted yet have a zero Submitted).
func ReadStatus(dir, endpoint, property string, announce []string) Status {
	st := readState(dir, endpoint, property, true, zap.NewNop())
	return st.status(endpoint, property, announce)
}

// status lists the sitemaps of announce (in order), then those submitted
// that are not announced any more, with what is known of each.
func (st *state) status(endpoint, property string, announce []string) Status {
	s := Status{Endpoint: endpoint, Property: property}
	seen := map[string]bool{}
	add := func(u string) {
		if seen[u] {
			return
		}
		seen[u] = true
		sm := Sitemap{URL: u, Submitted: st.Submitted[u]}
		if v, ok := st.Views[u]; ok {
			sm.View = &v
		}
		s.Sitemaps = append(s.Sitemaps, sm)
	}
	for _, u := range announce {
		add(u)
	}
	for _, u := range sortedKeys(st.Submitted) {
		add(u)
	}
	return s
}
