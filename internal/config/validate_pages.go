package config

import (
	"fmt"
	"github.com/sitemapd/sitemapd/internal/significant"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// checkPages checks which files are pages (pages: but its rules and
// robots_agent, checked with the rules and the site).
func (c *Config) checkPages(bad badFunc) {
	p := &c.Pages
	if len(p.Extensions) == 0 {
		bad("pages.extensions", "lists no extensions, so no file would be a page")
	}
	for i, e := range p.Extensions {
		if len(e) < 2 || e[0] != '.' || strings.ContainsAny(e[1:], "./") {
			bad(fmt.Sprintf("pages.extensions[%d]", i), "%q must look like \".html\"", e)
		}
	}
	for i, n := range p.IndexFiles {
		if n == "" || strings.Contains(n, "/") || n == "." || n == ".." {
			bad(fmt.Sprintf("pages.index_files[%d]", i), "%q must be a plain file name like \"index.html\"", n)
		}
	}
	checkGlobs("pages.exclude", p.Exclude, bad)
	if _, ok := lastModSources[p.LastMod]; !ok {
		bad("pages.lastmod", "%q must be \"significant\" (when what the page says last changed), \"content\" (when its bytes last changed) or \"mtime\" (when its file was last written)", p.LastMod)
	}
	if p.Main != "" {
		if _, err := significant.ParseSelector(p.Main); err != nil {
			bad("pages.main", "%v", err)
		}
	}
	for i, sel := range p.Template {
		if _, err := significant.ParseSelector(sel); err != nil {
			bad(fmt.Sprintf("pages.template[%d]", i), "%v", err)
		}
	}
	for i, h := range p.ImageHosts {
		if _, ok := imageHost(h); !ok {
			bad(fmt.Sprintf("pages.image_hosts[%d]", i), "%q must be a host name, with a port if not the scheme's default, like \"cdn.example.net\" (no scheme, path or wildcard)", h)
		}
	}
	for i, h := range p.HreflangHosts {
		if _, ok := imageHost(h); !ok {
			bad(fmt.Sprintf("pages.hreflang_hosts[%d]", i), "%q must be a host name, with a port if not the scheme's default, like \"fr.example.net\" (no scheme, path or wildcard)", h)
		}
	}
	checkGlobs("pages.error_pages", p.ErrorPages, bad)
	for i, g := range p.IgnoreNames {
		if strings.Contains(g, "/") || !doublestar.ValidatePattern(g) {
			bad(fmt.Sprintf("pages.ignore_names[%d]", i), "%q must be a glob for a base name, without \"/\"", g)
		}
	}
}

// checkGlobs reports each of the globs at key that is not valid as
// NormalizeGlob anchors it.
func checkGlobs(key string, globs []string, bad badFunc) {
	for i, g := range globs {
		if !doublestar.ValidatePattern(NormalizeGlob(g)) {
			bad(fmt.Sprintf("%s[%d]", key, i), "%q is not a valid glob", g)
		}
	}
}

// checkRules checks pages.rules: each a glob and what it sets.
func (c *Config) checkRules(bad badFunc) {
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
}
