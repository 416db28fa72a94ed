package scan

import (
	"io"
	"net/url"
	"strings"

	"go.uber.org/zap"
	"golang.org/x/sys/unix"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/head"
	"github.com/sitemapd/sitemapd/internal/sitemap"
	"github.com/sitemapd/sitemapd/internal/siteurl"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// imageRule is which images a page's <url> lists (pages.images): those on
// base_url's host or on one of pages.image_hosts, as siteurl.Absolute
// writes them, at most sitemap.MaxImages a page.
type imageRule struct {
	hosts map[string]bool // host[:port], lower case, without the scheme's default port
}

func newImageRule(cfg *config.Config) *imageRule {
	if !cfg.Pages.Images {
		return nil
	}
	r := &imageRule{hosts: map[string]bool{}}
	if u, err := url.Parse(cfg.BaseURL); err == nil {
		r.hosts[siteurl.HostKey(u.Scheme, u.Host)] = true
	}
	for _, h := range cfg.Pages.ImageHosts {
		r.hosts[h] = true
		// A host named with a default port is the host without it.
		r.hosts[siteurl.HostKey("http", h)] = true
		r.hosts[siteurl.HostKey("https", h)] = true
	}
	return r
}

// options are the head.ImageOptions of one page; long counts the images
// left out for a URL longer than a sitemap allows.
func (r *imageRule) options(long *int) head.ImageOptions {
	return head.ImageOptions{Max: sitemap.MaxImages, Keep: func(u *url.URL) (string, bool) {
		if u.User != nil || !r.hosts[siteurl.HostKey(u.Scheme, u.Host)] {
			return "", false
		}
		loc := siteurl.Absolute(u)
		if len(loc) > sitemap.MaxLocLen {
			*long++
			return "", false
		}
		return loc, true
	}}
}

// readImages reads the images of a page from its file, open as fd, from
// its start, size bytes at most.
func (w *Walk) readImages(fd, size int, loc, rel string) ([]string, error) {
	if _, err := unix.Seek(fd, 0, io.SeekStart); err != nil {
		return nil, err
	}
	return w.images(io.LimitReader(fdReader(fd), int64(size)), loc, rel)
}

// images reads the images of a page from r and says what it left out.
func (w *Walk) images(r io.Reader, loc, rel string) ([]string, error) {
	var long int
	res, err := head.Images(r, loc, w.s.images.options(&long))
	if err != nil {
		return nil, err
	}
	if long > 0 {
		w.log.Warn("page images: URLs longer than the protocol allows for a URL, left out",
			zap.String("path", w.abs(rel)), zap.Int("images", long), zap.Int("max", sitemap.MaxLocLen))
	}
	if res.Truncated {
		w.log.Warn("page longer than the limit: images past it are not listed",
			zap.String("path", w.abs(rel)), zap.Int("limit", head.BodyLimit))
	}
	return res.URLs, nil
}

// packImages packs a page's images (tree.Head.Images).
func packImages(urls []string) string {
	if len(urls) == 0 {
		return ""
	}
	var b strings.Builder
	for _, u := range urls {
		tree.PackImage(&b, u)
	}
	return b.String()
}
