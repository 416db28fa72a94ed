package build

import (
	"net/url"
	"path"
	"slices"
	"strings"
)

// PublishedFiles lists the files of the sitemaps the site publishes, as
// paths relative to the output directory: the index files, and every
// file they list below base_url (the sitemap files, the news sitemap,
// extra sitemaps), sorted. A fleet compares their bytes across servers
// (fleet.Digester). It reads the index as it is on disk, a line an
// entry: call it from the goroutine that publishes, after a publish.
func (e *Engine) PublishedFiles() []string {
	index := e.model.indexNames(e.cfg)
	names := slices.Clone(index)
	for loc := range e.disk.urls(index) {
		p, ok := e.loc.SitePath(loc)
		if !ok {
			continue
		}
		name, err := url.PathUnescape(strings.TrimPrefix(p, "/"))
		if err == nil && name != "" && name == path.Clean(name) && !strings.HasPrefix(name, "../") {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}
