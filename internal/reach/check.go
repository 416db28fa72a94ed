package reach

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/outname"
	"github.com/sitemapd/sitemapd/internal/robots"
	"github.com/sitemapd/sitemapd/internal/siteurl"
)

// Options says how a Checker fetches and how much it checks.
type Options struct {
	// Timeout bounds each answer (DefaultTimeout when 0).
	Timeout   time.Duration
	UserAgent string
	// Connect, "host:port", is where requests to base_url's host go
	// instead of where its name resolves (as curl --resolve does).
	Connect string
	// Strict follows no redirect: each is a Redirect problem (the
	// daemon's self-check). Otherwise robots.txt, the index and the
	// sitemaps follow them, as engines do, and report each hop; a key
	// file and a page never follow one.
	Strict bool
	// Sitemaps is how many of the sitemaps the index lists are checked
	// (all when < 0), Pages how many of the pages those list (none when
	// 0); Round picks which: successive rounds go round the lists.
	Sitemaps, Pages, Round int
	// Recheck are sitemaps and pages checked besides the sample while
	// they are still listed (the daemon's problems of the last check,
	// so that each clears when fixed, or when no longer listed).
	Recheck map[string]bool
}

// Checker checks one site's public view.
type Checker struct {
	cfg       *config.Config
	loc       *siteurl.Locator
	opts      Options
	transport *http.Transport
	out       []Result
}

// New returns a Checker of cfg's site.
func New(cfg *config.Config, opts Options) *Checker {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	base, _ := url.Parse(cfg.BaseURL)
	return &Checker{cfg: cfg, loc: siteurl.New(cfg), opts: opts, transport: newTransport(base, opts.Connect)}
}

// Check runs every check once and returns a Result per URL, in the
// order checked: key files, robots.txt, the index files, each sitemap
// (after the index that lists it), the pages.
func (c *Checker) Check(ctx context.Context) []Result {
	c.out = nil
	defer c.transport.CloseIdleConnections()
	keys := c.cfg.OutputNames().KeyFiles()
	names := make([]string, 0, len(keys))
	for name := range keys {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		c.keyFile(ctx, name, keys[name])
	}
	indexes := c.indexFiles()
	if c.cfg.RobotsTxt {
		c.robots(ctx, indexes)
	}
	var listed []string
	for _, name := range indexes {
		listed = append(listed, c.served(ctx, Index, name)...)
	}
	var pages []string
	in := map[string]string{} // page -> the first sitemap checked that lists it
	for _, u := range c.pick(listed, c.opts.Sitemaps) {
		for _, p := range c.sitemap(ctx, u) {
			if _, dup := in[p]; !dup {
				in[p] = u
				pages = append(pages, p)
			}
		}
	}
	for _, u := range c.pick(pages, c.opts.Pages) {
		c.page(ctx, u, in[u])
	}
	return c.out
}

// pick is n of list (all when n < 0 or n covers it), starting where
// Round n-sized steps go round it, and the members of list to recheck.
func (c *Checker) pick(list []string, n int) []string {
	if n < 0 || n >= len(list) {
		return list
	}
	chosen := make(map[int]bool, n)
	start := (c.opts.Round * n) % len(list)
	for i := range n {
		chosen[(start+i)%len(list)] = true
	}
	var out []string
	for i, u := range list {
		if chosen[i] || c.opts.Recheck[u] {
			out = append(out, u)
		}
	}
	return out
}

func (c *Checker) add(r Result) { c.out = append(c.out, r) }

func (c *Checker) ok(what What, u, detail string, hops []string) {
	c.add(Result{What: what, URL: u, Detail: detail, Hops: hops})
}

func (c *Checker) fail(what What, u string, p Problem, detail, fix string, hops []string) {
	c.add(Result{What: what, URL: u, Problem: p, Detail: detail, Fix: fix, Hops: hops})
}

// utf8BOM is the byte order mark an editor may put before a key.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// keyFile checks an IndexNow key file: engines fetch it at its URL,
// follow no redirect, and want 200, text/plain and the key.
func (c *Checker) keyFile(ctx context.Context, name, key string) {
	u := c.loc.File(name)
	a, err := c.fetch(ctx, u, false, maxKey)
	switch {
	case err != nil:
		c.fail(KeyFile, u, Unreachable, "could not be fetched", err.Error()+": IndexNow fetches it to verify every submission", nil)
	case a.status/100 == 3:
		c.fail(KeyFile, u, Redirect, "answered "+a.hops[0], "IndexNow needs it at that URL with 200, and follows no redirect; check the web server's rewrite and return rules for that path", a.hops)
	case a.status != http.StatusOK:
		c.fail(KeyFile, u, BadStatus, fmt.Sprintf("answered %d", a.status), fmt.Sprintf("IndexNow needs 200; sitemapd writes it as %s: check the web server's root for that path", filepath.Join(c.cfg.OutputRoot(), name)), nil)
	case a.ctype != "text/plain":
		c.fail(KeyFile, u, ContentType, fmt.Sprintf("is served as %q", a.ctype), "IndexNow wants text/plain: check the web server's types for .txt (and that the path is not answered by an application)", nil)
	case bytes.HasPrefix(a.body, utf8BOM):
		c.fail(KeyFile, u, Body, fmt.Sprintf("holds %s, starting with a UTF-8 byte order mark (BOM)", quoteBody(a.body)), fmt.Sprintf("IndexNow wants the key %q alone: the web server serves another file than sitemapd's at that path", key), nil)
	case strings.TrimRight(string(a.body), "\r\n") != key:
		c.fail(KeyFile, u, Body, fmt.Sprintf("holds %s", quoteBody(a.body)), fmt.Sprintf("IndexNow wants the key %q alone: check what answers that path", key), nil)
	default:
		c.ok(KeyFile, u, "200, text/plain, the key", nil)
	}
}

// indexFiles returns the names of the index files on disk, in the output
// root, reporting when there is none.
func (c *Checker) indexFiles() []string {
	var names []string
	out := c.cfg.OutputNames()
	for i := 1; ; i++ {
		name := out.Out(outname.Part(out.Index(), i))
		if _, err := os.Stat(filepath.Join(c.cfg.OutputRoot(), name)); err != nil {
			break
		}
		names = append(names, name)
	}
	if len(names) == 0 {
		name := c.cfg.IndexName
		c.fail(Index, c.loc.File(name), NotOnDisk, "is not on disk", fmt.Sprintf("no %s: run sitemapd build first", filepath.Join(c.cfg.OutputRoot(), name)), nil)
	}
	return names
}

// robots checks that the host's robots.txt names every index in a
// Sitemap line, as sitemapd keeps it (robots_txt: true).
func (c *Checker) robots(ctx context.Context, indexes []string) {
	base, err := url.Parse(c.cfg.BaseURL)
	if err != nil {
		c.fail(Robots, c.cfg.BaseURL, Unreachable, "has no robots.txt URL", err.Error(), nil)
		return
	}
	u := base.Scheme + "://" + base.Host + "/" + outname.RobotsName
	a, err := c.fetch(ctx, u, !c.opts.Strict, MaxBody)
	switch {
	case err != nil:
		c.fail(Robots, u, Unreachable, "could not be fetched", err.Error(), nil)
		return
	case a.status/100 == 3:
		c.fail(Robots, u, Redirect, "answered "+a.hops[len(a.hops)-1], "crawlers follow it, but it is not the robots.txt sitemapd keeps in "+c.cfg.OutputRoot()+": check the web server's rules for that path", a.hops)
		return
	case a.status != http.StatusOK:
		c.fail(Robots, u, BadStatus, fmt.Sprintf("answered %d", a.status), "crawlers find the index through its Sitemap lines: serve the robots.txt sitemapd keeps in "+c.cfg.OutputRoot(), a.hops)
		return
	}
	listed := map[string]bool{}
	for _, s := range robots.Sitemaps(a.body) {
		listed[s] = true
	}
	var missing []string
	for _, name := range indexes {
		if !listed[c.loc.File(name)] {
			missing = append(missing, c.loc.File(name))
		}
	}
	if len(missing) > 0 {
		c.fail(Robots, u, Body, "has no Sitemap line for "+strings.Join(missing, ", "), "sitemapd keeps them in "+filepath.Join(c.cfg.OutputRoot(), outname.RobotsName)+": check that this file is the one served at the host's root", a.hops)
		return
	}
	c.ok(Robots, u, fmt.Sprintf("names the index in a Sitemap line (%d)", len(indexes)), a.hops)
}
