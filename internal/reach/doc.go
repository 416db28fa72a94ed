// Package reach fetches, through base_url, what sitemapd tells search
// engines to fetch, and compares it with what it wrote: the IndexNow key
// files, robots.txt's Sitemap lines, the index, the sitemaps it lists and
// a sample of their pages. What a web server does to a path between the
// disk and the world (a rewrite, a redirect, a default type, an index
// directive, another root) shows up otherwise only as an engine's refusal,
// long after: a key file redirected or served as HTML is an IndexNow 403,
// and nothing else.
//
// A Checker runs one check and returns a Result per URL; `sitemapd check
// -reach` prints them. A Monitor is the daemon's self-check: a check
// shortly after a publish and on an interval, its problems kept for
// /healthz and the metrics and logged when they appear and when they
// clear, not at every check.
//
// It fetches only URLs under base_url (and robots.txt at its host), with
// a timeout per answer and bounded reads; a Connect address sends those
// requests to one server (as curl --resolve does), for a server behind a
// load balancer.
package reach
