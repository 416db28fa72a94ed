// Package build turns a document root into published sitemaps: it is
// where a walk's groups of URLs (package scan) become sitemap files
// (package sitemap), written atomically (package publish), listed in the
// root index, and remembered (package tree) for the next change.
//
// Engine.Build reads the whole tree; Engine.Update and Engine.Rebuild read
// only the groups a change touched, so a change costs work in proportion
// to its group (with WithChanges, to its directory), not to the site.
// Every publish, full or not, ends in the same finishing step: commit the
// groups' files, then the index, the files beside it, the removal of
// outputs nothing claims any more, and the record of text sitemaps.
//
// Three invariants hold after every publish, and the tests check them:
//
//   - incremental = full: the files on disk equal those a fresh full build
//     of the same tree writes;
//   - the engine's picture of what is published (each group's parts, the
//     daemon's memory of the tree) changes only once the files that show
//     it are committed, so a publish that fails leaves it true;
//   - ownership: no file sitemapd did not write is replaced or removed
//     (sitemaps carry a marker; text sitemaps are in a record, package
//     textrecord; key files hold the key).
//
// The Engine coordinates a publish (a run); its state is its owners',
// each a type with its own methods: published, the model of what is
// published, which takes a run's staged group states only at its commit
// (so a refused or failed publish has nothing to put back); sink, where
// files go (writer, or dryRun for WithDryRun, a second implementation
// rather than a branch of the write path); pageCache, the page store and
// groups record; extras, the URL files and apps' sitemaps; progress, read
// by other goroutines; options, fixed at New. shape_test.go bounds the
// Engine so that it stays a coordinator.
//
// Limits: a group is the unit of failure, so a group that cannot be read
// or written keeps its published sitemap until it can, and is listed by
// Failed for a retry. An Engine is used by one goroutine at a time.
package build
