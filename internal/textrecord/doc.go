// Package textrecord keeps the record by which sitemapd knows the text
// sitemaps it wrote.
//
// A text sitemap is nothing but URLs, with no room for the marker comment
// by which sitemapd knows its XML files, so a sitemap.txt is sitemapd's
// only if the record lists it with the SHA-256 of its content: a
// hand-made sitemap.txt, there before text sitemaps were turned on or put
// in place of one of ours, is never overwritten or removed. The record,
// Name at the root of the output, is in sha256sum's format (sha256sum -c
// checks it) and a dotfile, so never listed or served.
//
// The record is written before the files it vouches for are committed
// (Prepare, with the old and the new content's hash) and trimmed after
// (Settle), so that a crash in between leaves every file recognisable. A
// record that cannot be read makes no text sitemap ours, which errs
// towards leaving files alone.
package textrecord
