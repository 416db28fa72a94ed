// Package siteurl maps files of the document root to the URLs they are
// served at. It is the one place that knows how: sitemapd's build lists
// pages through it, names its own sitemap files through it, and `sitemapd
// check` derives through it where a sitemap on disk is served, so that the
// two can never disagree.
//
// A URL is base_url followed by the file's path relative to the root, each
// segment percent-encoded byte by byte: RFC 3986's unreserved characters,
// its sub-delims, ':' and '@' stay as they are ('+' excepted, which some
// decoders read as a space); every other byte, including each byte of a
// multi-byte character and every control character, becomes %XX. So a
// name that is not valid UTF-8 still maps to an ASCII URL that the web
// server decodes back to the same bytes. Index files (index.html) map to
// their directory's URL with a trailing slash; with pretty URLs a page's
// ".html" is dropped.
//
// Limits: the mapping is what nginx and Apache serve for a plain static
// tree; rewrites, aliases and try_files rules of the server are not known.
package siteurl
