package safefile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQuarantine: a damaged file goes aside under a name of its own, and
// a second one moved aside in the same second does not replace the first.
func TestQuarantine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	var asides []string
	for _, body := range []string{"first", "second"} {
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		aside, err := Quarantine(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(filepath.Base(aside), "state.corrupt-") {
			t.Errorf("moved to %s, want state.corrupt-<time>", aside)
		}
		if got, err := os.ReadFile(aside); err != nil || string(got) != body {
			t.Errorf("%s holds %q, %v; want %q", aside, got, err, body)
		}
		asides = append(asides, aside)
	}
	if asides[0] == asides[1] {
		t.Errorf("both moved to %s", asides[0])
	}
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Errorf("the damaged file is still in place: %v", err)
	}
}
