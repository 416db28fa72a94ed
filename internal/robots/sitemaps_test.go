package robots

import (
	"strings"
	"testing"
)

func TestWithSitemaps(t *testing.T) {
	const idx = "https://static.test/sitemap_index.xml"
	const idx2 = "https://static.test/sitemap_index-2.xml"
	ours := func(u string) bool { return strings.HasPrefix(u, "https://static.test/sitemap_index") }
	for _, tc := range []struct {
		name string
		old  string
		want []string
		out  string
	}{
		{"created", "", []string{idx}, "Sitemap: " + idx + "\n"},
		{"appended, bytes kept", "User-agent: *\nDisallow: /private/  # keep\n\n", []string{idx},
			"User-agent: *\nDisallow: /private/  # keep\n\nSitemap: " + idx + "\n"},
		{"no final newline", "User-agent: *", []string{idx}, "User-agent: *\nSitemap: " + idx + "\n"},
		{"CRLF kept", "User-agent: *\r\nAllow: /\r\n", []string{idx}, "User-agent: *\r\nAllow: /\r\nSitemap: " + idx + "\r\n"},
		{"present, untouched", "sitemap:  " + idx + "\nUser-agent: *\n", []string{idx}, "sitemap:  " + idx + "\nUser-agent: *\n"},
		{"duplicate dropped", "Sitemap: " + idx + "\nSitemap: " + idx + "\n", []string{idx}, "Sitemap: " + idx + "\n"},
		{"stale part dropped, others kept", "Sitemap: " + idx2 + "\nSitemap: https://static.test/news.xml\n", []string{idx},
			"Sitemap: https://static.test/news.xml\nSitemap: " + idx + "\n"},
		{"two parts", "", []string{idx, idx2}, "Sitemap: " + idx + "\nSitemap: " + idx2 + "\n"},
		{"no index: our line goes", "User-agent: *\nSitemap: " + idx + "\n", nil, "User-agent: *\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var old []byte
			if tc.old != "" {
				old = []byte(tc.old)
			}
			if got := string(WithSitemaps(old, tc.want, ours)); got != tc.out {
				t.Errorf("got\n%q\nwant\n%q", got, tc.out)
			}
		})
	}
}
