package build

import (
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSignificantLargePages: pages larger than the walk's small-page
// buffer (8 KiB) and than its pooled large one (256 KiB) are printed
// whole from the one read that hashes them and reads their head: a
// template change moves none, a paragraph changed at their very end
// moves exactly them.
func TestSignificantLargePages(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	state := t.TempDir()
	// Each page's paragraphs its own (text repeated across pages would be
	// learnt as template).
	filler := func(page, n int) string {
		var b strings.Builder
		for k := 0; b.Len() < n; k++ {
			fmt.Fprintf(&b, "<p>Page %d goes on about what it says, in its paragraph %d.</p>\n", page, k)
		}
		return b.String()
	}
	// docs/intro.html (index 2) some 20 KB, docs/install.html (3) some
	// 300 KB; the others small.
	bodies := map[int]string{2: filler(2, 20<<10), 3: filler(3, 300<<10)}
	withEnd := func(end map[int]string) map[int]string {
		m := maps.Clone(bodies)
		for i, s := range end {
			m[i] += s
		}
		return m
	}
	writeThemed(t, root, theme{year: "2026", css: "3f9a", built: "1"}, withEnd(map[int]string{2: "<p>The end.</p>", 3: "<p>The end.</p>"}), defaultMTime)
	cfg := loadConfig(t, baseConfig, root, "state_dir: "+state+"\n")
	build := func() *Report {
		t.Helper()
		e, _ := newEngine(t, cfg)
		return mustBuild(t, e)
	}
	build()
	before := lastmods(t, filepath.Join(root, "docs", "sitemap.xml"))

	later := defaultMTime.Add(time.Hour)
	writeThemed(t, root, theme{year: "2027", css: "b7c1", built: "2"}, withEnd(map[int]string{2: "<p>The end.</p>", 3: "<p>The end.</p>"}), later)
	rep := build()
	if got := lastmods(t, filepath.Join(root, "docs", "sitemap.xml")); !maps.Equal(got, before) {
		t.Errorf("template change: lastmods moved:\n%v\nwere\n%v", got, before)
	}
	if rep.Lastmods.Kept != len(sitePages) || rep.Lastmods.Moved+rep.Lastmods.MovedBytes != 0 {
		t.Errorf("template change: %d kept, %d moved, %d by bytes; want %d kept", rep.Lastmods.Kept, rep.Lastmods.Moved, rep.Lastmods.MovedBytes, len(sitePages))
	}

	later = later.Add(time.Hour)
	writeThemed(t, root, theme{year: "2027", css: "b7c1", built: "3"}, withEnd(map[int]string{2: "<p>The end, changed.</p>", 3: "<p>The end, changed.</p>"}), later)
	rep = build()
	for loc, lm := range lastmods(t, filepath.Join(root, "docs", "sitemap.xml")) {
		moved := lm != before[loc]
		want := strings.HasSuffix(loc, "/intro.html") || strings.HasSuffix(loc, "/install.html")
		if moved != want {
			t.Errorf("end of page changed: %s: moved %v, want %v", loc, moved, want)
		}
	}
	if rep.Lastmods.Moved != 2 || rep.Lastmods.MovedBytes != 0 {
		t.Errorf("end of page changed: %d moved, %d by bytes; want 2 moved", rep.Lastmods.Moved, rep.Lastmods.MovedBytes)
	}
}
