// Package benchpage writes the real-looking HTML pages that sitemapd's
// benchmarks read: bench/gentree -pages real, and the in-process head
// benchmarks, measure the same page.
package benchpage

import (
	"fmt"
	"net/url"
	"strings"
)

// body is the same 4 KB of text in every page.
var body = "<body><main>" + strings.Repeat("<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.</p>\n", 48) + "</main></body></html>\n"

// Page is a generated page named name, of the kind site generators write:
// a head of some 3 KB (metas, links, an inline style, a canonical link,
// hreflang alternates), then 4 KB of body. roll (0-99) picks the 2% that
// say noindex and the 3% whose canonical is another page; the others name
// themselves.
func Page(name string, roll int) string {
	self := url.PathEscape(name)
	canonical := self
	if roll >= 2 && roll < 5 {
		canonical = "../other-" + self
	}
	robots := "index, follow"
	if roll < 2 {
		robots = "noindex, follow"
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>%s | Example</title>
<meta name="description" content="A generated page for sitemapd's benchmarks, with a head as long as real ones.">
<meta name="robots" content="%s">
<meta property="og:title" content="%s">
<meta property="og:type" content="article">
<meta property="og:image" content="https://bench.example/static/og.png">
<meta name="twitter:card" content="summary_large_image">
<link rel="canonical" href="%s">
<link rel="alternate" hreflang="en" href="%s">
<link rel="alternate" hreflang="de" href="/de/%s">
<link rel="alternate" hreflang="x-default" href="%s">
<link rel="icon" href="/favicon.ico">
<link rel="preload" href="/static/font.woff2" as="font" type="font/woff2" crossorigin>
<link rel="stylesheet" href="/static/site.css">
<link rel="alternate" type="application/rss+xml" title="Feed" href="/feed.xml">
<script src="/static/site.js" defer></script>
<!-- critical styles -->
<style>
`, name, robots, name, canonical, self, self, self)
	for i := range 24 {
		fmt.Fprintf(&b, ".c%d{margin:0 auto;padding:%dpx;color:#333;font:16px/1.5 system-ui,sans-serif}\n", i, i)
	}
	b.WriteString("</style>\n</head>\n")
	b.WriteString(body)
	return b.String()
}
