package config

import (
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"
)

// Config is the whole of one sitemapd configuration. The YAML key names are
// a contract with users (docs/design.md, "Configuration"): add keys
// freely, rename none.
type Config struct {
	// Name names the site: in the logs, the metrics' site label, /healthz
	// and, with several sites in one process, its state directory
	// (state_dir/<name>). A site from an include file is named by the
	// file's base name unless it says otherwise; one in sites: must say.
	Name string `yaml:"name"`
	// Root is the document root to watch, absolute after Load.
	Root string `yaml:"root"`
	// BaseURL is the URL of Root. After Load it always ends in "/".
	BaseURL string `yaml:"base_url"`
	// OutputDir is where sitemaps are written; empty means Root (read it
	// through OutputRoot). Absolute after Load. The directory layout below
	// it mirrors Root.
	OutputDir string `yaml:"output_dir"`
	// Depth folds per-directory groups: a directory at depth < Depth has a
	// group of its own pages only; a directory at depth == Depth has a group
	// covering its whole subtree. Depth 0 is one sitemap for the whole site.
	Depth int `yaml:"depth"`
	// SitemapName is the file name of each group's sitemap. A group larger
	// than PartSize is written in parts: the last one by this name, the
	// others named by a key before the extension (outname.Chunk).
	SitemapName string `yaml:"sitemap_name"`
	// PartSize is about how many URLs a sitemap part holds: parts are cut
	// where a URL's hash says (sitemap.Chunks), so that one change rewrites
	// one part of about this size, not its whole group. 0 writes each
	// group as one file, as far as the protocol's limits allow.
	PartSize int `yaml:"part_size"`
	// IndexName is the file name of the root sitemap index.
	IndexName string `yaml:"index_name"`
	// Gzip writes NAME.gz instead of NAME.
	Gzip bool `yaml:"gzip"`
	// FileMode is the permission of every file sitemapd writes, as an octal
	// string ("0644"). It is applied explicitly, so the umask does not matter.
	FileMode string `yaml:"file_mode"`

	Pages  Pages  `yaml:"pages"`
	Watch  Watch  `yaml:"watch"`
	Notify Notify `yaml:"notify"`
	Fleet  Fleet  `yaml:"fleet"` // fleet.go

	// Stylesheet makes every sitemap and index name an XSL stylesheet, so a
	// browser shows it as a table: "builtin" (sitemapd writes its own as
	// sitemap.xsl at the root of the output), a path from the site root
	// ("/static/sitemap.xsl") or a URL on the same site; "" for none.
	Stylesheet string `yaml:"stylesheet"`

	// Formats are the sitemap formats written: "xml" always, and "txt" for
	// a text sitemap (one URL a line) next to each XML one, named like it
	// with .txt ("sitemap.txt", "sitemap-2.txt").
	Formats []string `yaml:"formats"`

	// RobotsTxt keeps one "Sitemap:" line per index file in the robots.txt
	// at the root of the output, changing nothing else in it.
	RobotsTxt bool `yaml:"robots_txt"`

	// Feed is the Atom feed of the site's most recently changed pages,
	// written at the root of the output; off while its name is "".
	Feed Feed `yaml:"feed"`

	// News is the Google News sitemap (news.go); off while its
	// publication has no name.
	News News `yaml:"news"`

	// SelfCheck is the daemon's check of the public view (selfcheck.go);
	// off unless enabled.
	SelfCheck SelfCheck `yaml:"selfcheck"`

	// ShrinkGuard refuses a publish that would stop listing more than half
	// of the pages listed before while their files are still there (left
	// out by a rule: robots.txt, noindex, canonical…), or that would list
	// nothing while there are pages: most likely a mistake (a wrong
	// base_url makes every canonical point elsewhere), which must not
	// empty a site. `sitemapd build -force` makes one publish anyway.
	ShrinkGuard bool `yaml:"shrink_guard"`

	// ExtraSitemaps are the URLs of sitemaps an application on the same
	// site writes (under BaseURL), listed in the root index next to
	// sitemapd's own; sitemapd never writes nor removes them. One at the
	// path of a group's sitemap displaces the group's last part to
	// OwnName's name (extras.go).
	ExtraSitemaps []string `yaml:"extra_sitemaps"`
	// ExtraURLs are files of URLs (one a line, optionally a tab and a W3C
	// date), each published as a sitemap of its own at the root of the
	// output, named by outname.Site.Extra. Absolute after Load.
	ExtraURLs []string `yaml:"extra_urls"`

	// StateDir holds what the notifier still owes each endpoint and the
	// page store. Its default is DefaultStateDir.
	StateDir string `yaml:"state_dir"`
	Log      Log    `yaml:"log"`
	Listen   string `yaml:"listen"`

	// File is the path the config was loaded from (not a YAML key).
	File string `yaml:"-"`
	// Mode is FileMode parsed (not a YAML key).
	Mode fs.FileMode `yaml:"-"`
}

// OutputRoot is the directory sitemaps are written below: OutputDir, or
// Root when it is not set.
func (c *Config) OutputRoot() string {
	if c.OutputDir != "" {
		return c.OutputDir
	}
	return c.Root
}

// TextSitemaps reports whether text sitemaps are written.
func (c *Config) TextSitemaps() bool { return slices.Contains(c.Formats, "txt") }

// Pages says which files are pages and how they map to URLs.
type Pages struct {
	Extensions     []string `yaml:"extensions"`
	IndexFiles     []string `yaml:"index_files"`
	PrettyURLs     bool     `yaml:"pretty_urls"`
	FollowSymlinks bool     `yaml:"follow_symlinks"`
	// RobotsTxt leaves out pages that the docroot's robots.txt disallows
	// for RobotsAgent (only when base_url is a host root, where crawlers
	// read robots.txt).
	RobotsTxt   bool   `yaml:"robots_txt"`
	RobotsAgent string `yaml:"robots_agent"`
	// What an HTML page's head says (.html, .htm and .xhtml files, read up
	// to the end of the head, and in the daemon again only when the file's
	// mtime or size changes). NoIndex leaves out pages whose robots or
	// googlebot meta tag says noindex or none; Canonical, pages whose
	// rel=canonical link names another URL; Hreflang lists each page's
	// hreflang alternates as xhtml:link entries: those search engines
	// accept (package hreflang). HreflangHosts are the hosts, besides
	// base_url's, whose alternates are listed unchecked (another site of
	// the same owner); alternates on any other host are not. Load
	// lower-cases them (normalize).
	NoIndex       bool     `yaml:"noindex"`
	Canonical     bool     `yaml:"canonical"`
	Hreflang      bool     `yaml:"hreflang"`
	HreflangHosts []string `yaml:"hreflang_hosts"`
	// Redirects leaves out pages whose head sends a browser elsewhere at
	// once (a meta refresh with a delay of 0 or 1 seconds and a URL):
	// redirect stubs, which search engines do not index.
	Redirects bool `yaml:"redirects"`
	// LastMod says what a page's <lastmod> means: "significant" (the
	// default), when what the page says last changed: its main content's
	// text, title, links and images, its structured data, not the site's
	// template, scripts, styles or build stamps (package significant);
	// "content", when the page's bytes last changed, kept across
	// rewrites of the same bytes by a content hash in state_dir; or
	// "mtime", when its file was last written. Load sets LastModFrom from
	// it (normalize).
	LastMod     string        `yaml:"lastmod"`
	LastModFrom LastModSource `yaml:"-"`
	// Main, when set, says where an HTML page's main content is, for
	// sites where learning the template gets it wrong: a simple selector
	// (tag, #id, .class, tag.class, tag#id, [role=main]); only what the
	// first element it matches holds counts (pages.lastmod: significant).
	Main string `yaml:"main"`
	// Template lists selectors of the same kind for elements that are the
	// site's template whatever learning says: what they hold never moves
	// a lastmod.
	Template []string `yaml:"template"`
	// HeadDates takes an HTML page's lastmod from the modification time
	// its head states (article:modified_time, og:updated_time, JSON-LD
	// dateModified), when it states one that is not in the future.
	HeadDates bool `yaml:"head_dates"`
	// Images lists, in each HTML page's <url>, the images the page shows
	// (img src and srcset, picture source srcset, og:image) as Google's
	// image:image entries. It costs reading each HTML page's whole body,
	// not only its head, when its file changes. ImageHosts are the hosts,
	// besides base_url's, whose images are listed (a CDN's); images on
	// any other host are not. Load lower-cases them (normalize).
	Images     bool     `yaml:"images"`
	ImageHosts []string `yaml:"image_hosts"`
	Exclude    []string `yaml:"exclude"`
	// ErrorPages are globs, like Exclude's, of the site's error pages
	// (404.html, 50x.html, …): files that exist to be served in place of a
	// page that does not, never pages to crawl. The default list covers
	// the common names; setting the key replaces it.
	ErrorPages []string `yaml:"error_pages"`
	// IgnoreNames are base-name globs for editor, backup and temporary files
	// that are never pages. The default list covers vim, emacs, rsync, sed -i
	// and browser downloads; setting the key replaces it.
	IgnoreNames []string `yaml:"ignore_names"`
	Rules       []Rule   `yaml:"rules"`
}

// Rule sets changefreq and priority for URL paths matching a glob. Rules are
// tried in order and the first match wins.
type Rule struct {
	Match      string   `yaml:"match"`
	Priority   *float64 `yaml:"priority"`
	ChangeFreq string   `yaml:"changefreq"`
}

// Feed configures the feed of changes: an Atom 1.0 feed (package feed)
// named Name at the root of the output, listing the Entries pages with
// the latest lastmod, newest first.
type Feed struct {
	Name    string `yaml:"name"`
	Entries int    `yaml:"entries"`
}

// MaxFeedEntries bounds feed.entries: a feed is the recent changes, which
// readers poll often; the sitemaps list everything.
const MaxFeedEntries = 1000

// DefaultFeedEntries is feed.entries' default.
const DefaultFeedEntries = 100

// Watch tunes the daemon's file watching.
type Watch struct {
	Settle   time.Duration `yaml:"settle"`
	MaxDelay time.Duration `yaml:"max_delay"`
	Rescan   time.Duration `yaml:"rescan"`
}

// Notify configures search engine notification.
type Notify struct {
	Schedule  string     `yaml:"schedule"`
	Endpoints []Endpoint `yaml:"endpoints"`
	// Timeout bounds each HTTP request.
	Timeout time.Duration `yaml:"timeout"`
	// Attempts is how many times one scheduled run tries a request that
	// fails in a way worth retrying (network errors, 408, 429, 5xx).
	Attempts int `yaml:"attempts"`
	// MaxBackoff caps the wait between attempts, including a server's
	// Retry-After.
	MaxBackoff time.Duration `yaml:"max_backoff"`
}

// Endpoint is one place to notify.
type Endpoint struct {
	Name string       `yaml:"name"`
	Kind EndpointKind `yaml:"kind"`
	URL  string       `yaml:"url"`
	Key  string       `yaml:"key"` // IndexNow key
	// Delay and Schedule say when the endpoint is sent (notify_timing.go):
	// Delay after the publish that owes it, or on a cron Schedule.
	Delay    *time.Duration `yaml:"delay"`
	Schedule string         `yaml:"schedule"`
	// Property and Credentials are a searchconsole endpoint's: the
	// Search Console property (sc-domain:HOST or a URL prefix) and the
	// path of the service account's JSON key (searchconsole.go).
	Property    string `yaml:"property"`
	Credentials string `yaml:"credentials"`
}

// EndpointKind is how an endpoint is told: its YAML spelling is the value.
type EndpointKind string

const (
	// IndexNow endpoints receive the page URLs added, changed and removed.
	IndexNow EndpointKind = "indexnow"
	// Ping endpoints receive a GET of a URL naming the sitemap index.
	Ping EndpointKind = "ping"
	// SearchConsole endpoints submit the sitemap indexes to Google's
	// Search Console API and read back Google's view of them.
	SearchConsole EndpointKind = "searchconsole"
)

// Log configures logging.
type Log struct {
	Level  string `yaml:"level"`  // debug, info, warn, error
	Format string `yaml:"format"` // auto, json, console
}

// LastModSource is what a page's lastmod is taken from (pages.lastmod).
type LastModSource int

const (
	// LastModContent: the mtime at which the page's bytes last changed.
	LastModContent LastModSource = iota
	// LastModMTime: the file's mtime.
	LastModMTime
	// LastModSignificant: the mtime at which what the page says last
	// changed (for pages that are not HTML, its bytes).
	LastModSignificant
)

// lastModSources are pages.lastmod's values.
var lastModSources = map[string]LastModSource{"significant": LastModSignificant, "content": LastModContent, "mtime": LastModMTime}

// KeepsTimes reports whether pages' times are the last change of
// something sitemapd reads (content or significant), kept in state_dir
// across rewrites; false for mtime.
func (s LastModSource) KeepsTimes() bool { return s != LastModMTime }

// DefaultPartSize is part_size's default: see bench/README.md (part_size)
// for the measurements behind it.
const DefaultPartSize = 1000

// Default returns the configuration every loaded file starts from.
func Default() Config {
	return Config{
		Depth:       1,
		SitemapName: "sitemap.xml",
		PartSize:    DefaultPartSize,
		IndexName:   "sitemap_index.xml",
		Formats:     []string{"xml"},
		FileMode:    "0644",
		Pages: Pages{
			Extensions:     []string{".html", ".htm", ".pdf"},
			IndexFiles:     []string{"index.html", "index.htm"},
			FollowSymlinks: true,
			RobotsTxt:      true,
			RobotsAgent:    "*",
			NoIndex:        true,
			Canonical:      true,
			Hreflang:       true,
			Redirects:      true,
			LastMod:        "significant",
			HeadDates:      true,
			ErrorPages:     DefaultErrorPages(),
			IgnoreNames:    DefaultIgnoreNames(),
		},
		Feed:        Feed{Entries: DefaultFeedEntries},
		ShrinkGuard: true,
		SelfCheck:   DefaultSelfCheck(),
		Watch: Watch{
			Settle:   500 * time.Millisecond,
			MaxDelay: 5 * time.Second,
			Rescan:   6 * time.Hour,
		},
		Notify: Notify{
			Schedule: "*/10 * * * *",
			Timeout:  10 * time.Second, Attempts: 5, MaxBackoff: 5 * time.Minute,
		},
		StateDir: DefaultStateDir(),
		Log:      Log{Level: "info", Format: "auto"},
		Fleet:    Fleet{Prefix: DefaultFleetPrefix},
	}
}

// DefaultStateDir is state_dir's default: the first directory of
// $STATE_DIRECTORY, which systemd sets to the unit's StateDirectory=
// (sitemapd@site.service has /var/lib/sitemapd/site, its own), and
// otherwise /var/lib/sitemapd.
func DefaultStateDir() string {
	first, _, _ := strings.Cut(os.Getenv("STATE_DIRECTORY"), ":")
	if first != "" {
		return first
	}
	return "/var/lib/sitemapd"
}

// DefaultIgnoreNames lists base-name globs of editor, backup and partial
// files: vim's swap files and its 4913 write probe, emacs's #autosave#
// and backups, rsync's and browsers' partial downloads, Office's ~$ lock
// files. Dotfiles are always ignored and need no
// entry here.
func DefaultIgnoreNames() []string {
	return []string{
		"*~", "*.bak", "*.old", "*.orig", "*.swp", "*.swo", "#*#",
		"4913", "*.tmp", "*.part", "*.crdownload", "~$*",
	}
}

// DefaultErrorPages lists globs of the error pages static servers and site
// generators use: 404.html (GitHub Pages, Netlify, Hugo, Jekyll, Sphinx),
// nginx's 50x.html, 500.html and the like, Gatsby's 404/index.html and
// rustdoc's not_found.html.
func DefaultErrorPages() []string {
	return []string{
		"[45][0-9][0-9].html", "[45][0-9][0-9].htm", "[45][0-9]x.html", "[45]xx.html",
		"404/index.html", "not_found.html",
	}
}

// ValidChangeFreqs are the changefreq values of the sitemaps.org protocol.
var ValidChangeFreqs = []string{"always", "hourly", "daily", "weekly", "monthly", "yearly", "never"}
