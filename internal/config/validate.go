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
	"strconv"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/robfig/cron/v3"

	"github.com/sitemapd/sitemapd/internal/redact"
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

// validate checks every value, normalises the ones that have a canonical
// form, and returns all problems found at once.
func (c *Config) validate(lines map[string]int) error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, &Error{File: c.File, Line: lines[key], Key: key, Msg: fmt.Sprintf(format, args...)})
	}

	if c.Name != "" && !ValidSiteName(c.Name) {
		bad("name", "%q must be 1–128 letters, digits, '.', '-' or '_', starting with a letter or digit (it names the site's state directory)", c.Name)
	}

	// root
	if c.Root == "" {
		bad("root", "is required: the document root to watch")
	} else {
		c.Root = c.resolve(c.Root)
		if st, err := os.Stat(c.Root); err != nil {
			bad("root", "%v", err)
		} else if !st.IsDir() {
			bad("root", "%s is not a directory", c.Root)
		}
	}

	// base_url
	if c.BaseURL == "" {
		bad("base_url", "is required: the URL the document root is served at (your site's own, http or https)")
	} else if u, err := url.Parse(c.BaseURL); err != nil {
		bad("base_url", "%q is not a URL: %v", c.BaseURL, err)
	} else if u.Scheme != "http" && u.Scheme != "https" {
		bad("base_url", "%q must start with http:// or https://", c.BaseURL)
	} else if u.Host == "" {
		bad("base_url", "%q has no host", c.BaseURL)
	} else if u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		bad("base_url", "%q must not carry user info, a query or a fragment", c.BaseURL)
	} else if IsPlaceholderHost(u.Hostname()) {
		bad("base_url", "%q is the example's placeholder: set the site's own URL", c.BaseURL)
	} else {
		u.Scheme = strings.ToLower(u.Scheme)
		u.Host = strings.ToLower(u.Host)
		p := u.EscapedPath()
		if !strings.HasSuffix(p, "/") {
			p += "/"
		}
		c.BaseURL = u.Scheme + "://" + u.Host + p
		if c.RobotsTxt && p != "/" {
			bad("robots_txt", "needs base_url at the root of its host (crawlers read robots.txt only there), not %q", c.BaseURL)
		}
	}

	if a := c.Pages.RobotsAgent; !ValidRobotsAgent(a) {
		bad("pages.robots_agent", "%q must be \"*\" or a crawler's product token, letters, digits, \"-\" and \"_\" only, e.g. \"Googlebot\"", a)
	}

	// stylesheet
	switch st := c.Stylesheet; {
	case st == "" || st == "builtin" || strings.HasPrefix(st, "/"):
	default:
		if u, err := url.Parse(st); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("stylesheet", "%q must be builtin, a path from the site root (/sitemap.xsl) or an http(s) URL", st)
		}
	}

	// output_dir
	if c.OutputDir != "" {
		c.OutputDir = c.resolve(c.OutputDir)
		if st, err := os.Stat(c.OutputDir); err != nil {
			bad("output_dir", "%v", err)
		} else if !st.IsDir() {
			bad("output_dir", "%s is not a directory", c.OutputDir)
		}
	}

	if c.Depth < 0 || c.Depth > MaxDepth {
		bad("depth", "%d is outside 0–%d", c.Depth, MaxDepth)
	}
	if c.PartSize < 0 || c.PartSize > 50_000 {
		bad("part_size", "%d is outside 0–50000 (URLs a sitemap part holds; 0: one file a group)", c.PartSize)
	}

	// output names
	for _, k := range []struct{ key, val string }{{"sitemap_name", c.SitemapName}, {"index_name", c.IndexName}} {
		if err := checkOutputName(k.val); err != nil {
			bad(k.key, "%q %v", k.val, err)
		}
	}
	if c.SitemapName != "" && c.IndexName != "" && (IsPartName(c.IndexName, c.SitemapName) || IsPartName(c.SitemapName, c.IndexName)) {
		bad("index_name", "%q clashes with sitemap_name %q: the two must differ in more than a part number", c.IndexName, c.SitemapName)
	}

	// feed
	if n := c.Feed.Name; n != "" {
		if err := checkFeedName(n); err != nil {
			bad("feed.name", "%q %v", n, err)
		}
	}
	if c.Feed.Entries < 1 || c.Feed.Entries > MaxFeedEntries {
		bad("feed.entries", "%d is outside 1–%d (pages the feed lists)", c.Feed.Entries, MaxFeedEntries)
	}

	// formats
	for _, f := range c.Formats {
		if f != "xml" && f != "txt" {
			bad("formats", "%q is not a format: xml, txt", f)
		}
	}
	if !slices.Contains(c.Formats, "xml") {
		bad("formats", "must include xml: the index lists the XML sitemaps, and text ones are written next to them")
	}
	if c.TextSitemaps() && checkOutputName(c.SitemapName) == nil {
		// Text sitemaps share a directory with the site's other .txt
		// files: their names must not be one of those sitemapd knows.
		others := []string{RobotsFile}
		for _, ep := range c.Notify.Endpoints {
			if kf := ep.KeyFile(); kf != "" {
				others = append(others, kf)
			}
		}
		for _, o := range others {
			if IsPartName(o, c.TextName()) {
				bad("formats", "text sitemaps would be named like %s (from sitemap_name %q): choose another sitemap_name", o, c.SitemapName)
			}
		}
	}

	if m, err := strconv.ParseUint(strings.TrimPrefix(c.FileMode, "0o"), 8, 32); err != nil || m > 0o777 {
		bad("file_mode", "%q is not an octal permission such as \"0644\" (owner, group, others; 4 read, 2 write)", c.FileMode)
	} else if m&0o002 != 0 {
		bad("file_mode", "%q makes files world-writable", c.FileMode)
	} else if m&0o400 == 0 {
		bad("file_mode", "%q leaves files unreadable by their owner", c.FileMode)
	} else {
		c.Mode = os.FileMode(m)
	}

	// pages
	if len(c.Pages.Extensions) == 0 {
		bad("pages.extensions", "lists no extensions, so no file would be a page")
	}
	for i, e := range c.Pages.Extensions {
		if len(e) < 2 || e[0] != '.' || strings.ContainsAny(e[1:], "./") {
			bad(fmt.Sprintf("pages.extensions[%d]", i), "%q must look like \".html\"", e)
		}
	}
	for i, n := range c.Pages.IndexFiles {
		if n == "" || strings.Contains(n, "/") || n == "." || n == ".." {
			bad(fmt.Sprintf("pages.index_files[%d]", i), "%q must be a plain file name like \"index.html\"", n)
		}
	}
	for i, g := range c.Pages.Exclude {
		if !doublestar.ValidatePattern(NormalizeGlob(g)) {
			bad(fmt.Sprintf("pages.exclude[%d]", i), "%q is not a valid glob", g)
		}
	}
	if src, ok := lastModSources[c.Pages.LastMod]; ok {
		c.Pages.LastModFrom = src
	} else {
		bad("pages.lastmod", "%q must be \"content\" (when the page's bytes last changed) or \"mtime\" (when its file was last written)", c.Pages.LastMod)
	}
	for i, h := range c.Pages.ImageHosts {
		if norm, ok := imageHost(h); ok {
			c.Pages.ImageHosts[i] = norm
		} else {
			bad(fmt.Sprintf("pages.image_hosts[%d]", i), "%q must be a host name, with a port if not the scheme's default, like \"cdn.example.net\" (no scheme, path or wildcard)", h)
		}
	}
	for i, g := range c.Pages.ErrorPages {
		if !doublestar.ValidatePattern(NormalizeGlob(g)) {
			bad(fmt.Sprintf("pages.error_pages[%d]", i), "%q is not a valid glob", g)
		}
	}
	for i, g := range c.Pages.IgnoreNames {
		if strings.Contains(g, "/") || !doublestar.ValidatePattern(g) {
			bad(fmt.Sprintf("pages.ignore_names[%d]", i), "%q must be a glob for a base name, without \"/\"", g)
		}
	}
	for i, r := range c.Pages.Rules {
		key := fmt.Sprintf("pages.rules[%d]", i)
		if r.Match == "" {
			bad(key+".match", "is required")
		} else if !doublestar.ValidatePattern(NormalizeGlob(r.Match)) {
			bad(key+".match", "%q is not a valid glob", r.Match)
		}
		if r.Priority != nil && (*r.Priority < 0 || *r.Priority > 1) {
			bad(key+".priority", "%v is outside 0.0–1.0", *r.Priority)
		}
		if r.ChangeFreq != "" && !slices.Contains(ValidChangeFreqs, r.ChangeFreq) {
			bad(key+".changefreq", "%q is not one of %s", r.ChangeFreq, strings.Join(ValidChangeFreqs, ", "))
		}
	}

	// watch
	if c.Watch.Settle <= 0 {
		bad("watch.settle", "%v must be positive", c.Watch.Settle)
	}
	if c.Watch.MaxDelay < c.Watch.Settle {
		bad("watch.max_delay", "%v must be at least watch.settle (%v)", c.Watch.MaxDelay, c.Watch.Settle)
	}
	if c.Watch.Rescan < 0 {
		bad("watch.rescan", "%v must not be negative (0 disables)", c.Watch.Rescan)
	}

	// notify
	if err := checkSchedule(c.Notify.Schedule); err != nil {
		bad("notify.schedule", "%q: %v", c.Notify.Schedule, err)
	}
	if c.Notify.Timeout <= 0 {
		bad("notify.timeout", "%v must be positive", c.Notify.Timeout)
	}
	if c.Notify.Attempts < 1 {
		bad("notify.attempts", "%d must be at least 1", c.Notify.Attempts)
	}
	if c.Notify.MaxBackoff <= 0 {
		bad("notify.max_backoff", "%v must be positive", c.Notify.MaxBackoff)
	}
	names := map[string]bool{}
	for i, ep := range c.Notify.Endpoints {
		key := fmt.Sprintf("notify.endpoints[%d]", i)
		if ep.Name == "" {
			bad(key+".name", "is required")
		} else if names[ep.Name] {
			bad(key+".name", "%q is used by another endpoint", ep.Name)
		}
		names[ep.Name] = true
		if u, err := url.Parse(ep.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad(key+".url", "%q must be an http:// or https:// URL", redact.URL(ep.URL, "{sitemap}"))
		}
		switch ep.Kind {
		case IndexNow:
			if !indexNowKeyRE.MatchString(ep.Key) {
				bad(key+".key", "IndexNow keys are 8–128 characters of a-z, A-Z, 0-9 and '-'")
			}
		case Ping:
			if !strings.Contains(ep.URL, "{sitemap}") {
				bad(key+".url", "%q has no {sitemap} placeholder for the index URL", redact.URL(ep.URL))
			}
			if ep.Key != "" {
				bad(key+".key", "is only used by indexnow endpoints")
			}
		default:
			bad(key+".kind", "%q is not one of indexnow, ping", ep.Kind)
		}
	}

	c.validateExtras(bad)

	if c.StateDir != "" {
		c.StateDir = c.resolve(c.StateDir)
	} else if len(c.Notify.Endpoints) > 0 {
		bad("state_dir", "is required with notify endpoints: it keeps what they are owed across restarts")
	}
	checkProcessKeys(c.Log, c.Listen, bad)
	return errors.Join(errs...)
}

// checkProcessKeys checks the keys one process has once however many
// sites it serves: log and listen.
func checkProcessKeys(l Log, listen string, bad func(key, format string, args ...any)) {
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
// imageHost checks a pages.image_hosts entry and returns it in lower
// case: a host as a URL carries it (a name or an IP address, and a port).
func imageHost(h string) (string, bool) {
	if h == "" || strings.ContainsAny(h, "/?#@*\\ ") {
		return "", false
	}
	u, err := url.Parse("http://" + h)
	if err != nil || u.Host != h || u.Hostname() == "" || strings.HasSuffix(h, ":") {
		return "", false
	}
	return strings.ToLower(h), true
}

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

// checkFeedName accepts plain, visible file names ending in FeedExt, the
// only outputs named so: such a name collides with no sitemap, index,
// text sitemap, key file, stylesheet or robots.txt.
func checkFeedName(n string) error {
	switch {
	case strings.ContainsAny(n, "/\x00"):
		return errors.New("must be a plain file name: the feed is written at the root of the output")
	case n[0] == '.':
		return errors.New("must not start with '.' (dotfiles are hidden and often denied by the web server)")
	case path.Ext(n) != FeedExt || len(n) == len(FeedExt):
		return errors.New("must end in " + FeedExt + " (served as application/atom+xml)")
	}
	return nil
}

// PartName is the file name of part n (1-based) of a sitemap or index
// called name: part 1 is name itself, part n is "stem-n.xml". Names are
// stable, so a group that grows a part keeps the names of the parts it had.
func PartName(name string, n int) string {
	if n <= 1 {
		return name
	}
	ext := path.Ext(name)
	return strings.TrimSuffix(name, ext) + "-" + strconv.Itoa(n) + ext
}

// ChunkName is the file name of the part of a sitemap called name whose
// key is key (sitemap.Chunk.Key): name itself for the unkeyed last part,
// "stem-KEY.xml" for the others.
func ChunkName(name, key string) string {
	if key == "" {
		return name
	}
	ext := path.Ext(name)
	return strings.TrimSuffix(name, ext) + "-" + key + ext
}

// IsPartName reports whether file is some part of name (ignoring a ".gz"
// suffix): name itself, "stem-N.xml" for N >= 2 (PartName),
// "stem-KEY.xml" for a 12-hex-digit key (ChunkName), or "stem-sitemapd.xml"
// (OwnKey: the last part of a group an app's sitemap displaces).
func IsPartName(file, name string) bool {
	file = strings.TrimSuffix(file, ".gz")
	if file == name {
		return true
	}
	// stem-num.ext, compared in place: the walk asks this of every file.
	ext := path.Ext(name)
	stem := name[:len(name)-len(ext)]
	if len(file) < len(stem)+1+len(ext) || !strings.HasPrefix(file, stem) || file[len(stem)] != '-' || !strings.HasSuffix(file, ext) {
		return false
	}
	num := file[len(stem)+1 : len(file)-len(ext)]
	if isChunkKey(num) || num == OwnKey {
		return true
	}
	n, err := strconv.Atoi(num)
	return err == nil && n >= 2 && strconv.Itoa(n) == num
}

// isChunkKey reports whether s is a chunk key: 12 lower-case hex digits.
func isChunkKey(s string) bool {
	if len(s) != 12 {
		return false
	}
	for i := range len(s) {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// NormalizeGlob anchors a user glob: patterns starting with "/" match from
// the site root, others match at any depth ("*.pdf" means "**/*.pdf").
func NormalizeGlob(g string) string {
	if strings.HasPrefix(g, "/") {
		return g
	}
	return "/**/" + strings.TrimPrefix(g, "**/")
}

// checkSchedule parses a robfig/cron spec without letting the library's
// panics (v3.0.1 panics on "TZ=" and friends) or its silent rounding of
// sub-second @every intervals reach the daemon.
func checkSchedule(spec string) (err error) {
	if strings.TrimSpace(spec) == "" {
		return errors.New("is required")
	}
	if strings.HasPrefix(spec, "@every") {
		d, perr := parseEvery(spec)
		if perr != nil {
			return perr
		}
		if d < time.Second {
			return fmt.Errorf("interval %v is shorter than one second", d)
		}
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("not a valid cron spec")
		}
	}()
	_, err = cron.ParseStandard(spec)
	return err
}

func parseEvery(spec string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(strings.TrimPrefix(spec, "@every")))
	if err != nil {
		return 0, fmt.Errorf("bad @every interval: %v", err)
	}
	return d, nil
}
