package significant

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

// theme is a template of <div class=…> only: what learning must tell from
// the content. Its knobs are the template changes of a deploy.
type theme struct {
	year   int
	extra  string // one more entry in the menu
	widget bool   // a widget in the sidebar
	stamp  string // the build time in the footer
}

// synthSite writes n pages of a site in a theme; edit changes one page's
// content.
func synthSite(n int, th theme, edit func(i int, content string) string) map[string]string {
	var menu strings.Builder
	for i := range n {
		fmt.Fprintf(&menu, `<li><a href="/p%d.html">Page %d</a></li>`, i, i)
	}
	if th.extra != "" {
		fmt.Fprintf(&menu, `<li><a href="/%s.html">%s</a></li>`, th.extra, th.extra)
	}
	pages := map[string]string{}
	for i := range n {
		content := fmt.Sprintf(`<h2>Section %d</h2><p>%s</p><p>%s <a href="/p%d.html">next</a>.</p><img src="/img/%d.png" alt="figure %d">`,
			i, para(fmt.Sprint("page", i), 0), para(fmt.Sprint("page", i), 1), (i+1)%n, i, i)
		if edit != nil {
			content = edit(i, content)
		}
		widget := ""
		if th.widget {
			widget = `<div class="widget"><p>Follow us</p><a href="https://social.example/w">w</a></div>`
		}
		pages[fmt.Sprintf("/p%d.html", i)] = fmt.Sprintf(`<!DOCTYPE html><html><head><title>Page %d</title><link rel="stylesheet" href="/s.css"></head>
<body class="page-%d"><div class="top"><div class="brand">Site</div><ul class="menu">%s</ul></div>
<div class="wrap"><div class="side"><p>About this site.</p>%s</div>
<div class="main" id="post-%d"><div class="crumbs"><a href="/">Home</a> › Page %d</div><h1>Page %d</h1><div class="body">%s</div>
<div class="pager"><a href="/p%d.html">Previous</a></div></div></div>
<div class="bottom"><p>© %d Site</p><p>%s</p></div></body></html>`,
			i, i, strings.Replace(menu.String(), fmt.Sprintf(`<li><a href="/p%d.html">`, i), fmt.Sprintf(`<li class="current"><a href="/p%d.html">`, i), 1),
			widget, i, i, i, content, (i+n-1)%n, th.year, th.stamp)
	}
	return pages
}

func readAll(t testing.TB, site map[string]string) map[string]*Page {
	t.Helper()
	out := map[string]*Page{}
	for path, src := range site {
		p, err := Read([]byte(src), Options{URL: path})
		if err != nil {
			t.Fatal(err)
		}
		out[path] = p
	}
	return out
}

// TestDeploy: a template change seen page by page under the model learnt
// before it moves nothing; a content change moves its page.
func TestDeploy(t *testing.T) {
	old := theme{year: 2026, stamp: "built 10:00"}
	pages := readAll(t, synthSite(20, old, nil))
	m := learn(pages)
	if _, roots, _ := m.Regions(); roots == 0 {
		t.Fatal("no content root learnt")
	}
	for name, th := range map[string]theme{
		"year":   {year: 2027, stamp: old.stamp},
		"stamp":  {year: 2026, stamp: "built 11:42:07"},
		"menu":   {year: 2026, stamp: old.stamp, extra: "Contact"},
		"widget": {year: 2026, stamp: old.stamp, widget: true},
		"all":    {year: 2027, stamp: "built 12:00", extra: "Press", widget: true},
	} {
		for path, p := range readAll(t, synthSite(20, th, nil)) {
			if d := m.Print(pages[path]).Diff(m.Print(p)); d != 0 {
				t.Errorf("%s: %s: moved in %s", name, path, d)
			}
		}
	}
	edited := readAll(t, synthSite(20, old, func(i int, c string) string {
		switch i {
		case 3:
			return strings.Replace(c, "paragraph A", "paragraph one", 1)
		case 4:
			return c + "<table><tr><td>a new table</td></tr></table>" // a new region in the content
		case 5:
			return strings.Replace(c, ".png", ".jpg", 1)
		}
		return c
	}))
	for path, p := range edited {
		want := map[string]Parts{"/p3.html": Text, "/p4.html": Text, "/p5.html": Images}[path]
		if d := m.Print(pages[path]).Diff(m.Print(p)); d != want {
			t.Errorf("%s: moved in %s, want %s", path, d, want)
		}
	}
}

// TestModelStored: the same sample makes the same model, whatever the
// order it is added in, and the model survives its stored form.
func TestModelStored(t *testing.T) {
	pages := readAll(t, synthSite(12, theme{year: 2026}, nil))
	paths := slices.Sorted(func(yield func(string) bool) {
		for p := range pages {
			if !yield(p) {
				return
			}
		}
	})
	var stored [][]byte
	reversed := slices.Clone(paths)
	slices.Reverse(reversed)
	for _, order := range [][]string{paths, reversed} {
		l := NewLearner(nil)
		for _, p := range order {
			l.Add(pages[p])
		}
		b, err := l.Model().MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		stored = append(stored, b)
	}
	if !bytes.Equal(stored[0], stored[1]) {
		t.Fatal("the model depends on the order of the pages")
	}
	m := learn(pages)
	var back Model
	if err := back.UnmarshalBinary(stored[0]); err != nil {
		t.Fatal(err)
	}
	for path, p := range pages {
		if m.Print(p) != back.Print(p) {
			t.Errorf("%s: another Print under the model read back", path)
		}
	}
	t.Logf("model of %d pages: %d bytes", len(pages), len(stored[0]))
	for _, bad := range [][]byte{nil, []byte("SIGM"), append([]byte("SIGM\x03"), stored[0][5:]...), stored[0][:len(stored[0])-1], append(slices.Clone(stored[0]), 0)} {
		var m Model
		if err := m.UnmarshalBinary(bad); err == nil {
			t.Errorf("%q read as a model", bad)
		}
	}
	var none *Model
	if _, err := none.MarshalBinary(); err == nil {
		t.Error("a nil model marshalled")
	}
}

// TestExtend: a model extended with a sample that has a new kind of page
// keeps every verdict it had: Prints of the pages it knew do not move,
// and the new kind's content counts.
func TestExtend(t *testing.T) {
	site := synthSite(12, theme{year: 2026}, nil)
	pages := readAll(t, site)
	base := learn(pages)
	landing := map[string]string{}
	for i := range 4 {
		landing[fmt.Sprintf("/l%d.html", i)] = strings.Replace(site["/p0.html"], `<div class="main" id="post-0">`,
			fmt.Sprintf(`<div class="hero"><p>%s</p><p>%s</p></div><div class="main" id="post-0">`, para(fmt.Sprint("landing", i), 0), para(fmt.Sprint("landing", i), 1)), 1)
	}
	l := NewLearner(base)
	for _, p := range pages {
		l.Add(p)
	}
	newPages := readAll(t, landing)
	for _, p := range newPages {
		l.Add(p)
	}
	ext := l.Model()
	for path, p := range pages {
		if base.Print(p) != ext.Print(p) {
			t.Errorf("%s: moved when the model was extended", path)
		}
	}
	bs, _, _ := base.Regions()
	es, _, _ := ext.Regions()
	if es <= bs {
		t.Errorf("extended model saw %d regions, base %d", es, bs)
	}
	p := newPages["/l0.html"]
	if k, n := base.Known(p); k == n {
		t.Errorf("base knows all %d blocks of a new kind of page", n)
	}
	if k, n := ext.Known(p); k != n {
		t.Errorf("the extended model knows %d of %d blocks of the page it learnt", k, n)
	}
	if ext.Pages() != base.Pages()+l.Len() {
		t.Errorf("pages: %d, want %d", ext.Pages(), base.Pages()+l.Len())
	}
}

// TestConcurrent: Read and Print from many goroutines at once (go test
// -race) give what they give one at a time.
func TestConcurrent(t *testing.T) {
	site := synthSite(10, theme{year: 2026}, nil)
	m := learn(readAll(t, site))
	want := map[string]Print{}
	for path, p := range readAll(t, site) {
		want[path] = m.Print(p)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				for path, src := range site {
					p, err := Read([]byte(src), Options{URL: path})
					if err != nil {
						t.Error(err)
						return
					}
					if got := m.Print(p); got != want[path] {
						t.Errorf("%s: %v, want %v", path, got, want[path])
					}
				}
			}
		})
	}
	wg.Wait()
}
