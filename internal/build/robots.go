package build

import (
	"bytes"
	"errors"
	"io/fs"
	"net/url"
	"strings"

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
	failed, err := batch.Commit()
	for _, ferr := range failed {
		return ferr
	}
	if err == nil && changed {
		rep.Written = append(rep.Written, abs)
	}
	return err
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
