// Package build turns a document root into published sitemaps.
//
// The work has three parts, kept apart so the daemon can reuse each:
//
//   - the walk (walk.go) reads directories in parallel and maps page files
//     to URLs (urls.go) through the filters (filter.go, robots.go) and what
//     each page's head says (head.go, with package head; the heads of
//     unchanged files come from memory or the head store, headstore.go),
//     producing one Group per sitemap group;
//   - the model is the Group: a directory and its URLs, sorted by Loc,
//     from which the sitemap bytes follow purely (package sitemap);
//   - the write path (Engine.publishGroup, publishIndex) stages changed
//     files in a publish.Batch and commits them atomically; text sitemaps
//     (text.go) go with their XML ones, under a record of their hashes.
//
// Engine.Build runs all three over the whole tree; Engine.Rebuild re-reads
// only the groups named (Engine.GroupOf maps a directory to its group), so a
// change costs work in proportion to its group, not to the site. Either
// way, the files on disk afterwards equal those a fresh full build of the
// same tree writes.
//
// Limits: symlinked directories are listed under the link's path but never
// start a group of their own; a group is the unit of failure, so a group
// that cannot be read keeps its published sitemap until it can.
package build
