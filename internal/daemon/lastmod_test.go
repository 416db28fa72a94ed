package daemon

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/pagestore"
)

// TestRestartAfterRedeploy stops the daemon, redeploys the site with the
// same bytes and new mtimes, and starts it again. With its page store it
// knows the pages did not change: nothing is published, nothing owed.
// With its store damaged it cannot vouch for them: it warns once, moves
// the store aside, and owes every rewritten page (a duplicate notification
// is acceptable; a lost one is not).
func TestRestartAfterRedeploy(t *testing.T) {
	for _, damaged := range []bool{false, true} {
		t.Run(fmt.Sprintf("damaged=%v", damaged), func(t *testing.T) {
			h := start(t, "")
			var pages []string
			for i := range 20 {
				p := fmt.Sprintf("d%d/p%d.html", i%3, i)
				h.write(p)
				pages = append(pages, "https://static.test/"+p)
			}
			h.write("d0/notes.pdf")
			h.sync()
			h.stop()

			later := time.Now().Add(-time.Minute)
			filepath.WalkDir(h.root, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() && filepath.Ext(p) != ".xml" && filepath.Ext(p) != ".txt" {
					b, _ := os.ReadFile(p)
					os.WriteFile(p, b, 0o644)
					os.Chtimes(p, later, later)
				}
				return nil
			})
			store := filepath.Join(h.dir, "state", pagestore.Name)
			if damaged {
				b, err := os.ReadFile(store)
				if err != nil {
					t.Fatal(err)
				}
				b[5] ^= 1
				os.WriteFile(store, b, 0o600)
			}
			h.mu.Lock()
			h.pubs = nil
			h.mu.Unlock()
			h.run()
			h.sync()
			h.mu.Lock()
			var changed []string
			for _, p := range h.pubs {
				changed = append(changed, p.Changes.Changed...)
			}
			h.mu.Unlock()
			warned := h.logs.FilterMessageSnippet("page store cannot be read").Len()
			if !damaged {
				if len(changed) != 0 || warned != 0 {
					t.Errorf("a redeploy of the same bytes: changed %v, %d warnings", changed, warned)
				}
				return
			}
			slices.Sort(changed)
			for _, p := range pages {
				if !slices.Contains(changed, p) {
					t.Errorf("%s not owed after the page store was lost", p)
				}
			}
			if warned != 1 {
				t.Errorf("%d warnings of the lost store, want 1", warned)
			}
			if m, _ := filepath.Glob(store + ".corrupt-*"); len(m) != 1 {
				t.Errorf("store moved aside: %v", m)
			}
		})
	}
}
