package main

// The site: gentree's tree, every .html page rendered as a static-site
// generator renders it, the site's template (head with fingerprinted
// assets and a build stamp, header and navigation, breadcrumbs, a sidebar,
// prev/next links to the page's neighbours in its directory, a footer)
// around the page's own content (a title, paragraphs and links drawn from
// its path). A template version changes what every page's template says;
// a page's revision adds a sentence to its content.

import (
	"fmt"
	"hash/fnv"
	"io/fs"
	"math/rand/v2"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// site is what the current release holds: its pages by directory (sorted,
// slash-separated, relative to the root) and each page's revision.
type site struct {
	tmpl  int
	dirs  map[string][]string // directory -> its pages' names, sorted
	rev   map[string]int      // page -> its content revision
	link  map[string]string   // page -> the page its content links to
	top   []string            // the top-level directories, for the navigation
	pages []string            // every page, sorted
}

// loadSite lists the .html pages of the tree at root.
func loadSite(root string) (*site, error) {
	s := &site{tmpl: 1, dirs: map[string][]string{}, rev: map[string]int{}, link: map[string]string{}}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() && rel != "." && !strings.Contains(rel, "/") {
			s.top = append(s.top, rel)
		}
		if !d.IsDir() && strings.HasSuffix(rel, ".html") {
			s.dirs[path.Dir(rel)] = append(s.dirs[path.Dir(rel)], path.Base(rel))
			s.rev[rel] = 0
		}
		return nil
	})
	for _, names := range s.dirs {
		sort.Strings(names)
	}
	s.list()
	sort.Strings(s.top)
	for _, p := range s.pages {
		s.link[p] = s.pages[seeded(p).IntN(len(s.pages))]
	}
	return s, err
}

func (s *site) add(rel string) {
	dir := path.Dir(rel)
	names := append(s.dirs[dir], path.Base(rel))
	sort.Strings(names)
	s.dirs[dir] = names
	s.rev[rel] = 0
	s.list()
	s.link[rel] = s.pages[0]
}

func (s *site) remove(rel string) {
	dir := path.Dir(rel)
	s.dirs[dir] = deleteString(s.dirs[dir], path.Base(rel))
	delete(s.rev, rel)
	delete(s.link, rel)
	s.list()
}

func (s *site) list() {
	s.pages = s.pages[:0]
	for p := range s.rev {
		s.pages = append(s.pages, p)
	}
	sort.Strings(s.pages)
}

func deleteString(xs []string, x string) []string {
	for i, y := range xs {
		if y == x {
			return append(xs[:i:i], xs[i+1:]...)
		}
	}
	return xs
}

// neighbours are the pages before and after rel in its directory ("" at
// either end).
func (s *site) neighbours(rel string) (prev, next string) {
	names := s.dirs[path.Dir(rel)]
	i := sort.SearchStrings(names, path.Base(rel))
	if i > 0 {
		prev = names[i-1]
	}
	if i+1 < len(names) {
		next = names[i+1]
	}
	return prev, next
}

// write renders the pages rels into the release at dir.
func (s *site) write(dir string, rels ...string) error {
	for _, rel := range rels {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(rel)), s.render(rel), 0o644); err != nil {
			return fmt.Errorf("rendering %s: %w", rel, err)
		}
	}
	return nil
}

var words = strings.Fields(`the a of to and in is for that with on as by this be are from at or an it
release server request index query table column value system data client page document version
configuration option default user file directory network memory process thread lock cache record
returns updates creates removes reads writes builds sends checks starts stops holds keeps lists
quickly rarely always never only each every some most first last new old large small other`)

func seeded(rel string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(rel))
	return rand.New(rand.NewPCG(h.Sum64(), 7))
}

func sentence(r *rand.Rand) string {
	n := 8 + r.IntN(14)
	ws := make([]string, n)
	for i := range ws {
		ws[i] = words[r.IntN(len(words))]
	}
	ws[0] = strings.ToUpper(ws[0][:1]) + ws[0][1:]
	return strings.Join(ws, " ") + "."
}

func href(rel string) string { return (&url.URL{Path: "/" + rel}).EscapedPath() }

// content is the page's own part: its title and body, from its path and
// revision only.
func (s *site) content(rel string) (title, body string) {
	r := seeded(rel)
	title = strings.TrimSuffix(path.Base(rel), ".html") + ": " + sentence(r)
	var b strings.Builder
	for p := range 4 + r.IntN(5) {
		b.WriteString("<p>")
		for range 3 + r.IntN(4) {
			b.WriteString(sentence(r) + " ")
		}
		if other := s.link[rel]; p == 1 && other != "" {
			fmt.Fprintf(&b, `See <a href="%s">%s</a>.`, href(other), path.Base(other))
		}
		b.WriteString("</p>\n")
	}
	for i := range s.rev[rel] {
		fmt.Fprintf(&b, "<p>Revision %d adds this sentence.</p>\n", i+1)
	}
	return title, b.String()
}

// render is the page rel as the generator writes it with the current
// template version.
func (s *site) render(rel string) []byte {
	title, body := s.content(rel)
	v := s.tmpl
	fp := fmt.Sprintf("%08x", uint32(v)*2654435761)
	var b strings.Builder
	fmt.Fprintf(&b, `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>%s | Example Docs</title>
<meta name="generator" content="Sitegen 2.%d">
<meta name="build" content="2026-11-%02dT10:%02d:00Z">
<link rel="stylesheet" href="/assets/site.%s.css" integrity="sha384-%s%s">
<link rel="preload" href="/assets/font.%s.woff2" as="font" crossorigin>
<script src="/assets/app.%s.js" defer></script>
</head>
<body>
<div class="top"><a class="brand" href="/">Example Docs %d</a>
<ul class="menu">`, html(title), v, 1+v%28, v%60, fp, fp, fp, fp, fp, v)
	for _, t := range s.top {
		fmt.Fprintf(&b, `<li><a href="%s/">%s</a></li>`, href(t), html(t))
	}
	b.WriteString("</ul>\n<form action=\"/search\"><input name=\"q\" placeholder=\"Search" + strings.Repeat(".", v%3) + "\"></form></div>\n")
	b.WriteString(`<div class="crumbs"><a href="/">Home</a>`)
	for d := path.Dir(rel); d != "."; d = path.Dir(d) {
		fmt.Fprintf(&b, ` / <a href="%s/">%s</a>`, href(d), html(path.Base(d)))
	}
	fmt.Fprintf(&b, "</div>\n<div class=\"wrap\"><div class=\"side\"><h4>In this section (v%d)</h4><ul>", v)
	names := s.dirs[path.Dir(rel)]
	for _, n := range names[:min(len(names), 8)] {
		fmt.Fprintf(&b, `<li><a href="%s">%s</a></li>`, href(path.Join(path.Dir(rel), n)), html(n))
	}
	fmt.Fprintf(&b, "</ul></div>\n<div class=\"content\"><h1>%s</h1>\n%s</div></div>\n<div class=\"pager\">", html(title), body)
	prev, next := s.neighbours(rel)
	if prev != "" {
		fmt.Fprintf(&b, `<a rel="prev" href="%s">Previous: %s</a> `, href(path.Join(path.Dir(rel), prev)), html(prev))
	}
	if next != "" {
		fmt.Fprintf(&b, `<a rel="next" href="%s">Next: %s</a>`, href(path.Join(path.Dir(rel), next)), html(next))
	}
	fmt.Fprintf(&b, "</div>\n<div class=\"foot\">&copy; %d Example Inc. Built with Sitegen 2.%d.</div>\n</body>\n</html>\n", 2025+v, v)
	return []byte(b.String())
}

var htmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")

func html(s string) string { return htmlEscaper.Replace(s) }
