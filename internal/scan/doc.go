// Package scan reads the document root and decides what it lists: which
// files are pages, the URL each is served at (package siteurl), the
// changefreq and priority rules, robots.txt's rules (package robots) and
// what each HTML page's head says (package head). It returns plain groups
// of URLs, one per sitemap group, and, for the daemon's memory, a Listing
// of each directory read (package tree).
//
// A Walk reads a subtree in parallel, depth first, and hands each group
// over as soon as every directory of it has been read, so memory holds
// about one group per worker rather than the whole tree. Refresh re-reads
// only the directories (or single entries) a change touched, against what
// the daemon remembers, and returns the group as it will be with the
// update to remember once it is published.
//
// The decisions, in the order they are made for each directory entry:
// dot-names, editor and backup files, sitemapd's own outputs and
// robots.txt are never listed nor descended into; exclude globs match the
// file's path and its URL path; robots.txt disallows; a URL of 2,048
// characters or more is skipped with a warning; an mtime in the future
// gives no lastmod (tree.LastMod); then the head rules: noindex and a
// canonical naming another URL keep the page out (remembered, not listed),
// hreflang alternates are kept with it. When two index files of one
// directory map to its URL, the first of pages.index_files wins.
//
// Limits: symlinks are followed only inside the (resolved) root, and a
// directory reached through one is listed under the link's path but never
// starts a group of its own (a sitemap written there would land in the
// link's target). A group is the unit of failure: a group any directory of
// which cannot be read has Err set, and must not replace what is published.
package scan
