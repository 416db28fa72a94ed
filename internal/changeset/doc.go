// Package changeset is the change set of a publish: the page URLs it
// added, changed (another <lastmod>) and removed, which is what search
// engines are owed (the write-ahead, the notifier, the fleet's ledger)
// and what the status page counts.
//
// A change set is made by comparing two pictures of a group's
// directories (Compare, over tree.Pair: only the directories whose
// listing differs are looked at, and URLs are computed for the pages that
// differ only), or, where nothing is remembered, what sitemap files
// listed with the URLs that replace them (Diff). Changes nobody is to be
// told of may be kept as counts only (Counted), as a daemon's first build
// lists every page as added.
package changeset
