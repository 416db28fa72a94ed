package ping

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/publish"
	"github.com/sitemapd/sitemapd/internal/safefile"
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
	// Held is the hold a 429 or 503 with Retry-After asked for, and the
	// endpoint URL that asked: a restart within it still waits.
	Held *heldState `json:"held,omitempty"`
}

type heldState struct {
	URL   string    `json:"url"`
	Until time.Time `json:"until"`
}

// maxStateSize bounds what readState reads: a ledger owing every URL of a
// site of millions of pages is some hundreds of megabytes.
const maxStateSize = 1 << 30

// readState loads the state file. A missing file gives nothing, not lost:
// a site never notified. One that cannot be read or parsed, or of another
// version, gives nothing and lost, with a warning: a bad state file must
// never stop the daemon. err is not set today; it is kept for errors that
// must stop it.
func readState(dir string, log *zap.Logger) (doc *stateDoc, lost bool, err error) {
	p := filepath.Join(dir, StateFile)
	// Never through a link, never a FIFO (which would hold the daemon
	// before its first build), and never more than a ledger can hold.
	data, err := safefile.ReadFile(p, maxStateSize, safefile.NoFollow)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err == nil {
		doc = &stateDoc{}
		err = json.Unmarshal(data, doc)
		if err == nil && doc.Version != stateVersion {
			err = fmt.Errorf("version %d, want %d", doc.Version, stateVersion)
		}
	}
	if err == nil {
		return doc, false, nil
	}
	// Unreadable (a directory, no permission), corrupt, or of another
	// version: it must not stop the daemon. Moved aside for whoever wants
	// to look, and the notifier starts with nothing owed but knowing the
	// site was notified before, so that what the first build finds
	// changed is owed again.
	aside, rerr := publish.Quarantine(p)
	if rerr != nil {
		log.Warn("notification state is unreadable and cannot be moved aside; starting with nothing owed: what it owed is lost, and saving it will fail until the path is fixed",
			zap.String("path", p), zap.Error(err), zap.NamedError("move_error", rerr))
		return nil, true, nil
	}
	log.Warn("notification state is unreadable; moved it aside and starting afresh: what it owed is lost, what the first build finds changed is owed",
		zap.String("path", p), zap.String("moved_to", aside), zap.Error(err))
	return nil, true, nil
}

// encodeState renders the state deterministically (sorted URLs), so an
// unchanged state is never rewritten.
func encodeState(eps []*endpoint) ([]byte, error) {
	doc := stateDoc{Version: stateVersion, Endpoints: map[string]*endpointState{}}
	for _, ep := range eps {
		st := &endpointState{Gone: ep.gone}
		if ep.t.hold.why == askedToWait {
			st.Held = &heldState{URL: ep.cfg.URL, Until: ep.t.hold.until.UTC().Round(0)}
		}
		for u := range ep.owed {
			st.URLs = append(st.URLs, u)
		}
		slices.Sort(st.URLs)
		doc.Endpoints[ep.cfg.Name] = st
	}
	return json.MarshalIndent(doc, "", " ")
}
