package daemon

import (
	"fmt"
	"html"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// templateDeploy rewrites every page of a directory with what a site
// generator's new build changes in its template (a script added, a build
// stamp) and checks the rule of pages.lastmod: significant: none of them
// is owed to search engines as changed.
func (m *model) templateDeploy(logf func(string, ...any)) {
	h := m.h
	d := m.existing(true)
	h.sync() // what came before is published
	n := h.published()
	var rewritten []string
	entries, _ := os.ReadDir(h.path(d))
	for _, e := range entries {
		p := h.path(filepath.Join(d, e.Name()))
		b, err := os.ReadFile(p)
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".html") || strings.HasPrefix(e.Name(), "zz-sync") || err != nil {
			continue
		}
		b = append(b, fmt.Sprintf("<script src=\"/app.%d.js\"></script><!-- built %d -->", n, m.r.Int())...)
		if os.WriteFile(p, b, 0o644) == nil {
			rewritten = append(rewritten, filepath.ToSlash(filepath.Join(d, e.Name())))
		}
	}
	logf("template deploy of %q: %d pages", d, len(rewritten))
	h.sync()
	for _, u := range h.changesSince(n).Changed {
		if slices.Contains(rewritten, strings.TrimPrefix(sitePath(u), "/")) {
			h.t.Errorf("a template-only change moved the lastmod of %s", u)
		}
	}
}

// contentEdit changes a page's title and checks it is owed as changed:
// what a page says moves its lastmod.
func (m *model) contentEdit(logf func(string, ...any)) {
	h := m.h
	f := m.existing(false)
	if f == "" || !strings.HasSuffix(f, ".html") || strings.HasPrefix(filepath.Base(f), "zz-sync") || strings.Contains(f, "bigburst") {
		return
	}
	h.sync()
	n := h.published()
	b, err := os.ReadFile(h.path(f))
	st, serr := os.Stat(h.path(f))
	if err != nil || serr != nil {
		return
	}
	// A lastmod is to the second: an edit within the second the page was
	// written in shows the same one, and is rightly no change. (The
	// kernel stamps files from a coarse clock, some milliseconds behind.)
	time.Sleep(time.Until(st.ModTime().Truncate(time.Second).Add(time.Second + 50*time.Millisecond)))
	logf("content edit of %s", f)
	// The title: what every page of the model says (most have nothing
	// else), and a part of what a page says under any template.
	edited := strings.Replace(string(b), "</title>", fmt.Sprintf(" (edit %d)</title>", n), 1)
	if edited == string(b) {
		edited = fmt.Sprintf("<title>edit %d</title>", n) + edited
	}
	if os.WriteFile(h.path(f), []byte(edited), 0o644) != nil {
		return
	}
	h.sync()
	c := h.changesSince(n)
	rel := "/" + filepath.ToSlash(f)
	owed := slices.ContainsFunc(c.Changed, func(u string) bool { return sitePath(u) == rel })
	if h.listed(rel) && !owed {
		h.t.Errorf("a content edit of %s was not owed as changed (changes %+v)", f, c)
	}
	// Nothing else is: but the file's other names (hard links), which
	// say the same, and pages whose future mtime may have come meanwhile.
	if time.Now().After(m.future) {
		names := m.namesOf(f)
		for _, u := range c.Changed {
			if !names[pagePath(sitePath(u))] {
				h.t.Errorf("a content edit of %s also owed %s as changed", f, u)
			}
		}
	}
}

// namesOf is the site paths of every name below the root of the file f
// is (f itself, and its hard links).
func (m *model) namesOf(f string) map[string]bool {
	names := map[string]bool{pagePath("/" + filepath.ToSlash(f)): true}
	st, err := os.Stat(m.h.path(f))
	if err != nil {
		return names
	}
	filepath.WalkDir(m.h.root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if other, err := os.Stat(p); err == nil && os.SameFile(st, other) {
			rel, _ := filepath.Rel(m.h.root, p)
			names[pagePath("/"+filepath.ToSlash(rel))] = true
		}
		return nil
	})
	return names
}

// pagePath is a page's site path as its URL has it: an index.html is its
// directory.
func pagePath(p string) string {
	if strings.HasSuffix(p, "/index.html") {
		return strings.TrimSuffix(p, "index.html")
	}
	return p
}

// sitePath is the path of a page URL, percent-decoding undone.
func sitePath(u string) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return parsed.Path
}

var locRE = regexp.MustCompile(`<loc>([^<]+)</loc>`)

// listed reports whether some sitemap of the root lists the page at a
// site path.
func (h *harness) listed(path string) bool {
	found := false
	filepath.WalkDir(h.root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasPrefix(d.Name(), "sitemap") || filepath.Ext(p) != ".xml" {
			return nil
		}
		b, _ := os.ReadFile(p)
		for _, m := range locRE.FindAllStringSubmatch(string(b), -1) {
			if sitePath(html.UnescapeString(m[1])) == path {
				found = true
			}
		}
		return nil
	})
	return found
}
