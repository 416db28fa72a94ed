package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/sitemapd/sitemapd/internal/outname"
)

// MaxDepth bounds Depth; deeper folding has no use and only costs groups.
const MaxDepth = 32

// ValidRobotsAgent reports whether pages.robots_agent may be a: "*", or a
// product token. Google's parser compares a group's User-agent with the
// crawler's product token only, so "Googlebot/2.1" would match no group
// and silently fall back to "*".
func ValidRobotsAgent(a string) bool { return a == "*" || robotsAgentRE.MatchString(a) }

var robotsAgentRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

var indexNowKeyRE = regexp.MustCompile(`^[A-Za-z0-9-]{8,128}$`)

// IsPlaceholderHost reports whether host is one of the domains RFC 2606
// reserves for documentation, example.com, example.net and example.org,
// or below one: no site is served there, so a base_url there is an
// example's, copied unchanged. (Tests use the .test domain, which the same
// RFC reserves for them.)
func IsPlaceholderHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	for _, d := range []string{"example.com", "example.net", "example.org"} {
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}

// badFunc reports one problem of the value at key; validators take one
// so that a configuration's every problem is reported at once, each as an
// *Error naming the file, the key's line and the key.
type badFunc func(key, format string, args ...any)

// validate normalises the configuration (normalize) and then checks every
// value, returning all problems found at once, in the order of the keys'
// sections below (callers and tests see them in this order).
func (c *Config) validate(lines map[string]int) error {
	given := c.BaseURL // base_url's messages quote it as written
	c.normalize()
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, &Error{File: c.File, Line: lines[key], Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	c.checkSite(given, bad)
	c.checkOutput(bad)
	c.checkFormats(bad)
	c.checkFileMode(bad)
	c.checkPages(bad)
	c.checkRules(bad)
	c.checkWatch(bad)
	c.checkNotify(bad)
	c.checkExtraSitemaps(bad)
	c.checkExtraURLs(bad)
	c.checkNews(bad)
	c.checkFleet(bad)
	c.checkSelfCheck(bad)
	if c.StateDir == "" && len(c.Notify.Endpoints) > 0 {
		bad("state_dir", "is required with notify endpoints: it keeps what they are owed across restarts")
	}
	checkProcessKeys(c.Log, c.Listen, bad)
	return errors.Join(errs...)
}

// checkSite checks what names the site and where it is: name, root,
// base_url (given is its value as written, before normalize), the
// robots.txt it implies, and the stylesheet its sitemaps name.
func (c *Config) checkSite(given string, bad badFunc) {
	if c.Name != "" && !ValidSiteName(c.Name) {
		bad("name", "%q must be 1–128 letters, digits, '.', '-' or '_', starting with a letter or digit (it names the site's state directory)", c.Name)
	}
	if c.Root == "" {
		bad("root", "is required: the document root to watch")
	} else {
		checkDir("root", c.Root, bad)
	}
	if canon, p, err := canonicalBaseURL(given); err != nil {
		bad("base_url", "%v", err)
	} else if c.RobotsTxt && p != "/" {
		bad("robots_txt", "needs base_url at the root of its host (crawlers read robots.txt only there), not %q", canon)
	}
	if a := c.Pages.RobotsAgent; !ValidRobotsAgent(a) {
		bad("pages.robots_agent", "%q must be \"*\" or a crawler's product token, letters, digits, \"-\" and \"_\" only, e.g. \"Googlebot\"", a)
	}
	switch st := c.Stylesheet; {
	case st == "" || st == "builtin" || strings.HasPrefix(st, "/"):
	default:
		if u, err := url.Parse(st); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("stylesheet", "%q must be builtin, a path from the site root (/sitemap.xsl) or an http(s) URL", st)
		}
	}
}

// checkDir reports the value at key unless dir is a directory.
func checkDir(key, dir string, bad badFunc) {
	if st, err := os.Stat(dir); err != nil {
		bad(key, "%v", err)
	} else if !st.IsDir() {
		bad(key, "%s is not a directory", dir)
	}
}

// checkOutput checks where and under which names the sitemaps and the
// feed are written.
func (c *Config) checkOutput(bad badFunc) {
	if c.OutputDir != "" {
		checkDir("output_dir", c.OutputDir, bad)
	}
	if c.Depth < 0 || c.Depth > MaxDepth {
		bad("depth", "%d is outside 0–%d", c.Depth, MaxDepth)
	}
	if c.PartSize < 0 || c.PartSize > 50_000 {
		bad("part_size", "%d is outside 0–50000 (URLs a sitemap part holds; 0: one file a group)", c.PartSize)
	}
	for _, k := range []struct{ key, val string }{{"sitemap_name", c.SitemapName}, {"index_name", c.IndexName}} {
		if err := checkOutputName(k.val); err != nil {
			bad(k.key, "%q %v", k.val, err)
		}
	}
	if c.SitemapName != "" && c.IndexName != "" && (outname.IsPart(c.IndexName, c.SitemapName) || outname.IsPart(c.SitemapName, c.IndexName)) {
		bad("index_name", "%q clashes with sitemap_name %q: the two must differ in more than a part number", c.IndexName, c.SitemapName)
	}
	if n := c.Feed.Name; n != "" {
		if err := checkFeedName(n); err != nil {
			bad("feed.name", "%q %v", n, err)
		}
	}
	if c.Feed.Entries < 1 || c.Feed.Entries > MaxFeedEntries {
		bad("feed.entries", "%d is outside 1–%d (pages the feed lists)", c.Feed.Entries, MaxFeedEntries)
	}
}

// checkFormats checks the sitemap formats, and that text sitemaps, which
// share a directory with the site's other .txt files, are named like none
// of those sitemapd knows.
func (c *Config) checkFormats(bad badFunc) {
	for _, f := range c.Formats {
		if f != "xml" && f != "txt" {
			bad("formats", "%q is not a format: xml, txt", f)
		}
	}
	if !slices.Contains(c.Formats, "xml") {
		bad("formats", "must include xml: the index lists the XML sitemaps, and text ones are written next to them")
	}
	if !c.TextSitemaps() || checkOutputName(c.SitemapName) != nil {
		return // none written, or sitemap_name's own error says it all
	}
	others := []string{outname.RobotsName}
	for _, k := range c.indexNowKeys() {
		others = append(others, outname.KeyName(k))
	}
	text := c.OutputNames().Text()
	for _, o := range others {
		if outname.IsPart(o, text) {
			bad("formats", "text sitemaps would be named like %s (from sitemap_name %q): choose another sitemap_name", o, c.SitemapName)
		}
	}
}

// checkFileMode checks file_mode (normalize has parsed it into Mode if
// it could).
func (c *Config) checkFileMode(bad badFunc) {
	if _, err := parseFileMode(c.FileMode); err != nil {
		bad("file_mode", "%v", err)
	}
}

// checkProcessKeys checks the keys one process has once however many
// sites it serves: log and listen.
func checkProcessKeys(l Log, listen string, bad badFunc) {
	if !slices.Contains([]string{"debug", "info", "warn", "error"}, l.Level) {
		bad("log.level", "%q is not one of debug, info, warn, error", l.Level)
	}
	if !slices.Contains([]string{"auto", "json", "console"}, l.Format) {
		bad("log.format", "%q is not one of auto, json, console", l.Format)
	}
	if listen != "" {
		if _, _, err := net.SplitHostPort(listen); err != nil {
			bad("listen", "%q must be host:port, e.g. 127.0.0.1:9477", listen)
		}
	}
}

// ValidSiteName reports whether n may name a site: it is a directory name
// below state_dir and a label value, so plain and short.
func ValidSiteName(n string) bool { return siteNameRE.MatchString(n) }

var siteNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// checkOutputName accepts plain, visible .xml file names.
func checkOutputName(n string) error {
	switch {
	case n == "" || strings.ContainsAny(n, "/\x00"):
		return errors.New("must be a plain file name")
	case n[0] == '.':
		return errors.New("must not start with '.' (dotfiles are hidden from sitemaps and often denied by the web server)")
	case path.Ext(n) != ".xml" || len(n) == len(".xml"):
		return errors.New("must end in .xml")
	}
	return nil
}

// checkFeedName accepts plain, visible file names ending in
// outname.FeedExt, the only outputs named so: such a name collides with no
// sitemap, index, text sitemap, key file, stylesheet or robots.txt.
func checkFeedName(n string) error {
	switch {
	case strings.ContainsAny(n, "/\x00"):
		return errors.New("must be a plain file name: the feed is written at the root of the output")
	case n[0] == '.':
		return errors.New("must not start with '.' (dotfiles are hidden and often denied by the web server)")
	case path.Ext(n) != outname.FeedExt || len(n) == len(outname.FeedExt):
		return errors.New("must end in " + outname.FeedExt + " (served as application/atom+xml)")
	}
	return nil
}
