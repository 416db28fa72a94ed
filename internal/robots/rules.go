package robots

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/temoto/robotstxt"
	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/config"
)

// Rules are the rules a docroot's robots.txt sets for one user agent. The
// zero Rules allow everything.
type Rules struct {
	data   *robotstxt.RobotsData // nil: everything allowed
	agent  string
	digest [32]byte // of the rules, Sitemap lines left out
}

// Load reads the rules of the docroot's robots.txt for
// pages.robots_agent, or none when pages.robots_txt is off or base_url is
// not the root of its host.
func Load(cfg *config.Config, log *zap.Logger) Rules {
	if !applies(cfg) {
		return Rules{}
	}
	p := filepath.Join(cfg.Root, config.RobotsFile)
	data, err := os.ReadFile(p)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		log.Warn("cannot read robots.txt; listing pages as if it allowed everything", zap.Error(err))
	}
	r := Rules{agent: cfg.Pages.RobotsAgent, digest: digest(data)}
	if len(data) == 0 {
		return r
	}
	rd, err := robotstxt.FromBytes(data)
	if err != nil {
		log.Warn("cannot parse robots.txt; listing pages as if it allowed everything",
			zap.String("path", p), zap.Error(err))
		return r
	}
	r.data = rd
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
	data, _ := os.ReadFile(filepath.Join(cfg.Root, config.RobotsFile))
	return digest(data) != r.digest
}

// AllowsAll reports whether the rules allow every path (no robots.txt,
// or none that applies), so that callers need not compute paths.
func (r *Rules) AllowsAll() bool { return r.data == nil }

// Allowed reports whether crawlers may fetch a site path (percent-encoded,
// with a leading slash).
func (r *Rules) Allowed(path string) bool {
	if r.data == nil {
		return true
	}
	return r.data.TestAgent(path, r.agent)
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
