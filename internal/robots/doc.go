// Package robots reads and edits robots.txt.
//
// Rules are the docroot's robots.txt as crawlers read it, for leaving out
// pages it disallows (pages.robots_txt): crawlers would not fetch them, and
// a sitemap listing them is one engines trust less. Rules apply only where
// crawlers read the file, at the root of a host, and a file that cannot be
// read or parsed allows everything (with a warning): listing too much
// beats listing nothing. Matching is github.com/temoto/robotstxt's.
//
// WithSitemaps edits the output's robots.txt for robots_txt: true, keeping
// one "Sitemap:" line per index file and every other byte as it was.
package robots
