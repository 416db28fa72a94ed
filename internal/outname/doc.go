// Package outname names the files sitemapd writes into the output and
// tells them apart from everything else there.
//
// Every name is a function of the configured base names (sitemap_name,
// index_name, feed.name, the IndexNow keys, gzip, the built-in
// stylesheet), handed over as Bases: this package knows nothing of YAML
// or validation, and config, which checks that the names do not clash,
// uses it as the build, the walk, the daemon and the CLI do. So one place
// says what a file is called and, asked of a name met on disk, whether it
// is one of sitemapd's and which (Kind).
//
// A sitemap, index, text sitemap, news sitemap or extra_urls sitemap
// comes in parts: part 1 is the base name itself, the others are named
// by a content-defined key (Chunk: "sitemap-0123456789ab.xml"), by number
// as versions before content-defined parts named them (Part:
// "sitemap-2.xml"), or, for the last part of a group an app's sitemap
// displaces, by OwnKey ("sitemap-sitemapd.xml"). The infixes of the
// other outputs ("-news", "-urls-") start with a letter that is no hex
// digit, so no part of one is a part of another. The names are stable: a
// group that grows a part keeps the names of the parts it had.
//
// Which files are sitemapd's by content (the marker of its XML files, the
// record of its text sitemaps, a key file's key) is decided where they
// are read (build, textrecord); this package answers by name only.
package outname
