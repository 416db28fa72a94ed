package config

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/sitemapd/sitemapd/internal/outname"
)

// News configures the Google News sitemap (package news): the pages whose
// head says they are news articles, published in the last 48 hours, listed
// with their publication's name and language. Off while
// Publication.Name is "".
type News struct {
	// Publication is the site's publication: every article's, but those
	// under a path of Publications.
	Publication Publication `yaml:"publication"`
	// Publications are the other publications of a site that has several,
	// each for the pages whose URL path its Match glob matches (as
	// pages.rules' globs do); the first that matches wins.
	Publications []NewsPublication `yaml:"publications"`
	// Paths, if set, are globs of the URL paths (as pages.exclude's) of
	// the only pages that may be listed: a site's news section.
	Paths []string `yaml:"paths"`
}

// Publication is a news publication: its name, as Google News shows it,
// and its language.
type Publication struct {
	Name     string `yaml:"name"`
	Language string `yaml:"language"`
}

// NewsPublication is the publication of the pages whose URL path Match
// matches.
type NewsPublication struct {
	Match    string `yaml:"match"`
	Name     string `yaml:"name"`
	Language string `yaml:"language"`
}

// On reports whether the news sitemap is written.
func (n *News) On() bool { return n.Publication.Name != "" }

// newsLanguageRE is the language Google's news schema (sitemap-news.xsd)
// accepts: an ISO 639 code of 2 or 3 letters, or zh-cn or zh-tw.
var newsLanguageRE = regexp.MustCompile(`^(zh-cn|zh-tw|[a-z]{2,3})$`)

// checkNews checks news: a publication's name and language, the paths'
// globs, each other publication's glob, name and language.
func (c *Config) checkNews(bad badFunc) {
	n := &c.News
	if !n.On() {
		if n.Publication.Language != "" || len(n.Publications) > 0 || len(n.Paths) > 0 {
			bad("news", "news.publication.name is needed for the news sitemap the other news keys describe (it is off without one)")
		}
		return
	}
	checkPublication("news.publication", n.Publication, bad)
	name := c.OutputNames().News()
	if c.IndexName != "" && (outname.IsPart(c.IndexName, name) || outname.IsPart(name, c.IndexName)) {
		bad("index_name", "%q clashes with the news sitemap's name %q (sitemap_name's stem and -news.xml)", c.IndexName, name)
	}
	for i, raw := range c.ExtraSitemaps {
		if loc, err := c.SiteURL(raw); err == nil && outname.IsPart(strings.TrimPrefix(loc, c.BaseURL), name) {
			bad(fmt.Sprintf("extra_sitemaps[%d]", i), "%q is where sitemapd writes the news sitemap (news.publication is set)", raw)
		}
	}
	checkGlobs("news.paths", n.Paths, bad)
	for i, p := range n.Publications {
		key := fmt.Sprintf("news.publications[%d]", i)
		if p.Match == "" {
			bad(key+".match", "is required: a glob over the URL path, such as \"/de/**\"")
		} else if !doublestar.ValidatePattern(NormalizeGlob(p.Match)) {
			bad(key+".match", "%q is not a valid glob", p.Match)
		}
		if p.Name == "" {
			bad(key+".name", "is required: the publication's name as Google News shows it")
		}
		checkPublication(key, Publication{Name: p.Name, Language: p.Language}, bad)
	}
}

// checkPublication checks a publication's name and language at key.
func checkPublication(key string, p Publication, bad badFunc) {
	if strings.TrimSpace(p.Name) != p.Name {
		bad(key+".name", "%q has white space at an end: Google News matches the name exactly", p.Name)
	}
	if !newsLanguageRE.MatchString(p.Language) {
		bad(key+".language", "%q must be an ISO 639 language code of 2 or 3 lower-case letters (\"en\", \"de\", \"fil\"), or zh-cn or zh-tw, as Google's news schema asks", p.Language)
	}
}
