package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/siteurl"
)

// `sitemapd check -reach` fetches, through base_url, what sitemapd tells
// search engines to fetch, and compares it with what it wrote: the
// IndexNow key files, robots.txt's Sitemap lines, the index and the
// sitemaps it lists. What a web server does to a path between the disk and
// the world (a rewrite, a redirect, a default type, an index directive)
// shows up otherwise only as an engine's refusal, long after: a key file
// redirected or served as HTML is an IndexNow 403, and nothing else.

// maxReachBody bounds what one answer is read to: a sitemap's limit, and
// some room.
const maxReachBody = 64 << 20

// reacher runs the checks of one site, printing one line each.
type reacher struct {
	ctx     context.Context
	cfg     *config.Config
	loc     *siteurl.Locator
	timeout time.Duration
	out     io.Writer
	failed  bool
}

// answer is what one GET brought back.
type answer struct {
	status int
	ctype  string // the media type, lower case, without parameters
	body   []byte
	final  string   // the URL that answered
	hops   []string // each redirect followed, "301 to URL"
}

// fetch GETs u; with follow it follows redirects (recording each hop),
// else a redirect is the answer.
func (r *reacher) fetch(u string, follow bool) (*answer, error) {
	a := &answer{final: u}
	client := &http.Client{Timeout: r.timeout, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if !follow {
			return http.ErrUseLastResponse
		}
		if len(via) >= 10 {
			return errors.New("more than 10 redirects")
		}
		a.hops = append(a.hops, fmt.Sprintf("%d to %s", req.Response.StatusCode, req.URL))
		return nil
	}}
	req, err := http.NewRequestWithContext(r.ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	req.Header.Set("User-Agent", "sitemapd/"+versionString()+" (check -reach)")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	a.status, a.final = resp.StatusCode, resp.Request.URL.String()
	a.ctype, _, _ = mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if a.status/100 == 3 {
		a.hops = append(a.hops, fmt.Sprintf("%d to %s", a.status, resp.Header.Get("Location")))
	}
	if a.body, err = io.ReadAll(io.LimitReader(resp.Body, maxReachBody)); err != nil {
		return nil, fmt.Errorf("GET %s: reading the answer: %w", u, err)
	}
	return a, nil
}

func (r *reacher) ok(what, u, detail string) {
	fmt.Fprintf(r.out, "ok    %s %s: %s\n", what, u, detail)
}

func (r *reacher) fail(what, u, problem, fix string) {
	r.failed = true
	fmt.Fprintf(r.out, "FAIL  %s %s %s: %s\n", what, u, problem, fix)
}

// reachSite runs every check of one site and reports whether all passed.
func reachSite(ctx context.Context, cfg *config.Config, timeout time.Duration, out io.Writer) bool {
	r := &reacher{ctx: ctx, cfg: cfg, loc: siteurl.New(cfg), timeout: timeout, out: out}
	names := make([]string, 0, len(cfg.KeyFiles()))
	for name := range cfg.KeyFiles() {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		r.keyFile(name, cfg.KeyFiles()[name])
	}
	indexes := r.indexFiles()
	if cfg.RobotsTxt {
		r.robots(indexes)
	}
	for _, name := range indexes {
		for _, listed := range r.served("index", name) {
			r.servedURL(listed)
		}
	}
	return !r.failed
}

// keyFile checks an IndexNow key file: engines fetch it at its URL,
// follow no redirect, and want 200, text/plain and the key.
func (r *reacher) keyFile(name, key string) {
	const what = "key file"
	u := r.loc.File(name)
	a, err := r.fetch(u, false)
	switch {
	case err != nil:
		r.fail(what, u, "could not be fetched", err.Error()+": IndexNow fetches it to verify every submission")
	case a.status/100 == 3:
		r.fail(what, u, "answered "+a.hops[0], "IndexNow needs it at that URL with 200, and follows no redirect; check the web server's rewrite and return rules for that path")
	case a.status != http.StatusOK:
		r.fail(what, u, fmt.Sprintf("answered %d", a.status), fmt.Sprintf("IndexNow needs 200; sitemapd writes it as %s: check the web server's root for that path", filepath.Join(r.cfg.OutputRoot(), name)))
	case a.ctype != "text/plain":
		r.fail(what, u, fmt.Sprintf("is served as %q", a.ctype), "IndexNow wants text/plain: check the web server's types for .txt (and that the path is not answered by an application)")
	case strings.TrimRight(string(a.body), "\r\n") != key:
		r.fail(what, u, fmt.Sprintf("holds %s", quoteBody(a.body)), fmt.Sprintf("IndexNow wants the key %q alone: check what answers that path", key))
	default:
		r.ok(what, u, "200, text/plain, the key")
	}
}

// indexFiles returns the names of the index files on disk, in the output
// root, reporting when there is none.
func (r *reacher) indexFiles() []string {
	var names []string
	for i := 1; ; i++ {
		name := config.PartName(r.cfg.IndexName, i)
		if r.cfg.Gzip {
			name += ".gz"
		}
		if _, err := os.Stat(filepath.Join(r.cfg.OutputRoot(), name)); err != nil {
			break
		}
		names = append(names, name)
	}
	if len(names) == 0 {
		name := r.cfg.IndexName
		r.fail("index", r.loc.File(name), "is not on disk", fmt.Sprintf("no %s: run sitemapd build first", filepath.Join(r.cfg.OutputRoot(), name)))
	}
	return names
}

// robots checks that the host's robots.txt names every index in a
// Sitemap line, as sitemapd keeps it (robots_txt: true).
func (r *reacher) robots(indexes []string) {
	const what = "robots.txt"
	base, err := url.Parse(r.cfg.BaseURL)
	if err != nil {
		r.fail(what, r.cfg.BaseURL, "has no robots.txt URL", err.Error())
		return
	}
	u := base.Scheme + "://" + base.Host + "/" + config.RobotsFile
	a, err := r.fetch(u, true)
	switch {
	case err != nil:
		r.fail(what, u, "could not be fetched", err.Error())
		return
	case a.status != http.StatusOK:
		r.fail(what, u, fmt.Sprintf("answered %d", a.status), "crawlers find the index through its Sitemap lines: serve the robots.txt sitemapd keeps in "+r.cfg.OutputRoot())
		return
	}
	r.hops(what, u, a)
	listed := map[string]bool{}
	for line := range strings.SplitSeq(string(a.body), "\n") {
		field, value, ok := strings.Cut(strings.TrimSpace(line), ":")
		if ok && strings.EqualFold(strings.TrimSpace(field), "sitemap") {
			value, _, _ = strings.Cut(value, "#")
			listed[strings.TrimSpace(value)] = true
		}
	}
	var missing []string
	for _, name := range indexes {
		if !listed[r.loc.File(name)] {
			missing = append(missing, r.loc.File(name))
		}
	}
	if len(missing) > 0 {
		r.fail(what, u, "has no Sitemap line for "+strings.Join(missing, ", "), "sitemapd keeps them in "+filepath.Join(r.cfg.OutputRoot(), config.RobotsFile)+": check that this file is the one served at the host's root")
		return
	}
	r.ok(what, u, fmt.Sprintf("names the index in a Sitemap line (%d)", len(indexes)))
}

// hops reports each redirect an answer followed: engines follow them, but
// a sitemap's URLs must lie under the directory of the URL it is fetched
// from in the end.
func (r *reacher) hops(what, u string, a *answer) {
	for _, h := range a.hops {
		fmt.Fprintf(r.out, "note  %s %s: redirected, %s\n", what, u, h)
	}
}

// served checks that a file of the output root is served at its URL, as
// XML (or text, or gzip) with the bytes on disk; for an index, it returns
// the URLs the file on disk lists.
func (r *reacher) served(what, name string) []string {
	path := filepath.Join(r.cfg.OutputRoot(), filepath.FromSlash(name))
	u := r.loc.File(name)
	disk, err := os.ReadFile(path)
	if err != nil {
		r.fail(what, u, "is not on disk", err.Error())
		return nil
	}
	var listed []string
	if what == "index" {
		listed = locs(disk)
	}
	a, err := r.fetch(u, true)
	if err != nil {
		r.fail(what, u, "could not be fetched", err.Error())
		return listed
	}
	r.hops(what, u, a)
	switch want := wantTypes(name); {
	case a.status != http.StatusOK:
		r.fail(what, u, fmt.Sprintf("answered %d", a.status), fmt.Sprintf("engines need 200; sitemapd wrote it as %s: check the web server's root and rules for that path", path))
	case !want[a.ctype]:
		r.fail(what, u, fmt.Sprintf("is served as %q", a.ctype), "want "+typeList(want)+": check the web server's types (mime.types) and that no application answers that path")
	case !bytes.Equal(a.body, disk):
		r.fail(what, u, fmt.Sprintf("serves %d bytes that are not the %d of %s", len(a.body), len(disk), path), "the web server serves another file (another root, a cache, an application) at that URL: engines read what it serves")
	default:
		r.ok(what, u, fmt.Sprintf("200, %s, the bytes of %s", a.ctype, path))
	}
	return listed
}

// servedURL checks a sitemap an index lists: one of the output root's
// files is compared with it; another (an application's own sitemap) is
// checked for 200 only.
func (r *reacher) servedURL(u string) {
	base := r.cfg.BaseURL
	if rel, ok := strings.CutPrefix(u, base); ok {
		if name, err := url.PathUnescape(rel); err == nil {
			if _, err := os.Stat(filepath.Join(r.cfg.OutputRoot(), filepath.FromSlash(name))); err == nil {
				r.served("sitemap", name)
				return
			}
		}
	}
	a, err := r.fetch(u, true)
	switch {
	case err != nil:
		r.fail("sitemap", u, "could not be fetched", err.Error())
	case a.status != http.StatusOK:
		r.hops("sitemap", u, a)
		r.fail("sitemap", u, fmt.Sprintf("answered %d", a.status), "the index lists it, and engines need 200: check what serves that path")
	default:
		r.hops("sitemap", u, a)
		r.ok("sitemap", u, "200 (not one of the output root's files: only its answer is checked)")
	}
}

// wantTypes is the media types a file of the output root may be served
// as: XML for .xml, gzip for .gz, text for .txt.
func wantTypes(name string) map[string]bool {
	switch {
	case strings.HasSuffix(name, ".gz"):
		return map[string]bool{"application/gzip": true, "application/x-gzip": true, "application/octet-stream": true}
	case strings.HasSuffix(name, ".txt"):
		return map[string]bool{"text/plain": true}
	}
	return map[string]bool{"text/xml": true, "application/xml": true}
}

func typeList(want map[string]bool) string {
	var l []string
	for t := range want {
		l = append(l, t)
	}
	sort.Strings(l)
	return strings.Join(l, " or ")
}

// locs returns the <loc> values of an index (gzip'd or not); what cannot
// be read lists nothing, as `check PATH` is the validator.
func locs(data []byte) []string {
	if r, err := gunzipped(data); err == nil {
		data = r
	}
	var out []string
	dec := xml.NewDecoder(bytes.NewReader(data))
	inLoc := false
	for {
		tok, err := dec.Token()
		if err != nil {
			return out
		}
		switch t := tok.(type) {
		case xml.StartElement:
			inLoc = t.Name.Local == "loc"
			if inLoc {
				out = append(out, "")
			}
		case xml.CharData:
			if inLoc {
				out[len(out)-1] += strings.TrimSpace(string(t))
			}
		case xml.EndElement:
			inLoc = false
		}
	}
}

func quoteBody(b []byte) string {
	if len(b) > 60 {
		return fmt.Sprintf("%q… (%d bytes)", b[:60], len(b))
	}
	return fmt.Sprintf("%q", b)
}

// gunzipped returns data decompressed, when it is gzip.
func gunzipped(data []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	return io.ReadAll(io.LimitReader(zr, maxReachBody))
}

// cmdReach is `sitemapd check -reach`: every site's checks, the worst
// status.
func cmdReach(path, site string, timeout time.Duration, stdout, stderr io.Writer) int {
	proc, ok := loadConfig(path, stderr)
	if !ok {
		return ExitUsage
	}
	sites, ok := selectSites(proc, site, stderr)
	if !ok {
		return ExitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	status := ExitOK
	for _, cfg := range sites {
		if proc.Multi {
			fmt.Fprintf(stdout, "site %s (%s)\n", cfg.Name, cfg.BaseURL)
		}
		if !reachSite(ctx, cfg, timeout, stdout) {
			status = ExitFailure
		}
	}
	return status
}
