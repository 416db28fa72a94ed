// Package hreflang decides which of a page's hreflang alternates its
// sitemap entry lists: only those search engines will accept.
//
// Google's rules for alternates in a sitemap ("Tell Google about localized
// versions of your page"): each language version lists itself and every
// other version, and if two pages do not both point to each other, the
// annotations are ignored (return links, so that no one can claim another
// site's page as a version of theirs). So a page's entry lists an
// alternate only when it is
//
//   - the page itself (its listed URL);
//   - a page on the site's host that the site lists and whose own head
//     names the page back among its alternates (Unlisted, NoReturn
//     otherwise); or
//   - on a host pages.hreflang_hosts names (another site of the same
//     owner, which sitemapd cannot read, so it is kept unchecked);
//     any other host is OtherHost.
//
// A set that does not name the page itself is dropped whole (NoSelf); a
// set left with nothing but the page itself is dropped too (Alone): it
// names no other version. Return links are read from what the targets'
// heads say, not from what their sitemap entries keep, so the decision
// is one pass, with no fixed point to look for.
//
// The Graph keeps, per listed page that names alternates, the keys of its
// targets (a hash of the URL as urlKey normalises it): what the rule
// needs and no more. A publish stages its groups' pages (Stage); its
// encodings ask the stage, and the graph takes it when the publish
// commits. Referrers finds the groups whose entries a change of some
// pages changes: the pages that name them.
package hreflang
