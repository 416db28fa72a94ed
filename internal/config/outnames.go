package config

import "github.com/sitemapd/sitemapd/internal/outname"

// OutputNames names the site's outputs (package outname, which derives
// every name) from the configured base names: sitemap_name, index_name,
// feed.name, gzip, a builtin stylesheet and the IndexNow endpoints' keys.
func (c *Config) OutputNames() *outname.Site {
	return outname.New(outname.Bases{
		Sitemap: c.SitemapName, Index: c.IndexName, Feed: c.Feed.Name,
		Gzip: c.Gzip, Stylesheet: c.Stylesheet == "builtin", Keys: c.indexNowKeys(),
	})
}

// indexNowKeys are the keys of the IndexNow endpoints, in the
// configuration's order: each has a key file at the root of the output.
func (c *Config) indexNowKeys() []string {
	var keys []string
	for _, ep := range c.Notify.Endpoints {
		if ep.Kind == IndexNow {
			keys = append(keys, ep.Key)
		}
	}
	return keys
}
