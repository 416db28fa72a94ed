package build

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// TestRewrittenPartKeepsItsMTime: a part written again with the bytes it
// held (removed by a deploy, or missing from a new release) lands with
// the mtime it had, as the groups record keeps it, so the index's lastmod
// for it does not move; a part whose bytes change takes a new one. A
// record of the older layout (no sums) is read all the same: its
// shortcut holds, and a part rewritten takes a new mtime.
func TestRewrittenPartKeepsItsMTime(t *testing.T) {
	for _, tc := range []struct {
		name  string
		older bool // the record as the version before sums wrote it
		edit  bool // a page of the group edited
		kept  bool // the part's mtime is the one it had
	}{
		{name: "same bytes", kept: true},
		{name: "other bytes", edit: true},
		{name: "record without sums", older: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t0 := defaultMTime
			root, state := site(t), t.TempDir()
			for i := range 4 {
				mustWrite(t, filepath.Join(root, fmt.Sprintf("docs/p%d.html", i)), t0)
			}
			mustWrite(t, filepath.Join(root, "index.html"), t0)
			cfg := loadConfig(t, baseConfig, root, "state_dir: "+state+"\n")
			build := func() (*Engine, *Report) {
				t.Helper()
				e, _ := newEngine(t, cfg)
				return e, mustBuild(t, e)
			}
			build()
			part := filepath.Join(root, "docs/sitemap.xml")
			st, err := os.Stat(part)
			if err != nil {
				t.Fatal(err)
			}
			if tc.older {
				p := filepath.Join(state, groupsName)
				b, _ := os.ReadFile(p)
				b = regexp.MustCompile(`,"sum":"[0-9a-f]+"`).ReplaceAll(b, nil)
				os.WriteFile(p, b, 0o600)
				if e, _ := build(); e.enc.parts != 0 {
					t.Errorf("a record without sums: %d parts encoded, want none (its shortcut holds)", e.enc.parts)
				}
			}
			var rec groupsRecord
			b, _ := os.ReadFile(filepath.Join(state, groupsName))
			if err := json.Unmarshal(b, &rec); err != nil || len(rec.Groups["docs"].Parts) != 1 {
				t.Fatalf("groups record: %v\n%s", err, b)
			}
			if sum := rec.Groups["docs"].Parts[0].Sum; (sum == "") != tc.older {
				t.Errorf("record's sum %q", sum)
			}
			time.Sleep(20 * time.Millisecond) // a new mtime would differ
			os.Remove(part)
			if tc.edit {
				writeFile(t, filepath.Join(root, "docs/p1.html"), "<title>edited</title>", t0.Add(time.Hour))
			}
			build()
			now, err := os.Stat(part)
			if err != nil {
				t.Fatal(err)
			}
			if kept := now.ModTime().Equal(st.ModTime()); kept != tc.kept {
				t.Errorf("part's mtime %v, before %v: kept %v, want %v", now.ModTime(), st.ModTime(), kept, tc.kept)
			}
			if e, rep := build(); len(rep.Written) != 0 || e.enc.parts != 0 {
				t.Errorf("the build after wrote %v and encoded %d parts", rep.Written, e.enc.parts)
			}
		})
	}
}
