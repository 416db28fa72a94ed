package robots

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io/fs"
	"net/url"
	"path/filepath"
	"strings"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/outname"
	"github.com/sitemapd/sitemapd/internal/safefile"
)

// maxSize is how much of a robots.txt Google reads: 500 KiB, the rest is
// ignored (RFC 9309 asks crawlers to read at least that much).
const maxSize = 500 << 10

// Rules are the rules a docroot's robots.txt sets for one user agent. The
// zero Rules allow everything. Rules are immutable and safe for concurrent
// use.
type Rules struct {
	// rules decide a path: the first that matches does, in the order
	// Google's precedence gives (longest pattern first, Allow before
	// Disallow). Empty when no path can be disallowed.
	rules  []rule
	digest [32]byte // of the rules, Sitemap lines left out
}

// Load reads the rules of the docroot's robots.txt for
// pages.robots_agent, or none when pages.robots_txt is off or base_url is
// not the root of its host.
func Load(cfg *config.Config, log *zap.Logger) Rules {
	if !applies(cfg) {
		return Rules{}
	}
	data, err := read(cfg)
	var tooLarge *safefile.TooLargeError
	switch {
	case errors.As(err, &tooLarge):
		log.Warn("robots.txt is larger than crawlers read; rules past the limit are ignored, as Google ignores them",
			zap.String("path", tooLarge.Path), zap.Int64("limit", tooLarge.Limit))
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		log.Warn("cannot read robots.txt; listing pages as if it allowed everything", zap.Error(err))
	}
	r := parse(data, cfg.Pages.RobotsAgent)
	r.digest = digest(data)
	return r
}

func applies(cfg *config.Config) bool {
	if !cfg.Pages.RobotsTxt {
		return false
	}
	u, err := url.Parse(cfg.BaseURL)
	return err == nil && u.Path == "/"
}

// Changed reports whether the docroot's robots.txt now has other rules
// than r was loaded with: then any page may be in or out.
func (r *Rules) Changed(cfg *config.Config) bool {
	if !applies(cfg) {
		return false
	}
	data, _ := read(cfg)
	return digest(data) != r.digest
}

// read reads the first maxSize bytes of the docroot's robots.txt, as
// Google does, and never more into memory. Others write the docroot: a
// link is followed, as nginx follows it, but only to a regular file, and
// a FIFO or a device is refused, never opened (safefile). Unreadable, it
// gives no bytes: rules that allow everything.
func read(cfg *config.Config) ([]byte, error) {
	data, err := safefile.ReadFile(filepath.Join(cfg.Root, outname.RobotsName), maxSize, safefile.Follow)
	var tooLarge *safefile.TooLargeError
	if err != nil && !errors.As(err, &tooLarge) {
		return nil, err
	}
	return data, err
}

// AllowsAll reports whether the rules allow every path (no robots.txt,
// or none of its rules for the agent disallows anything), so that callers
// need not compute paths.
func (r *Rules) AllowsAll() bool { return len(r.rules) == 0 }

// Allowed reports whether crawlers may fetch a site path (percent-encoded,
// with a leading slash, and the query if any), as Google's matcher
// answers for the URL of that path.
func (r *Rules) Allowed(path string) bool {
	if len(r.rules) == 0 {
		return true
	}
	if path == "" || path[0] != '/' {
		path = "/" + path // as Google takes the path of "https://host?q"
	}
	for i := range r.rules {
		if r.rules[i].match(path) {
			return r.rules[i].allow
		}
	}
	return true
}

// digest hashes the rules of a robots.txt: every line but the Sitemap
// lines, which sitemapd itself may keep (robots_txt: true) and which allow
// or disallow nothing.
func digest(data []byte) [32]byte {
	h := sha256.New()
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if _, isSitemap := sitemapLine(line); !isSitemap {
			h.Write(line)
		}
	}
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}

// sitemapLine parses a "Sitemap: URL" line (the field name is
// case-insensitive; a comment may follow the URL).
func sitemapLine(line []byte) (string, bool) {
	s := strings.TrimSpace(string(line))
	field, value, ok := strings.Cut(s, ":")
	if !ok || !strings.EqualFold(strings.TrimSpace(field), "sitemap") {
		return "", false
	}
	value, _, _ = strings.Cut(value, "#")
	return strings.TrimSpace(value), true
}
