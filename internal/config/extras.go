package config

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/sitemapd/sitemapd/internal/outname"
)

// SiteURL checks a URL a user gave for a page or a sitemap of this site
// (extra_sitemaps, and the lines of extra_urls files) and returns it as a
// <loc>: an absolute http or https URL under base_url, with no user info,
// fragment or dot segments, at most 2,047 characters. Non-ASCII bytes and
// the characters URIs may not hold ("<>\"{}|\\^`") are percent-encoded;
// the scheme and host are made lower case, as base_url is. Spaces and
// control characters are refused: a line holding one is most likely not
// one URL.
func (c *Config) SiteURL(raw string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		switch ch := raw[i]; {
		case ch <= ' ' || ch == 0x7f:
			return "", fmt.Errorf("%q holds a space or control character (percent-encode it, e.g. %%20)", raw)
		case ch >= 0x80 || strings.IndexByte("<>\"{}|\\^`", ch) >= 0:
			fmt.Fprintf(&b, "%%%02X", ch)
		default:
			b.WriteByte(ch)
		}
	}
	u, err := url.Parse(b.String())
	switch {
	case err != nil:
		return "", fmt.Errorf("%q is not a URL: %v", raw, errors.Unwrap(err))
	case (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return "", fmt.Errorf("%q is not an absolute http:// or https:// URL", raw)
	case u.User != nil:
		return "", fmt.Errorf("%q carries user info", raw)
	case u.Fragment != "" || strings.Contains(b.String(), "#"):
		return "", fmt.Errorf("%q has a fragment (#…): a sitemap lists pages, not places in them", raw)
	}
	for _, seg := range strings.Split(u.EscapedPath(), "/") {
		if seg == "." || seg == ".." {
			return "", fmt.Errorf("%q has a %q segment", raw, seg)
		}
	}
	u.Scheme, u.Host = strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	loc := u.String()
	if !strings.HasPrefix(loc, c.BaseURL) {
		return "", fmt.Errorf("%q is not under base_url %s", raw, c.BaseURL)
	}
	if len(loc) > 2047 {
		return "", fmt.Errorf("%q is longer than 2,047 characters as a URL", raw)
	}
	return loc, nil
}

// checkExtraSitemaps checks extra_sitemaps (after base_url and the
// output names, whose values they are checked against): each a sitemap
// under base_url, listed once, and none named like one sitemapd writes.
func (c *Config) checkExtraSitemaps(bad badFunc) {
	base, err := url.Parse(c.BaseURL)
	baseOK := err == nil && (base.Scheme == "http" || base.Scheme == "https") && base.Host != "" && strings.HasSuffix(c.BaseURL, "/")
	seen := map[string]int{}
	names := c.OutputNames()
	for i, raw := range c.ExtraSitemaps {
		key := fmt.Sprintf("extra_sitemaps[%d]", i)
		if !baseOK {
			break // base_url's own error says it all
		}
		loc, err := c.SiteURL(raw)
		if err != nil {
			bad(key, "%v", err)
			continue
		}
		if j, dup := seen[loc]; dup {
			bad(key, "%q is extra_sitemaps[%d] already", raw, j)
			continue
		}
		seen[loc] = i
		rel, _ := url.PathUnescape(strings.TrimPrefix(loc, c.BaseURL))
		dir, name := path.Split(rel)
		switch {
		case rel == "" || strings.HasSuffix(rel, "/"):
			bad(key, "%q names a directory, not a sitemap file", raw)
		case dir == "" && outname.IsPart(name, c.IndexName):
			bad(key, "%q is sitemapd's own index (index_name %q): it would list itself", raw, c.IndexName)
		case dir == "" && c.Feed.Name != "" && name == c.Feed.Name:
			bad(key, "%q is sitemapd's own feed (feed.name %q)", raw, c.Feed.Name)
		case dir == "" && names.Kind(name) == outname.Extra:
			bad(key, "%q is named like the sitemap of an extra_urls file (%s), which sitemapd writes", raw, names.ExtraPattern())
		case outname.IsPart(name, c.SitemapName) && strings.TrimSuffix(name, ".gz") != c.SitemapName:
			bad(key, "%q is named like a part of sitemapd's own sitemaps (sitemap_name %q)", raw, c.SitemapName)
		}
	}
}

// checkExtraURLs checks extra_urls (made absolute by normalize): each a
// file in a directory, published under a name of its own.
func (c *Config) checkExtraURLs(bad badFunc) {
	names := map[string]int{}
	out := c.OutputNames()
	for i, f := range c.ExtraURLs {
		key := fmt.Sprintf("extra_urls[%d]", i)
		if !namesFile(f) {
			bad(key, "%q must name a file of URLs", f)
			continue
		}
		if st, err := os.Stat(filepath.Dir(f)); err != nil {
			bad(key, "the directory of %s: %v", f, err)
		} else if !st.IsDir() {
			bad(key, "%s is not a directory", filepath.Dir(f))
		}
		name := out.Extra(f)
		for other, j := range names {
			if outname.IsPart(name, other) || outname.IsPart(other, name) {
				bad(key, "%s would publish its URLs as %s, like extra_urls[%d] (%s): rename one of the files", f, name, j, c.ExtraURLs[j])
			}
		}
		if outname.IsPart(c.IndexName, name) {
			bad(key, "%s would publish its URLs as %s, index_name's file", f, name)
		}
		names[name] = i
	}
}
