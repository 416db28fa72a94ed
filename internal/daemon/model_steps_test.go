package daemon

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

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
	case 20, 21: // the URL file rewritten, removed, or back
		m.urlFileStep(op, logf)
	case 0, 1: // create
		f := filepath.Join(m.dir(), m.name())
		logf("create %s", f)
		h.write(f)
	case 2: // write again with a new mtime
		m.rewrite(i, logf)
	case 3: // delete
		m.remove(logf)
	case 4: // rename a file, maybe across directories
		m.renameFile(i, logf)
	case 5: // rename a directory
		m.renameDir(i, logf)
	case 6: // move a pre-populated tree in from outside
		m.moveTreeIn(i, logf)
	case 7: // move a tree out
		m.moveTreeOut(i, logf)
	case 8: // mkdir -p and write at once
		m.mkdirP(i, logf)
	case 9: // a vim save (backupcopy=no)
		m.vimSave(i, logf)
	case 10: // a burst of files
		m.burst(i, logf)
	case 12: // new robots.txt rules, or none
		m.newRobots(i, logf)
	case 13: // a new head: what it says decides whether and how the page is listed
		m.newHead(i, logf)
	case 14: // an error page, as servers and generators write them
		m.errorPage(logf)
	case 15: // a new configuration: another directory excluded, or none
		m.reload(i, logf)
	case 16: // a redeploy: every page of a directory rewritten with the same bytes
		m.redeploy(i, logf)
	case 17: // an mtime in the future (clock skew with a build host)
		m.intoTheFuture(i, logf)
	case 18: // a hard link, as cp -al and hardlink make them
		m.hardLink(i, logf)
	case 19: // an edit in place: new bytes in the same file (and so under every name it has)
		m.editInPlace(i, logf)
	case 11: // chmod: an event (IN_ATTRIB) that changes no sitemap
		m.chmod(i, logf)
	}
}

// rewrite is step 2: write again with a new mtime.
func (m *model) rewrite(i int, logf func(string, ...any)) {
	h, r := m.h, m.r
	if f := m.existing(false); f != "" {
		logf("rewrite %s", f)
		h.write(f)
		mt := time.Now().Add(-time.Duration(1+r.IntN(1000)) * time.Second) // past: a future mtime has no lastmod until it passes
		os.Chtimes(h.path(f), mt, mt)
	}
}

// renameFile is step 4: rename a file, maybe across directories.
func (m *model) renameFile(i int, logf func(string, ...any)) {
	h := m.h
	if f := m.existing(false); f != "" {
		to := filepath.Join(m.dir(), m.name())
		logf("mv %s %s", f, to)
		os.MkdirAll(filepath.Dir(h.path(to)), 0o755)
		os.Rename(h.path(f), h.path(to))
	}
}

// renameDir is step 5: rename a directory.
func (m *model) renameDir(i int, logf func(string, ...any)) {
	h := m.h
	if d := m.existing(true); d != "" {
		to := filepath.Join(filepath.Dir(d), fmt.Sprintf("moved%d", i))
		logf("mv %s/ %s/", d, to)
		os.Rename(h.path(d), h.path(to))
	}
}

// moveTreeIn is step 6: move a pre-populated tree in from outside.
func (m *model) moveTreeIn(i int, logf func(string, ...any)) {
	h := m.h
	src := filepath.Join(h.dir, "outside", fmt.Sprintf("tree%d", i))
	for _, f := range []string{"t/a.html", "t/u/b.html", "t/u/v/c.html"} {
		p := filepath.Join(src, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("x"), 0o644)
	}
	to := filepath.Join(m.dir(), fmt.Sprintf("in%d", i))
	logf("mv outside/tree%d/ %s/", i, to)
	os.Rename(src, h.path(to))
}

// vimSave is step 9: a vim save (backupcopy=no).
func (m *model) vimSave(i int, logf func(string, ...any)) {
	h := m.h
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
}

// burst is step 10: a burst of files.
func (m *model) burst(i int, logf func(string, ...any)) {
	h := m.h
	d := filepath.Join(m.dir(), fmt.Sprintf("burst%d", i))
	logf("write 300 files in %s", d)
	for j := range 300 {
		h.write(filepath.Join(d, fmt.Sprintf("f%d.html", j)))
	}
}

// newRobots is step 12: new robots.txt rules, or none.
func (m *model) newRobots(i int, logf func(string, ...any)) {
	h, r := m.h, m.r
	if r.IntN(3) == 0 {
		logf("rm robots.txt")
		os.Remove(h.path("robots.txt"))
		return
	}
	d := m.dir()
	logf("robots.txt: Disallow /%s/", d)
	os.WriteFile(h.path("robots.txt"), []byte("User-agent: *\nDisallow: /"+(&url.URL{Path: d}).EscapedPath()+"/\n"), 0o644)
}

// newHead is step 13: a new head: what it says decides whether and how the page is listed.
func (m *model) newHead(i int, logf func(string, ...any)) {
	h, r := m.h, m.r
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
}

// reload is step 15: a new configuration: another directory excluded, or none.
func (m *model) reload(i int, logf func(string, ...any)) {
	h, r := m.h, m.r
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
}

// redeploy is step 16: a redeploy: every page of a directory rewritten with the same bytes.
func (m *model) redeploy(i int, logf func(string, ...any)) {
	h, r := m.h, m.r
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
}

// intoTheFuture is step 17: an mtime in the future (clock skew with a build host).
func (m *model) intoTheFuture(i int, logf func(string, ...any)) {
	h, r := m.h, m.r
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
}

// hardLink is step 18: a hard link, as cp -al and hardlink make them.
func (m *model) hardLink(i int, logf func(string, ...any)) {
	h := m.h
	if f := m.existing(false); f != "" && !strings.HasPrefix(filepath.Base(f), "zz-sync") {
		to := filepath.Join(m.dir(), m.name())
		logf("ln %s %s", f, to)
		os.MkdirAll(filepath.Dir(h.path(to)), 0o755)
		os.Link(h.path(f), h.path(to))
		m.linked = append(m.linked, f, to)
	}
}

// editInPlace is step 19: an edit in place: new bytes in the same file (and so under every name it has).
func (m *model) editInPlace(i int, logf func(string, ...any)) {
	h, r := m.h, m.r
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
		return
	}
	if f != "" {
		logf("edit %s in place", f)
		fh, err := os.OpenFile(h.path(f), os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			return
		}
		fmt.Fprintf(fh, "<title>edited at step %d</title><img src=edit%d.jpg>", i, i%3)
		fh.Close()
	}
}

// chmod is step 11: chmod: an event (IN_ATTRIB) that changes no sitemap.
func (m *model) chmod(i int, logf func(string, ...any)) {
	h, r := m.h, m.r
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

// remove is step 3: delete a page.
func (m *model) remove(logf func(string, ...any)) {
	if f := m.existing(false); f != "" {
		logf("rm %s", f)
		os.Remove(m.h.path(f))
	}
}

// moveTreeOut is step 7: move a tree out of the root.
func (m *model) moveTreeOut(i int, logf func(string, ...any)) {
	h := m.h
	if d := m.existing(true); d != "" {
		logf("mv %s/ outside/out%d/", d, i)
		os.Rename(h.path(d), filepath.Join(h.dir, "outside", fmt.Sprintf("out%d", i)))
	}
}

// mkdirP is step 8: mkdir -p and write at once.
func (m *model) mkdirP(i int, logf func(string, ...any)) {
	d := filepath.Join(m.dir(), fmt.Sprintf("new%d/deep/er", i))
	logf("mkdir -p %s; write a.html there and b.html above", d)
	m.h.write(filepath.Join(d, "a.html"))
	m.h.write(filepath.Join(filepath.Dir(d), "b.html"))
}

// urlFileStep is steps 20 (the URL file rewritten, in place or by a
// rename over it) and 21 (removed: its sitemap stays as it was; or back).
func (m *model) urlFileStep(op int, logf func(string, ...any)) {
	r := m.r
	if op == 20 {
		renameOver := r.IntN(2) == 0
		logf("rewrite the URL file (rename over it: %v)", renameOver)
		m.writeURLFile(renameOver)
		return
	}
	if r.IntN(3) > 0 {
		logf("write the URL file")
		m.writeURLFile(false)
		return
	}
	logf("rm the URL file")
	os.Remove(m.h.urlFile())
}

// errorPage is step 14: an error page, as servers and generators write
// them.
func (m *model) errorPage(logf func(string, ...any)) {
	f := filepath.Join(m.dir(), []string{"404.html", "50x.html", "not_found.html"}[m.r.IntN(3)])
	logf("create error page %s", f)
	m.h.write(f)
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
