package significant

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestWrapperDropped: a theme option that drops a wrapper above the
// content (Sphinx's nosidebar drops div.bodywrapper with the sidebar)
// puts the content root in a place the model never saw; the page's root
// is found again by its own signature (div.body), or its own
// and its parent's (a bare <section> in div.body), and no page moves,
// while a content edit in the new layout still moves its page.
func TestWrapperDropped(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string // the content root, %s its content
	}{
		{"own signature", `<div class="body"><h1>Title %[1]d</h1>%[2]s</div>`},
		{"with its parent", `<div class="body"><section id="s%[1]d"><h1>Title %[1]d</h1>%[2]s<section id="t%[1]d"><h2>More</h2><p>On %[1]d.</p></section></section></div>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := func(i int, sidebar bool, text string) string {
				content := fmt.Sprintf(tc.body, i, "<p>"+text+"</p>")
				if sidebar {
					content = `<div class="bodywrapper">` + content + `</div><div class="sidebar"><h3>Contents</h3><a href="/a.html">A</a><a href="/b.html">B</a></div>`
				}
				return `<!DOCTYPE html><html><head><title>T</title></head><body><div class="related"><a href="/">Home</a>` +
					fmt.Sprintf(`<a href="/p%d.html">previous</a> <a href="/p%d.html">next</a> » Page %d</div><div class="document">`, i-1, i+1, i) +
					content + `</div><div class="footer">© 2026</div></body></html>`
			}
			site := func(sidebar bool, edit int) map[string]string {
				s := map[string]string{}
				for i := range 12 {
					text := para(fmt.Sprint("page", i), 0) + "</p><p>" + para(fmt.Sprint("page", i), 1)
					if i == edit {
						text += " Changed."
					}
					s[fmt.Sprintf("/p%d.html", i)] = page(i, sidebar, text)
				}
				return s
			}
			before := readAll(t, site(true, -1))
			m := learn(before)
			if len(m.anchors.keys) == 0 {
				t.Fatal("no root anchored")
			}
			// A model extended keeps its anchors.
			l := NewLearner(m)
			for _, p := range readAll(t, site(false, -1)) {
				l.Add(p)
			}
			if ext := l.Model(); !isSubset(m.anchors.keys, &ext.anchors) {
				t.Error("the extended model lost anchors")
			}
			for name, after := range map[string]map[string]*Page{"no sidebar": readAll(t, site(false, -1)), "no sidebar, p3 edited": readAll(t, site(false, 3))} {
				for path, p := range after {
					d := m.Print(before[path]).Diff(m.Print(p))
					want := Parts(0)
					if strings.Contains(name, "edited") && path == "/p3.html" {
						want = Text
					}
					if d != want {
						t.Errorf("%s: %s moved in %s, want %s", name, path, d, want)
					}
				}
			}
		})
	}
}

// TestWrapperRoot: pages with little of their own (an index, a search
// page) have for their content root a wrapper around other pages' roots,
// with the site's menu and sidebar in it; a theme option that adds an
// entry to the menu (in a region empty on every page so far) and to the
// sidebar (a region new directly in the wrapper) moves none of them.
func TestWrapperRoot(t *testing.T) {
	page := func(main string, extra bool) string {
		nav, side := "", ""
		if extra {
			nav = `<div class="nav-item"><a href="https://github.com/w/w">GitHub</a></div>`
			side = `<div class="nav-item"><a href="https://github.com/w/w">GitHub</a></div>`
		}
		return `<!DOCTYPE html><html><head><title>T</title></head><body><div class="app"><div class="container">` +
			`<div class="navbar"><a href="/">Widget</a><div class="links">` + nav + `</div></div>` + side +
			`<div class="sidebar"><a href="/a.html">A</a><a href="/b.html">B</a><a href="/c.html">C</a></div>` +
			main + `<div class="footer">© 2026 Widget</div></div></div></body></html>`
	}
	content := func(i int) string {
		return fmt.Sprintf(`<div class="crumbs"><a href="/">Docs</a> » Page %d</div><div class="page"><div class="content"><div class="section"><h1>Page %d</h1><p>%s</p><p>%s</p></div></div></div>`,
			i, i, para(fmt.Sprint("page", i), 0), para(fmt.Sprint("page", i), 1))
	}
	// An index: its title in the breadcrumbs and its heading, and no
	// section of text: no child of the wrapper holds three quarters of
	// what it has of its own.
	little := func(name string) string {
		return fmt.Sprintf(`<div class="crumbs"><a href="/">Docs</a> » %s</div><div class="page"><div class="content"><h1>%s</h1></div></div>`, name, name)
	}
	site := func(extra bool) map[string]string {
		s := map[string]string{"/genindex.html": page(little("Index"), extra), "/search.html": page(little("Search"), extra)}
		for i := range 10 {
			s[fmt.Sprintf("/p%d.html", i)] = page(content(i), extra)
		}
		return s
	}
	before := readAll(t, site(false))
	m := learn(before)
	for path, p := range readAll(t, site(true)) {
		if d := m.Print(before[path]).Diff(m.Print(p)); d != 0 {
			t.Errorf("%s moved in %s", path, d)
		}
	}
}

func isSubset(keys []uint64, s *set) bool {
	for _, k := range keys {
		if !s.has(k) {
			return false
		}
	}
	return true
}

// TestModelVersion1: a model stored by the learner before anchors (stored
// form version 1) is read as it was, anchorless, and judges pages as
// before (TestPrintsStableMutated holds its Prints); stored again, it is
// of version 2 and the same model.
func TestModelVersion1(t *testing.T) {
	m := storedModel(t, "model-v1.hex")
	if len(m.anchors.keys) != 0 || len(m.roots.keys) == 0 {
		t.Fatalf("version 1 model read with %d anchors, %d roots", len(m.anchors.keys), len(m.roots.keys))
	}
	b, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if b[len(magic)] != version {
		t.Errorf("stored again as version %d", b[len(magic)])
	}
	back := new(Model)
	if err := back.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	srcs, keys := stableSources(t)
	for _, k := range keys {
		p, err := Read(srcs[k], Options{URL: "https://docs.example/dir/page.html"})
		if err != nil {
			t.Fatal(err)
		}
		if m.Print(p) != back.Print(p) {
			t.Errorf("%s: another Print under the model stored again", k)
		}
	}
}

// FuzzPrintAnchored prints pages under a model with anchors and wrapper
// roots (learnt from pages like TestWrapperRoot's and TestWrapperDropped's):
// a page that drops, adds or mangles wrappers never panics, and ReadPrint
// prints what Read and Print do.
func FuzzPrintAnchored(f *testing.F) {
	var sample []string
	for i := range 8 {
		text := para(fmt.Sprint("page", i), 0)
		sample = append(sample,
			fmt.Sprintf(`<html><body><div class="app"><div class="nav"><a href="/">Home</a></div><div class="crumbs">» %d</div><div class="document"><div class="bodywrapper"><div class="body"><section><h1>T%d</h1><p>%s</p><p>%s</p></section></div></div></div></div></body></html>`, i, i, text, text),
			fmt.Sprintf(`<html><body><div class="app"><div class="nav"><a href="/">Home</a></div><div class="crumbs">» Index %d</div><div class="document"><h1>Index %d</h1></div></div></body></html>`, i, i))
	}
	l := NewLearner(nil)
	for i, s := range sample {
		p, err := Read([]byte(s), Options{URL: fmt.Sprintf("/p%d.html", i)})
		if err != nil {
			f.Fatal(err)
		}
		l.Add(p)
	}
	m := l.Model()
	if wrappers := slices.DeleteFunc(slices.Clone(m.roots.keys), func(k uint64) bool { return !m.templates.has(k) }); len(m.anchors.keys) == 0 || len(wrappers) == 0 {
		f.Fatalf("the model has %d anchors, %d wrapper roots", len(m.anchors.keys), len(wrappers))
	}
	for _, s := range sample[:2] {
		f.Add([]byte(s))
		f.Add([]byte(strings.Replace(s, `<div class="bodywrapper">`, ``, 1)))
		f.Add([]byte(strings.Replace(s, `<div class="document">`, `<div class="document"><div class="new">x</div>`, 1)))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		p, err := Read(src, Options{URL: "/p.html"})
		if err != nil {
			t.Fatal(err)
		}
		if pr, _ := ReadPrint(src, Options{URL: "/p.html"}, m); pr != m.Print(p) {
			t.Fatalf("ReadPrint = %x, Print(Read) = %x", pr.Bytes(), m.Print(p).Bytes())
		}
	})
}

// BenchmarkReanchorHostile prints, under a model that anchors div.body,
// a page with no known root and n copies of div.body: none stands for
// the root (not the only one), and finding that costs a pass over the
// nodes, not one a copy (a hostile page of n copies was n² before).
func BenchmarkReanchorHostile(b *testing.B) {
	page := func(i int, sidebar bool) string {
		content := fmt.Sprintf(`<div class="body"><h1>Title %d</h1><p>%s</p></div>`, i, para(fmt.Sprint("page", i), 0))
		if sidebar {
			content = `<div class="bodywrapper">` + content + `</div><div class="sidebar"><a href="/a.html">A</a></div>`
		}
		return `<html><body><div class="related"><a href="/">Home</a></div><div class="document">` + content + `</div></body></html>`
	}
	site := map[string]string{}
	for i := range 12 {
		site[fmt.Sprintf("/p%d.html", i)] = page(i, true)
	}
	m := learn(readAll(b, site))
	if len(m.anchors.keys) == 0 {
		b.Fatal("no root anchored")
	}
	for _, n := range []int{1_000, 10_000} {
		hostile, _ := Read([]byte(`<html><body><div class="document">`+strings.Repeat(`<div class="body"><p>x</p></div>`, n)+`</div></body></html>`), Options{})
		b.Run(fmt.Sprintf("copies=%d", n), func(b *testing.B) {
			for b.Loop() {
				m.Print(hostile)
			}
		})
	}
}
