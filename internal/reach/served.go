package reach

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sitemapd/sitemapd/internal/safefile"
)

// served checks that a file of the output root is served at its URL, as
// XML (or text, or gzip) with the bytes on disk; it returns the URLs the
// file on disk lists (an index's sitemaps, a sitemap's pages).
func (c *Checker) served(ctx context.Context, what What, name string) []string {
	path := filepath.Join(c.cfg.OutputRoot(), filepath.FromSlash(name))
	u := c.loc.File(name)
	disk, err := safefile.ReadFile(path, MaxBody, safefile.Follow)
	if err != nil {
		c.fail(what, u, NotOnDisk, "is not on disk", err.Error(), nil)
		return nil
	}
	listed := locs(disk)
	a, err := c.fetch(ctx, u, !c.opts.Strict, MaxBody)
	if err != nil {
		c.fail(what, u, Unreachable, "could not be fetched", err.Error(), nil)
		return listed
	}
	switch want := wantTypes(name); {
	case a.status/100 == 3:
		c.fail(what, u, Redirect, "answered "+a.hops[len(a.hops)-1], "engines follow it, but the URLs a sitemap lists must lie under the URL it is fetched from in the end: serve it at the URL the index and robots.txt name", a.hops)
	case a.status != http.StatusOK:
		c.fail(what, u, BadStatus, fmt.Sprintf("answered %d", a.status), fmt.Sprintf("engines need 200; sitemapd wrote it as %s: check the web server's root and rules for that path", path), a.hops)
	case !want[a.ctype]:
		c.fail(what, u, ContentType, fmt.Sprintf("is served as %q", a.ctype), "want "+typeList(want)+": check the web server's types (mime.types) and that no application answers that path", a.hops)
	case !bytes.Equal(a.body, disk) && !c.rewritten(path, a.body):
		c.fail(what, u, Body, fmt.Sprintf("serves %d bytes that are not the %d of %s", len(a.body), len(disk), path), "the web server serves another file (another root, a cache, an application) at that URL: engines read what it serves", a.hops)
	default:
		c.ok(what, u, fmt.Sprintf("200, %s, the bytes of %s", a.ctype, path), a.hops)
	}
	return listed
}

// rewritten reports whether the file at path holds body now: a publish
// that replaced it while it was fetched is no difference.
func (c *Checker) rewritten(path string, body []byte) bool {
	now, err := safefile.ReadFile(path, MaxBody, safefile.Follow)
	return err == nil && bytes.Equal(now, body)
}

// sitemap checks a sitemap an index lists and returns the pages it lists:
// one of the output root's files is compared with it; another (an
// application's own sitemap) is checked for 200 only, and lists nothing
// here.
func (c *Checker) sitemap(ctx context.Context, u string) []string {
	if rel, ok := strings.CutPrefix(u, c.cfg.BaseURL); ok {
		if name, err := url.PathUnescape(rel); err == nil {
			if _, err := os.Stat(filepath.Join(c.cfg.OutputRoot(), filepath.FromSlash(name))); err == nil {
				return c.served(ctx, Sitemap, name)
			}
		}
	}
	a, err := c.fetch(ctx, u, !c.opts.Strict, 0)
	switch {
	case err != nil:
		c.fail(Sitemap, u, Unreachable, "could not be fetched", err.Error(), nil)
	case a.status/100 == 3:
		c.fail(Sitemap, u, Redirect, "answered "+a.hops[len(a.hops)-1], "the index lists it: list the URL it is served at", a.hops)
	case a.status != http.StatusOK:
		c.fail(Sitemap, u, BadStatus, fmt.Sprintf("answered %d", a.status), "the index lists it, and engines need 200: check what serves that path", a.hops)
	default:
		c.ok(Sitemap, u, "200 (not one of the output root's files: only its answer is checked)", a.hops)
	}
	return nil
}

// page checks that a page a sitemap lists answers 200 itself: a listed
// URL that redirects or fails is one Search Console reports against the
// sitemap. Its body is not read.
func (c *Checker) page(ctx context.Context, u, in string) {
	r := Result{What: Page, URL: u, In: in, Detail: "200"}
	a, err := c.fetch(ctx, u, false, 0)
	switch {
	case err != nil:
		r.Problem, r.Detail, r.Fix = Unreachable, "could not be fetched", err.Error()
	case a.status/100 == 3:
		r.Problem, r.Detail, r.Hops = Redirect, "answered "+a.hops[0], a.hops
		r.Fix = "a sitemap must list the URL that answers 200 (Search Console: \"Page with redirect\"): check the web server's rules, or pages.index_files and pages.pretty_urls"
	case a.status != http.StatusOK:
		r.Problem, r.Detail = BadStatus, fmt.Sprintf("answered %d", a.status)
		r.Fix = "a listed page must answer 200: check the web server's root, index and try_files rules for that path"
	}
	c.add(r)
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

// locs returns the <loc> values of a sitemap or an index (gzip'd or
// not); what cannot be read lists nothing, as `check PATH` is the
// validator.
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
			// A sitemap's own <loc>, not an image's (image:loc).
			inLoc = t.Name.Local == "loc" && t.Name.Space == sitemapNS
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

// sitemapNS is the sitemaps.org namespace of urlset and sitemapindex.
const sitemapNS = "http://www.sitemaps.org/schemas/sitemap/0.9"

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
	return io.ReadAll(io.LimitReader(zr, MaxBody))
}
