package build

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// TestLearningOverrides: pages.template and pages.main, set in the
// configuration, decide what counts in a build. A sponsor's line inside
// every page's content, other on every page and at every build, is
// content as learnt (it moves every page) and nothing under
// pages.template: [.sponsor], where only a new paragraph moves its page;
// under pages.main: h1 only the heading counts, and the same changes move
// no page.
func TestLearningOverrides(t *testing.T) {
	th := theme{year: "2026", css: "a1", built: "1"}
	body := func(build, para int) map[int]string {
		m := map[int]string{}
		for i := range sitePages {
			m[i] = fmt.Sprintf(`<div class="sponsor"><p>This page brought to you by sponsor number %d.</p></div>`, build*100+i)
		}
		if para >= 0 {
			m[para] += "<p>A paragraph added to this page.</p>"
		}
		return m
	}
	for _, c := range []struct {
		name, pages string
		para        int      // the page given a paragraph more (-1: none)
		moved       []string // the pages of docs/ whose lastmod must move
	}{
		{"as learnt", "", -1, []string{"intro", "install", "usage", "faq"}},
		{"pages.template", "pages: {template: [.sponsor]}\n", 3, []string{"install"}},
		{"pages.main", "pages: {main: h1}\n", 4, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "root")
			writeThemed(t, root, th, body(1, -1), defaultMTime)
			cfg := loadConfig(t, baseConfig, root, "state_dir: "+t.TempDir()+"\n"+c.pages)
			e, _ := newEngine(t, cfg)
			mustBuild(t, e)
			before := lastmods(t, filepath.Join(root, "docs", "sitemap.xml"))
			writeThemed(t, root, th, body(2, c.para), defaultMTime.Add(time.Hour))
			e, _ = newEngine(t, cfg)
			mustBuild(t, e)
			after := lastmods(t, filepath.Join(root, "docs", "sitemap.xml"))
			for loc, lm := range after {
				moved := lm != before[loc]
				want := false
				for _, p := range c.moved {
					want = want || loc == "https://static.test/docs/"+p+".html"
				}
				if moved != want {
					t.Errorf("%s: lastmod moved %v, want %v", loc, moved, want)
				}
			}
		})
	}
}
