package daemon

import (
	"net/url"
	"os"
	"path"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/sitemap"
	"github.com/sitemapd/sitemapd/internal/siteurl"
)

// publishDigest tells the fleet what the sitemaps are after a publish:
// their digest, in etcd under this server's name when it changed, for
// `sitemapd fleet` to compare with the other servers'. Nothing without a
// fleet.
func (ss *session) publishDigest() {
	if ss.fleet == nil {
		return
	}
	names, err := publishedFiles(ss.cfg.OutputRoot(), siteurl.New(ss.cfg), ss.eng.IndexURLs())
	if err == nil {
		err = ss.fleet.Published(ss.cfg.OutputRoot(), names)
	}
	if err != nil {
		ss.s.log.Warn("fleet: the sitemaps' digest cannot be made: sitemapd fleet will not compare this server's", zap.Error(err))
	}
}

// publishedFiles lists the files of the sitemaps published under dir (the
// output directory), as paths relative to it, sorted: the index files
// (at indexURLs), and every file they list below base_url (the sitemap
// files, the news sitemap, extra sitemaps). The index is read as it is on
// disk, a small file an entry a line (sitemap.ReadURLs).
func publishedFiles(dir string, loc *siteurl.Locator, indexURLs []string) ([]string, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	var names []string
	listed := map[string]string{}
	for _, u := range indexURLs {
		name, ok := fileOf(loc, u)
		if !ok {
			continue
		}
		names = append(names, name)
		if err := readIndex(root, name, listed); err != nil {
			return nil, err
		}
	}
	for u := range listed {
		if name, ok := fileOf(loc, u); ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return slices.Compact(names), nil
}

// fileOf is the file, relative to the output directory, of a URL below
// base_url.
func fileOf(loc *siteurl.Locator, u string) (string, bool) {
	p, ok := loc.SitePath(u)
	if !ok {
		return "", false
	}
	name, err := url.PathUnescape(strings.TrimPrefix(p, "/"))
	return name, err == nil && name != "" && name == path.Clean(name) && !strings.HasPrefix(name, "../")
}

// readIndex adds the locs of index file name to locs.
func readIndex(root *os.Root, name string, locs map[string]string) error {
	f, err := root.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	return sitemap.ReadFileURLs(f, name, locs)
}
