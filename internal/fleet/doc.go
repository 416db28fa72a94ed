// Package fleet makes the servers of one site agree, through etcd, on the
// times they publish: each page's lastmod, and each sitemap file's lastmod
// in the index. Each server runs its own sitemapd on its own copy of the
// document root; where two copies hold the same bytes, the servers publish
// the same time, whatever their files' mtimes (docs/fleet.md).
//
// The agreement is per version: a version is a page's root-relative path
// with the hash of its bytes (a sitemap file's name with the hash of its
// bytes), and its record in etcd is the time the first server to see that
// version published for it, created with a create-only transaction (a
// compare-and-swap on the key's absence). Every other server adopts the
// record's time. A record is never overwritten, so two servers on
// different versions (mid-deploy) never undo each other; the creator of a
// version's record deletes the record of the version it had before, so
// etcd holds about one record per page.
//
// Lookups are local: each server mirrors the site's records (loaded at
// start, before the first publish, and kept by a watch), so a walk asks
// no network question. Records to create are queued and sent in batches,
// one transaction per 128 versions. While etcd cannot be reached the
// server publishes its own times and keeps the queue; when etcd returns,
// a queued version another server recorded meanwhile takes that
// server's time, and the pages and files concerned are handed to the
// daemon (Changed, Take) to be published again.
//
// The leader (Lead) sends the fleet's notifications, and keeps a ledger
// of them in etcd (ledger.go): each batch in flight, then marked sent,
// so that the others forget what it sent and a new leader sends only
// what nobody sent, plus at most the one batch its predecessor left in
// flight. A server owes only the changes it made first: not a time it
// adopted, nor a late copy of what the leader sent (late.go).
//
// Each server writes a digest of its published sitemaps under its name,
// on its election session's lease, when it changes (digest.go): `sitemapd
// fleet` compares them (Inspect).
package fleet
