// Package tree is sitemapd's picture of the document root: what it
// remembers of each directory (a Listing), the daemon's Memory of the
// whole tree as last published, and which pages differ between two
// pictures (Pair: package changeset makes what search engines are told
// of it).
//
// It also holds the rules every part of sitemapd must agree on about that
// picture: how directories fold into sitemap groups (Depth), and which
// modification time shows as a page's lastmod (LastMod).
//
// Memory is updated only through Apply, with an Update computed by a read
// of one group; the caller applies it once that group's files are
// committed, so that Memory always describes what readers of the sitemaps
// see. Nothing here touches the filesystem.
package tree
