package build

import (
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSameBytesWhicheverRule: the bytes' hash, the first and cheap test
// of whether a page changed, is the same whichever way the page was read.
// A site built under pages.lastmod: content (as every store before
// significant was) and rebuilt under significant, or the other way, after
// a redeploy of the same bytes (new mtimes) keeps every lastmod: large
// pages included, which the content rule streams and the significant rule
// reads whole (a page of some 8 KiB or more: most documentation pages;
// PostgreSQL's has 489 of 1,169).
func TestSameBytesWhicheverRule(t *testing.T) {
	for _, c := range []struct{ from, to string }{
		{"content", "significant"}, {"significant", "content"},
		{"content", "content"}, {"significant", "significant"},
	} {
		t.Run(c.from+"-"+c.to, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "root")
			state := t.TempDir()
			th := theme{year: "2026", css: "a1", built: "1"}
			long := map[int]string{}
			for i := range sitePages {
				// Pages of 1 to 40 KiB: either side of a small page.
				long[i] = "<p>" + strings.Repeat(fmt.Sprintf("Sentence %d of page %d. ", i, i), 1+i*i*40) + "</p>"
			}
			writeThemed(t, root, th, long, defaultMTime)
			build := func(rule string) *Report {
				t.Helper()
				cfg := loadConfig(t, baseConfig, root, "state_dir: "+state+"\npages: {lastmod: "+rule+"}\n")
				e, _ := newEngine(t, cfg)
				return mustBuild(t, e)
			}
			build(c.from)
			before := lastmods(t, filepath.Join(root, "docs", "sitemap.xml"))
			maps.Copy(before, lastmods(t, filepath.Join(root, "blog", "sitemap.xml")))
			// A redeploy of the same bytes: every page gets a later mtime.
			for _, p := range sitePages {
				rewrite(t, filepath.Join(root, p), defaultMTime.Add(time.Hour), true)
			}
			rep := build(c.to)
			after := lastmods(t, filepath.Join(root, "docs", "sitemap.xml"))
			maps.Copy(after, lastmods(t, filepath.Join(root, "blog", "sitemap.xml")))
			if !maps.Equal(after, before) {
				t.Errorf("the same bytes, redeployed, moved lastmods:\n%v\nwere\n%v", after, before)
			}
			if rep.Lastmods.MovedBytes != 0 || rep.Lastmods.Moved != 0 {
				t.Errorf("%d pages taken for other bytes, %d for other content; the bytes are the same", rep.Lastmods.MovedBytes, rep.Lastmods.Moved)
			}
		})
	}
}
