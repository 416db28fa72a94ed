package build

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
	"golang.org/x/sys/unix"

	"github.com/sitemapd/sitemapd/internal/config"
)

// robotsFile is where crawlers look for Sitemap lines: the site root, here
// the root of the output.
const robotsFile = "robots.txt"

// publishRobots keeps one "Sitemap:" line per index file in robots.txt
// (robots_txt: true), changing nothing else in it; the file is created if
// absent. A robots.txt sitemapd may not write is left alone with a warning:
// replacing it by rename would take it from its owner.
func (e *Engine) publishRobots(rep *Report) error {
	if !e.cfg.RobotsTxt {
		return nil
	}
	abs := e.pub.Dir() + "/" + robotsFile
	var old []byte
	mode := fs.FileMode(0o644)
	st, err := e.pub.Stat(robotsFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	case !st.Mode().IsRegular():
		e.log.Warn("robots.txt is not a regular file; not adding Sitemap lines", zap.String("path", abs))
		return nil
	default:
		if err := unix.Access(abs, unix.W_OK); err != nil {
			e.log.Warn("robots.txt is not writable by sitemapd; not adding Sitemap lines", zap.String("path", abs), zap.Error(err))
			return nil
		}
		if old, err = e.pub.ReadFile(robotsFile); err != nil {
			return err
		}
		mode = st.Mode().Perm()
	}
	data := robotsLines(old, e.IndexURLs(), e.isIndexURL)
	if bytes.Equal(data, old) || (old == nil && len(data) == 0) {
		return nil
	}
	batch := e.pub.Begin()
	changed, err := batch.PutMode(robotsFile, data, mode)
	if err != nil {
		return err
	}
	if changed {
		rep.Written = append(rep.Written, abs)
	}
	failed, err := e.commitFiles(batch, rep)
	return errors.Join(err, failed[robotsFile])
}

// isIndexURL reports whether a URL names one of this site's index files,
// of any part number: a line for an index file that is no more is ours to
// remove.
func (e *Engine) isIndexURL(u string) bool {
	rest, ok := strings.CutPrefix(u, e.cfg.BaseURL)
	if !ok {
		return false
	}
	name, err := url.PathUnescape(rest)
	return err == nil && !strings.Contains(name, "/") && config.IsPartName(name, e.cfg.IndexName)
}

// robotsLines returns robots.txt content with exactly one "Sitemap: U" line
// for each U in want: lines already there stay where they are, missing ones
// are appended, duplicates and lines for index files of ours not in want
// are dropped. Every other byte is kept, line endings included.
func robotsLines(old []byte, want []string, ours func(string) bool) []byte {
	var out []byte
	have := map[string]bool{}
	eol := "\n"
	if bytes.Contains(old, []byte("\r\n")) {
		eol = "\r\n"
	}
	for rest := old; len(rest) > 0; {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i+1], rest[i+1:]
		} else {
			rest = nil
		}
		if u, ok := sitemapLine(line); ok {
			wanted := false
			for _, w := range want {
				wanted = wanted || w == u
			}
			if (wanted && have[u]) || (!wanted && ours(u)) {
				continue
			}
			have[u] = true
		}
		out = append(out, line...)
	}
	for _, u := range want {
		if have[u] {
			continue
		}
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, eol...)
		}
		out = append(out, "Sitemap: "+u+eol...)
	}
	return out
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

// robotsRules is the docroot's robots.txt, for leaving out pages it
// disallows (pages.robots_txt): crawlers would not fetch them, and a
// sitemap listing them is one engines trust less.
type robotsRules struct {
	data  *robotstxt.RobotsData // nil: everything allowed
	rules [32]byte              // digest of the rules, Sitemap lines left out
}

// loadRobots reads the docroot's robots.txt. It applies only where
// crawlers read it, so only with base_url at the root of its host; a
// missing file allows everything, and so does one that cannot be parsed
// (with a warning: listing too much beats listing nothing).
func (e *Engine) loadRobots() {
	e.robots = robotsRules{}
	if !e.cfg.Pages.RobotsTxt {
		return
	}
	if u, err := url.Parse(e.cfg.BaseURL); err != nil || u.Path != "/" {
		return
	}
	data, err := os.ReadFile(filepath.Join(e.cfg.Root, robotsFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		e.log.Warn("cannot read robots.txt; listing pages as if it allowed everything", zap.Error(err))
	}
	e.robots.rules = robotsDigest(data)
	if len(data) == 0 {
		return
	}
	rd, err := robotstxt.FromBytes(data)
	if err != nil {
		e.log.Warn("cannot parse robots.txt; listing pages as if it allowed everything",
			zap.String("path", filepath.Join(e.cfg.Root, robotsFile)), zap.Error(err))
		return
	}
	e.robots.data = rd
}

// robotsDigest hashes the rules of a robots.txt: every line but the
// Sitemap lines, which sitemapd itself may keep (robots_txt: true) and
// which allow or disallow nothing.
func robotsDigest(data []byte) [32]byte {
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

// RobotsChanged reports whether the docroot's robots.txt now has other
// rules than the engine reads pages with: then every group must be read
// again (Build), since any page may be in or out.
func (e *Engine) RobotsChanged() bool {
	if !e.cfg.Pages.RobotsTxt {
		return false
	}
	data, _ := os.ReadFile(filepath.Join(e.cfg.Root, robotsFile))
	return robotsDigest(data) != e.robots.rules
}

// allowed reports whether robots.txt lets crawlers fetch a URL.
func (e *Engine) allowed(loc string) bool {
	if e.robots.data == nil {
		return true
	}
	path := "/" + strings.TrimPrefix(loc, e.cfg.BaseURL)
	return e.robots.data.TestAgent(path, e.cfg.Pages.RobotsAgent)
}
