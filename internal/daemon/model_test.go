package daemon

import (
	"fmt"
	"html"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestModel runs random sequences of the operations a real server sees and
// checks, once the daemon is idle, that its files equal a fresh full build.
func TestModel(t *testing.T) {
	// 17 edits a file through a name robots.txt leaves out, 23 makes a
	// link whose other name an exclude later takes out of the watch, 126
	// moves a section away and makes a new one of its name, whose text
	// sitemap may be written before the moved one's group is published.
	seeds := []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 17, 23, 126}
	if testing.Short() {
		seeds = seeds[:1]
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			// Every feature that writes files is on: text sitemaps, the
			// feed, images and an extra_urls file too.
			// The shrink guard is off: it refuses (in the daemon as in the
			// full build it is compared with) what random steps may well
			// do, leave out most of the site; TestShrinkGuard* test it.
			h := start(t, modelConfig(nil))
			m := &model{h: h, r: rand.New(rand.NewPCG(seed, seed))}
			m.play()
			h.checkOracle()
		})
	}
}

// TestModelMultiSite is TestModel with the tree as one site of a process
// serving two, on one inotify instance: the files its moves take out of
// the root land in the other site's root (outside/), so both change;
// each site's files must equal a fresh full build of it.
func TestModelMultiSite(t *testing.T) {
	seeds := []uint64{1, 2, 3}
	if testing.Short() {
		seeds = seeds[:1]
	}
	site := func(name, root, extra string) string {
		return fmt.Sprintf("  - name: %s\n    root: %s\n    base_url: https://%s.test/\n"+
			"    watch: {settle: 100ms, max_delay: 1s, rescan: 0s}\n%s", name, root, name, extra)
	}
	indent := func(keys string) string {
		return strings.ReplaceAll(strings.TrimSuffix("    "+keys, "\n"), "\n", "\n    ") + "\n"
	}
	configFor := func(extra string) string {
		return "state_dir: state\nsites:\n" + site("static", "root", "    depth: 1\n"+indent(extra)) +
			// XML only: a directory moved out of root/ takes root's
			// text sitemaps with it, which the neighbour rightly does not
			// own (they are in root's record, not its own).
			site("neighbour", "outside", "    depth: 2\n    shrink_guard: false\n")
	}
	body := configFor(modelConfig(nil))
	for _, seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			h := startConfig(t, body)
			h.configFor = configFor
			m := &model{h: h, r: rand.New(rand.NewPCG(seed, seed))}
			m.play()
			// The neighbour's last changes settle as the root's do: a page
			// written there now is published after them.
			os.WriteFile(filepath.Join(h.dir, "outside", "zz-last.html"), []byte("x"), 0o644)
			h.waitFor("the neighbour's last page", func() bool {
				b, _ := os.ReadFile(filepath.Join(h.dir, "outside", "sitemap.xml"))
				return strings.Contains(string(b), "zz-last.html")
			})
			h.checkOracle()
		})
	}
}

// play takes 60 random steps, then waits until the daemon has published
// them all.
func (m *model) play() {
	for i := range 60 {
		m.step(i)
		if i%20 == 19 {
			m.h.sync()
		}
	}
	// Pages given a future mtime get their lastmod when it comes, by the
	// daemon's timer: wait for the last of them.
	if wait := time.Until(m.future); wait > 0 {
		m.h.t.Logf("waiting %v for the last future mtime to pass", wait.Round(time.Millisecond))
		time.Sleep(wait + 200*time.Millisecond)
	}
	// The URL file's events reach the daemon on another stream than the
	// root's, whose events sync waits for: a last write, waited for, puts
	// its latest change behind. (A URL file that cannot be read keeps its
	// sitemap, in the daemon as in a full build, which then fails:
	// build.TestURLFileMissing checks that.)
	m.h.t.Log("rewrite the URL file for the oracle")
	m.writeURLFile(true, "https://static.test/app/final")
	m.h.waitFor("the URL file's last version", func() bool {
		parts, _ := filepath.Glob(m.h.path("sitemap-urls-site*.xml"))
		for _, p := range parts {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), "https://static.test/app/final") {
				return true
			}
		}
		return false
	})
	m.h.sync()
}

// modelConfig is the model's configuration, beyond testConfig.
func modelConfig(exclude []string) string {
	// A short feed, so that random changes move its entries often.
	c := "formats: [xml, txt]\nshrink_guard: false\nfeed: {name: changes.atom, entries: 5}\nextra_urls: [etc/site.urls]\n" +
		"pages:\n  images: true\n  image_hosts: [cdn.static.test]\n"
	if exclude != nil {
		c += fmt.Sprintf("  exclude: [%q]\n", exclude[0])
	}
	return c
}

type model struct {
	h      *harness
	r      *rand.Rand
	n      int
	future time.Time // the latest future mtime given
	linked []string  // pages given another name
	// excluded is the tree the configuration excludes ("" for none): it
	// is not watched.
	excluded string
}

var dirs = []string{"", "a", "a/b", "a/b/c", "blog", "blog/2024", "docs", "x y", "caf\u00e9"}

func (m *model) dir() string {
	d := dirs[m.r.IntN(len(dirs))]
	return d
}

func (m *model) name() string {
	m.n++
	return fmt.Sprintf("p%d.html", m.n)
}

// partner returns a page other than f below the root, picked by n, or f
// when there is none.
func (m *model) partner(f string, n int) string {
	var pages []string
	filepath.WalkDir(m.h.root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(d.Name()) != ".html" {
			return nil
		}
		if rel, _ := filepath.Rel(m.h.root, p); rel != f {
			pages = append(pages, rel)
		}
		return nil
	})
	if len(pages) == 0 {
		return f
	}
	return pages[n%len(pages)]
}

// existing returns a random page or directory below the root, or "".
func (m *model) existing(wantDir bool) string {
	var found []string
	filepath.WalkDir(m.h.root, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == m.h.root {
			return nil
		}
		rel, _ := filepath.Rel(m.h.root, p)
		if d.IsDir() == wantDir && !strings.Contains(d.Name(), "sitemap") && filepath.Ext(d.Name()) != ".atom" {
			found = append(found, rel)
		}
		return nil
	})
	if len(found) == 0 {
		return ""
	}
	return found[m.r.IntN(len(found))]
}

// stillLinked returns the pages given another name that still have more
// than one (a rename over a name, or a removal, ends a link).
func (m *model) stillLinked() []string {
	var out []string
	for _, f := range m.linked {
		var st syscall.Stat_t
		if syscall.Stat(m.h.path(f), &st) == nil && st.Nlink > 1 {
			out = append(out, f)
		}
	}
	return out
}

// step performs one random operation and logs it, so that a failure
// names the sequence that led to it.
func (m *model) step(i int) {
	h, r := m.h, m.r
	logf := func(format string, args ...any) { h.t.Logf("step %d: "+format, append([]any{i}, args...)...) }
	if i == 30 { // once per sequence, a burst of thousands
		d := filepath.Join(m.dir(), "bigburst")
		logf("write 2000 files in %s", d)
		for j := range 2000 {
			h.write(filepath.Join(d, fmt.Sprintf("d%d/f%d.html", j%10, j)))
		}
		return
	}
	switch op := r.IntN(24); op {
	case 22: // a template deploy: a directory's pages get a new script and build stamp
		m.templateDeploy(logf)
	case 23: // a content edit, which must be owed
		m.contentEdit(logf)
	case 20: // the URL file rewritten, in place or by a rename over it
		renameOver := r.IntN(2) == 0
		logf("rewrite the URL file (rename over it: %v)", renameOver)
		m.writeURLFile(renameOver)
	case 21: // the URL file removed (its sitemap stays as it was), or back
		if r.IntN(3) > 0 {
			logf("write the URL file")
			m.writeURLFile(false)
			break
		}
		logf("rm the URL file")
		os.Remove(h.urlFile())
	case 0, 1: // create
		f := filepath.Join(m.dir(), m.name())
		logf("create %s", f)
		h.write(f)
	case 2: // write again with a new mtime
		if f := m.existing(false); f != "" {
			logf("rewrite %s", f)
			h.write(f)
			mt := time.Now().Add(-time.Duration(1+r.IntN(1000)) * time.Second) // past: a future mtime has no lastmod until it passes
			os.Chtimes(h.path(f), mt, mt)
		}
	case 3: // delete
		if f := m.existing(false); f != "" {
			logf("rm %s", f)
			os.Remove(h.path(f))
		}
	case 4: // rename a file, maybe across directories
		if f := m.existing(false); f != "" {
			to := filepath.Join(m.dir(), m.name())
			logf("mv %s %s", f, to)
			os.MkdirAll(filepath.Dir(h.path(to)), 0o755)
			os.Rename(h.path(f), h.path(to))
		}
	case 5: // rename a directory
		if d := m.existing(true); d != "" {
			to := filepath.Join(filepath.Dir(d), fmt.Sprintf("moved%d", i))
			logf("mv %s/ %s/", d, to)
			os.Rename(h.path(d), h.path(to))
		}
	case 6: // move a pre-populated tree in from outside
		src := filepath.Join(h.dir, "outside", fmt.Sprintf("tree%d", i))
		for _, f := range []string{"t/a.html", "t/u/b.html", "t/u/v/c.html"} {
			p := filepath.Join(src, f)
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte("x"), 0o644)
		}
		to := filepath.Join(m.dir(), fmt.Sprintf("in%d", i))
		logf("mv outside/tree%d/ %s/", i, to)
		os.Rename(src, h.path(to))
	case 7: // move a tree out
		if d := m.existing(true); d != "" {
			logf("mv %s/ outside/out%d/", d, i)
			os.Rename(h.path(d), filepath.Join(h.dir, "outside", fmt.Sprintf("out%d", i)))
		}
	case 8: // mkdir -p and write at once
		d := filepath.Join(m.dir(), fmt.Sprintf("new%d/deep/er", i))
		logf("mkdir -p %s; write a.html there and b.html above", d)
		h.write(filepath.Join(d, "a.html"))
		h.write(filepath.Join(filepath.Dir(d), "b.html"))
	case 9: // a vim save (backupcopy=no)
		if f := m.existing(false); f != "" {
			logf("vim save %s", f)
			p := h.path(f)
			probe := filepath.Join(filepath.Dir(p), "4913")
			os.WriteFile(probe, nil, 0o644)
			os.Remove(probe)
			os.WriteFile(filepath.Join(filepath.Dir(p), "."+filepath.Base(p)+".swp"), []byte("swap"), 0o644)
			os.Rename(p, p+"~")
			os.WriteFile(p, []byte("saved"), 0o644)
			os.Remove(p + "~")
			os.Remove(filepath.Join(filepath.Dir(p), "."+filepath.Base(p)+".swp"))
		}
	case 10: // a burst of files
		d := filepath.Join(m.dir(), fmt.Sprintf("burst%d", i))
		logf("write 300 files in %s", d)
		for j := range 300 {
			h.write(filepath.Join(d, fmt.Sprintf("f%d.html", j)))
		}
	case 12: // new robots.txt rules, or none
		if r.IntN(3) == 0 {
			logf("rm robots.txt")
			os.Remove(h.path("robots.txt"))
			break
		}
		d := m.dir()
		logf("robots.txt: Disallow /%s/", d)
		os.WriteFile(h.path("robots.txt"), []byte("User-agent: *\nDisallow: /"+(&url.URL{Path: d}).EscapedPath()+"/\n"), 0o644)
	case 13: // a new head: what it says decides whether and how the page is listed
		if f := m.existing(false); f != "" {
			heads := []string{
				`<meta name="robots" content="noindex">`,
				`<link rel="canonical" href="/elsewhere.html">`,
				`<link rel="canonical" href="` + filepath.Base(f) + `">`, // itself
				"", // language versions: f and a partner name each other (below)
				`<title>plain</title>`,
				`<meta http-equiv="refresh" content="0; url=/">`,         // a redirect stub
				`<meta http-equiv="refresh" content="30; url=/"><title>`, // shown first: listed
			}
			// Images after the head, by the step (not by r, so that the
			// sequences stay those the model had before images): in the
			// head, in the body, on other hosts, past the 8 KiB a page
			// is read at once in, or none.
			images := []string{
				`<meta property="og:image" content="/og.png"></head><body><img src="a.jpg" srcset="a.jpg 1x, a@2x.jpg 2x">`,
				`</head><body><picture><source srcset="/p.avif"><img src="https://cdn.static.test/p.jpg"></picture><img src="https://elsewhere.test/x.jpg">`,
				`</head><body><p>` + strings.Repeat("text ", 2000) + `<img src="late.jpg"><img src="../up.png">`,
				``,
			}
			head := heads[r.IntN(len(heads))]
			if head == "" {
				// Two pages that name each other and themselves: what
				// becomes of one (removed, moved, left out, rewritten)
				// changes the other's entry too. The partner is picked
				// by the step, not by r, so that the sequences stay
				// those the model had before.
				g := m.partner(f, i)
				head = `<link rel="alternate" hreflang="en" href="` + (&url.URL{Path: "/" + filepath.ToSlash(f)}).EscapedPath() +
					`"><link rel="alternate" hreflang="de" href="` + (&url.URL{Path: "/" + filepath.ToSlash(g)}).EscapedPath() + `">`
				if g != f {
					logf("write %s: %s", g, head)
					if err := os.WriteFile(h.path(g), []byte("<!doctype html><head>"+head+"</head>"), 0o644); err != nil {
						h.t.Fatal(err)
					}
				}
			}
			head += images[i%len(images)]
			logf("write %s: %s", f, head)
			if err := os.WriteFile(h.path(f), []byte("<!doctype html><head>"+head+"</head>"), 0o644); err != nil {
				h.t.Fatal(err)
			}
		}
	case 14: // an error page, as servers and generators write them
		f := filepath.Join(m.dir(), []string{"404.html", "50x.html", "not_found.html"}[r.IntN(3)])
		logf("create error page %s", f)
		h.write(f)
	case 15: // a new configuration: another directory excluded, or none
		var exclude []string
		m.excluded = ""
		if d := m.dir(); d != "" && r.IntN(3) > 0 {
			exclude = []string{"/" + d + "/**"}
			m.excluded = d
		}
		logf("reload with exclude %q", exclude)
		if err := os.WriteFile(h.cfgPath, []byte(h.configFor(modelConfig(exclude))), 0o644); err != nil {
			h.t.Fatal(err)
		}
		h.reload <- struct{}{}
		h.sync() // the new configuration serves
	case 16: // a redeploy: every page of a directory rewritten with the same bytes
		d := m.existing(true)
		if r.IntN(3) == 0 {
			d = "" // the root
		}
		inPlace := r.IntN(2) == 0
		logf("rewrite every page of %q with the same bytes (in place: %v)", d, inPlace)
		entries, _ := os.ReadDir(h.path(d))
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".html") || strings.HasPrefix(e.Name(), "zz-sync") {
				continue
			}
			p := h.path(filepath.Join(d, e.Name()))
			b, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			if inPlace {
				os.WriteFile(p, b, 0o644)
			} else { // a generator's temp file and rename, a new inode
				tmp := filepath.Join(filepath.Dir(p), ".tmp-"+e.Name())
				os.WriteFile(tmp, b, 0o644)
				os.Rename(tmp, p)
			}
		}
	case 17: // an mtime in the future (clock skew with a build host)
		f := m.existing(false)
		if f == "" || r.IntN(2) == 0 {
			f = filepath.Join(m.dir(), m.name())
			h.write(f)
		}
		mt := time.Now().Add(time.Duration(1000+r.IntN(2000)) * time.Millisecond)
		logf("touch %s into the future (%s)", f, mt.Format(time.StampMilli))
		os.Chtimes(h.path(f), mt, mt)
		if mt.After(m.future) {
			m.future = mt
		}
	case 18: // a hard link, as cp -al and hardlink make them
		if f := m.existing(false); f != "" && !strings.HasPrefix(filepath.Base(f), "zz-sync") {
			to := filepath.Join(m.dir(), m.name())
			logf("ln %s %s", f, to)
			os.MkdirAll(filepath.Dir(h.path(to)), 0o755)
			os.Link(h.path(f), h.path(to))
			m.linked = append(m.linked, f, to)
		}
	case 19: // an edit in place: new bytes in the same file (and so under every name it has)
		f := m.existing(false)
		if l := m.stillLinked(); len(l) > 0 && r.IntN(4) > 0 { // mostly one with other names
			f = l[r.IntN(len(l))]
		}
		var st syscall.Stat_t
		if f != "" && m.excluded != "" && strings.HasPrefix(f, m.excluded+string(filepath.Separator)) &&
			syscall.Stat(h.path(f), &st) == nil && st.Nlink > 1 {
			// Through a name in the excluded tree, which is not watched,
			// an edit of a file with other names sends no event at all
			// (inotify reports it where it was made): the daemon would
			// learn of it at its next rescan, as of any change inotify
			// does not see, while a full build reads it now.
			logf("no edit of %s in place: a name not watched", f)
			break
		}
		if f != "" {
			logf("edit %s in place", f)
			fh, err := os.OpenFile(h.path(f), os.O_WRONLY|os.O_TRUNC, 0)
			if err != nil {
				break
			}
			fmt.Fprintf(fh, "<title>edited at step %d</title><img src=edit%d.jpg>", i, i%3)
			fh.Close()
		}
	case 11: // chmod: an event (IN_ATTRIB) that changes no sitemap
		dir := r.IntN(2) == 0
		if f := m.existing(dir); f != "" {
			mode := os.FileMode(0o600)
			if dir {
				mode = 0o711 // still readable by the daemon's user
			}
			logf("chmod %o %s", mode, f)
			os.Chmod(h.path(f), mode)
		}
	}
}

// writeURLFile writes the URL file anew: more, and about half of a pool of
// 3,000 URLs (more than one part's), each with a date of a few, or none,
// and now and then a line that is refused.
func (m *model) writeURLFile(renameOver bool, more ...string) {
	lines := more
	dates := []string{"", "\t2024-01-01", "\t2024-06-01T12:00:00+02:00"}
	for i := range 3000 {
		if m.r.IntN(2) == 0 {
			lines = append(lines, fmt.Sprintf("https://static.test/app/%d%s", i, dates[m.r.IntN(len(dates))]))
		}
	}
	if m.r.IntN(4) == 0 {
		lines = append(lines, "https://elsewhere.test/refused", "https://static.test/app/bad-date\t2024-13-01")
	}
	m.h.writeURLs(renameOver, lines...)
}

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
