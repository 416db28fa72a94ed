package robots

import "bytes"

// WithSitemaps returns robots.txt content with exactly one "Sitemap: U"
// line for each U in want: lines already there stay where they are,
// missing ones are appended, duplicates and lines for which ours is true
// (index files of sitemapd's that are no more) but that are not in want
// are dropped. Every other byte is kept, line endings included.
func WithSitemaps(old []byte, want []string, ours func(string) bool) []byte {
	var out []byte
	have := map[string]bool{}
	eol := "\n"
	if bytes.Contains(old, []byte("\r\n")) {
		eol = "\r\n"
	}
	for rest := old; len(rest) > 0; {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i+1], rest[i+1:]
		} else {
			rest = nil
		}
		if u, ok := sitemapLine(line); ok {
			wanted := false
			for _, w := range want {
				wanted = wanted || w == u
			}
			if (wanted && have[u]) || (!wanted && ours(u)) {
				continue
			}
			have[u] = true
		}
		out = append(out, line...)
	}
	for _, u := range want {
		if have[u] {
			continue
		}
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, eol...)
		}
		out = append(out, "Sitemap: "+u+eol...)
	}
	return out
}
