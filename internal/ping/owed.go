package ping

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/sitemapd/sitemapd/internal/safefile"
)

// Owed reads, without taking the state directory (a daemon may hold it),
// how many URLs each endpoint is owed by name, as the state file in dir
// says: for `sitemapd fleet`. A missing file owes nothing; one that
// cannot be read is an error, and is left where it is.
func Owed(dir string) (map[string]int, error) {
	p := filepath.Join(dir, StateFile)
	data, err := safefile.ReadFile(p, maxStateSize, safefile.NoFollow)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]int{}, nil
	}
	if err != nil {
		return nil, err
	}
	var doc stateDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	if doc.Version != stateVersion {
		return nil, fmt.Errorf("%s: version %d, want %d", p, doc.Version, stateVersion)
	}
	out := make(map[string]int, len(doc.Endpoints))
	for name, ep := range doc.Endpoints {
		out[name] = len(ep.URLs)
	}
	return out, nil
}
