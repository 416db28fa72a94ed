package robots

import "bytes"

// Sitemaps lists the URLs of robots.txt's Sitemap lines, in their order,
// each once: what the file announces to crawlers (Google reads them), and
// what a searchconsole endpoint submits besides the index.
func Sitemaps(data []byte) []string {
	var out []string
	seen := map[string]bool{}
	for line := range bytes.Lines(data) {
		if u, ok := sitemapLine(line); ok && u != "" && !seen[u] {
			seen[u] = true
			out = append(out, u)
		}
	}
	return out
}
