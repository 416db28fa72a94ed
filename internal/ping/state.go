package ping

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"go.uber.org/zap"
)

// StateFile is the name of the state file in state_dir.
const StateFile = "notify.json"

// stateVersion is bumped whenever the file's meaning changes; a file of
// another version is set aside like a corrupt one, never misread.
const stateVersion = 1

// stateDoc is what state_dir keeps: what each endpoint is owed.
type stateDoc struct {
	Version   int                       `json:"version"`
	Endpoints map[string]*endpointState `json:"endpoints"`
}

type endpointState struct {
	// URLs are the page URLs (indexnow) or index URLs (ping) owed.
	URLs []string `json:"urls,omitempty"`
	// Gone is the endpoint URL that answered 404 or 410: calls to it stop
	// until the configured URL is another.
	Gone string `json:"gone,omitempty"`
}

// readState loads the state file. A missing file gives (nil, nil). A file
// that cannot be parsed, or of another version, is renamed aside with a
// warning and gives (nil, nil) too: a bad state file must never stop the
// daemon.
func readState(dir string, log *zap.Logger) (*stateDoc, error) {
	p := filepath.Join(dir, StateFile)
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read notification state: %w", err)
	}
	var doc stateDoc
	err = json.Unmarshal(data, &doc)
	if err == nil && doc.Version != stateVersion {
		err = fmt.Errorf("version %d, want %d", doc.Version, stateVersion)
	}
	if err != nil {
		aside := fmt.Sprintf("%s.corrupt-%s", p, time.Now().UTC().Format("20060102T150405Z"))
		if rerr := os.Rename(p, aside); rerr != nil {
			return nil, fmt.Errorf("notification state %s is unreadable (%v) and cannot be moved aside: %w", p, err, rerr)
		}
		log.Warn("notification state is unreadable; moved it aside and starting afresh: what it owed is lost",
			zap.String("path", p), zap.String("moved_to", aside), zap.Error(err))
		return nil, nil
	}
	return &doc, nil
}

// encodeState renders the state deterministically (sorted URLs), so an
// unchanged state is never rewritten.
func encodeState(eps []*endpoint) ([]byte, error) {
	doc := stateDoc{Version: stateVersion, Endpoints: map[string]*endpointState{}}
	for _, ep := range eps {
		st := &endpointState{Gone: ep.gone}
		for u := range ep.owed {
			st.URLs = append(st.URLs, u)
		}
		slices.Sort(st.URLs)
		doc.Endpoints[ep.cfg.Name] = st
	}
	return json.MarshalIndent(doc, "", " ")
}
