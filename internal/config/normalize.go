package config

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
)

// normalize puts the values that have a canonical form into it and sets
// the values derived from others, before validate checks them: paths made
// absolute against the file's directory (root, output_dir, state_dir,
// extra_urls), base_url's canonical form, Mode from file_mode, LastModFrom
// from pages.lastmod, pages.image_hosts in lower case. It rewrites only
// what it can read, so a value it cannot stays as written, for its
// validator to quote; validators see the rest as the program will.
// Defaults are not its business: Default gave them before decoding.
func (c *Config) normalize() {
	c.Root = c.resolve(c.Root)
	c.OutputDir = c.resolve(c.OutputDir)
	c.StateDir = c.resolve(c.StateDir)
	for i := range c.Notify.Endpoints {
		c.normalizeCredentials(&c.Notify.Endpoints[i])
	}
	c.normalizeFleet()
	for i, f := range c.ExtraURLs {
		if namesFile(f) {
			c.ExtraURLs[i] = c.resolve(f)
		}
	}
	if canon, _, err := canonicalBaseURL(c.BaseURL); err == nil {
		c.BaseURL = canon
	}
	if m, err := parseFileMode(c.FileMode); err == nil {
		c.Mode = m
	}
	if src, ok := lastModSources[c.Pages.LastMod]; ok {
		c.Pages.LastModFrom = src
	}
	for i, h := range c.Pages.ImageHosts {
		if norm, ok := imageHost(h); ok {
			c.Pages.ImageHosts[i] = norm
		}
	}
	for i, h := range c.Pages.HreflangHosts {
		if norm, ok := imageHost(h); ok {
			c.Pages.HreflangHosts[i] = norm
		}
	}
}

// namesFile reports whether an extra_urls entry can name a file (its
// directory is checked later): "" and "dir/" cannot.
func namesFile(f string) bool { return f != "" && !strings.HasSuffix(f, "/") }

// canonicalBaseURL checks a base_url and returns it in its canonical form
// (scheme and host in lower case, the path escaped and ending in "/") and
// that path; the error is the problem, quoting raw.
func canonicalBaseURL(raw string) (canon, path string, err error) {
	if raw == "" {
		return "", "", errors.New("is required: the URL the document root is served at (your site's own, http or https)")
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return "", "", fmt.Errorf("%q is not a URL: %v", raw, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return "", "", fmt.Errorf("%q must start with http:// or https://", raw)
	case u.Host == "":
		return "", "", fmt.Errorf("%q has no host", raw)
	case u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return "", "", fmt.Errorf("%q must not carry user info, a query or a fragment", raw)
	case IsPlaceholderHost(u.Hostname()):
		return "", "", fmt.Errorf("%q is the example's placeholder: set the site's own URL", raw)
	}
	p := u.EscapedPath()
	if !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) + p, p, nil
}

// parseFileMode parses file_mode, an octal permission ("0644" or
// "0o644") that leaves files readable by their owner and not writable by
// all; the error is the problem, quoting s.
func parseFileMode(s string) (os.FileMode, error) {
	m, err := strconv.ParseUint(strings.TrimPrefix(s, "0o"), 8, 32)
	switch {
	case err != nil || m > 0o777:
		return 0, fmt.Errorf("%q is not an octal permission such as \"0644\" (owner, group, others; 4 read, 2 write)", s)
	case m&0o002 != 0:
		return 0, fmt.Errorf("%q makes files world-writable", s)
	case m&0o400 == 0:
		return 0, fmt.Errorf("%q leaves files unreadable by their owner", s)
	}
	return os.FileMode(m), nil
}

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
