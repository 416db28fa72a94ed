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

// imageBody is a body of the same 4 KB of text as Page's, with the
// images of an article as site generators write them: a responsive hero
// picture, figures with srcset, a lazy image, a logo on a CDN and an
// inline data: icon.
var imageBody = func() string {
	var b strings.Builder
	b.WriteString(`<body><header><img src="/static/logo.svg" alt="Example" width="120" height="40">` +
		`<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt=""></header><main>` + "\n")
	b.WriteString(`<picture><source type="image/avif" srcset="/img/hero-800.avif 800w, /img/hero-1600.avif 1600w">` +
		`<source type="image/webp" srcset="/img/hero-800.webp 800w, /img/hero-1600.webp 1600w">` +
		`<img src="/img/hero-800.jpg" srcset="/img/hero-800.jpg 800w, /img/hero-1600.jpg 1600w" sizes="100vw" alt="Hero"></picture>` + "\n")
	para := "<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.</p>\n"
	for i := range 48 {
		b.WriteString(para)
		if i%8 == 7 {
			fmt.Fprintf(&b, `<figure><img src="figure-%d.jpg" srcset="figure-%d.jpg 1x, figure-%d@2x.jpg 2x" loading="lazy" alt="Figure %d"><figcaption>Figure %d</figcaption></figure>`+"\n", i, i, i, i, i)
		}
	}
	b.WriteString(`<img src="https://cdn.bench.example/ads/banner.png" alt=""></main></body></html>` + "\n")
	return b.String()
}()

// ImagePage is Page with a body that shows images (imageBody): 19
// distinct images at paths of the page's host, one on a CDN, one data:
// URL, and Page's og:image in the head.
func ImagePage(name string, roll int) string {
	p := Page(name, roll)
	return strings.TrimSuffix(p, body) + imageBody
}
