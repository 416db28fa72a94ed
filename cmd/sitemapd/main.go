// Command sitemapd keeps sitemaps.org sitemaps of a web document root up to
// date. See README.md to start, docs/operations.md for every command.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
