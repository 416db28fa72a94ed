package head_test

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sitemapd/sitemapd/internal/benchpage"
	"github.com/sitemapd/sitemapd/internal/head"
	"github.com/sitemapd/sitemapd/internal/head/headtest"
)

func keepAll(u *url.URL) (string, bool) { return u.String(), true }

// imageCases are pages whose images Images must find as the parser does.
var imageCases = map[string]string{
	"img src":            `<p><img src="a.jpg"><img src='/b.png' alt=x><IMG SRC=c.gif>`,
	"img srcset":         `<img src="a.jpg" srcset="a.jpg 1x, a@2x.jpg 2x"><img srcset="w480.jpg 480w,w800.jpg 800w" sizes="50vw">`,
	"picture":            `<picture><source srcset="p.avif" type="image/avif"><source srcset="p-1.webp 1x, p-2.webp 2x"><img src="p.jpg"></picture>`,
	"source outside":     `<video><source src="v.mp4" srcset="not.jpg"></video><source srcset="alone.jpg">`,
	"og:image":           `<html><head><meta property="og:image" content="/og.png"><meta property="OG:Image:URL" content="og2.png"><meta name="og:image:secure_url" content=" https://static.test/og3.png "></head><body><p>x</p></body>`,
	"og:image in body":   `<html><head><title>t</title></head><body><meta property="og:image" content="/body-og.png"><img src=i.jpg></body>`,
	"base":               `<html><head><base href="https://static.test/assets/"><meta property="og:image" content="og.png"></head><body><img src="a.jpg"><img src="/b.jpg"><img src="//cdn.test/c.jpg"></body>`,
	"base relative":      `<head><base href="/x/y/"></head><img src="../a.jpg">`,
	"template":           `<template><img src="inert.jpg"><template><img src=deeper.jpg></template></template><img src="live.jpg">`,
	"raw text":           `<script>document.write('<img src="s.jpg">')</script><style>/*<img src=st.jpg>*/</style><noscript><img src="ns.jpg"></noscript><textarea><img src=ta.jpg></textarea><img src=real.jpg>`,
	"comments":           `<!-- <img src="c.jpg"> --><img src=real.jpg><!--> <img src=after.jpg>`,
	"duplicates":         `<img src=a.jpg><img src="./a.jpg"><img src="a.jpg#frag"><img src=b.jpg srcset="b.jpg 1x, a.jpg 2x">`,
	"schemes":            `<img src="data:image/png;base64,AAAA"><img src="javascript:x"><img src=""><img src="  ftp://h/x.jpg"><img src="  spaced.jpg  ">`,
	"entities":           `<img src="a.jpg?x=1&amp;y=2"><img src="caf&eacute;.jpg"><img src="q&#x3f;.jpg">`,
	"image tag":          `<image src="old.jpg"><svg><image href="svg.png" src="svgsrc.png"></image></svg><math><image src=m.jpg></math>`,
	"svg breakout":       `<svg><img src="out.jpg"></svg>`,
	"no head":            `<meta property=og:image content=early.png><img src=i.jpg>`,
	"meta after text":    `hello <meta property=og:image content=late.png>`,
	"bom":                "\uFEFF<meta property=og:image content=bom.png>",
	"self-closing":       `<img src=a.jpg /><img src=b.jpg/><picture/><source srcset=after-picture.jpg>`,
	"template/":          `<template/><img src=inert.jpg></template><img src=live.jpg>`,
	"picture nested":     `<picture><source srcset=s1.jpg><img src=i1.jpg></picture><picture><source srcset=s2.jpg></picture>`,
	"repeated attribute": `<img src=first.jpg src=second.jpg srcset="x.jpg" srcset="y.jpg">`,
	"unclosed":           `<img src="a.jpg`,
}

func TestImagesMatchParser(t *testing.T) {
	const pageURL = "https://static.test/blog/post.html"
	pages := map[string]string{}
	for name, page := range imageCases {
		pages[name] = page
	}
	// Real-looking pages, and the head reader's test pages.
	pages["benchpage image page"] = benchpage.ImagePage("post.html", 50)
	pages["benchpage plain page"] = benchpage.Page("post.html", 50)
	files, _ := filepath.Glob("testdata/*.html")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		pages[f] = string(b)
	}
	for name, page := range pages {
		got, err := head.Images(strings.NewReader(page), pageURL, head.ImageOptions{Max: 1000, Keep: keepAll})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := headtest.DOMImages(t, page, pageURL, keepAll)
		if !slices.Equal(got.URLs, want) {
			t.Errorf("%s: Images = %q\nthe parser's tree shows %q", name, got.URLs, want)
		}
	}
}

// TestImagesFound checks, beside the oracle, that the cases do show what
// they are about: an oracle and a reader that both missed everything
// would agree.
func TestImagesFound(t *testing.T) {
	const pageURL = "https://static.test/blog/post.html"
	for name, want := range map[string][]string{
		"picture":  {"https://static.test/blog/p.avif", "https://static.test/blog/p-1.webp", "https://static.test/blog/p-2.webp", "https://static.test/blog/p.jpg"},
		"og:image": {"https://static.test/og.png", "https://static.test/blog/og2.png", "https://static.test/og3.png"},
		"base":     {"https://static.test/assets/og.png", "https://static.test/assets/a.jpg", "https://static.test/b.jpg", "https://cdn.test/c.jpg"},
		"template": {"https://static.test/blog/live.jpg"},
		"raw text": {"https://static.test/blog/real.jpg"},
	} {
		got, err := head.Images(strings.NewReader(imageCases[name]), pageURL, head.ImageOptions{Max: 1000})
		if err != nil || !slices.Equal(got.URLs, want) {
			t.Errorf("%s: Images = %q, %v; want %q", name, got.URLs, err, want)
		}
	}
}

func TestImagesKeepAndMax(t *testing.T) {
	var page strings.Builder
	for i := range 30 {
		fmt.Fprintf(&page, `<img src="https://cdn.test/%d.jpg"><img src="/%d.jpg">`, i, i)
	}
	keep := func(u *url.URL) (string, bool) { return u.Path, u.Host == "static.test" }
	got, err := head.Images(strings.NewReader(page.String()), "https://static.test/", head.ImageOptions{Max: 10, Keep: keep})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := range 10 {
		want = append(want, fmt.Sprintf("/%d.jpg", i))
	}
	if !slices.Equal(got.URLs, want) {
		t.Errorf("Images = %q, want %q (kept ones only, the first Max)", got.URLs, want)
	}
	if got, _ := head.Images(strings.NewReader(page.String()), "https://static.test/", head.ImageOptions{}); len(got.URLs) != 0 {
		t.Errorf("Max 0 gave %q", got.URLs)
	}
}

func TestImagesTruncated(t *testing.T) {
	page := "<img src=a.jpg>" + strings.Repeat("<p>x</p>", head.BodyLimit/8) + "<img src=b.jpg>"
	got, err := head.Images(strings.NewReader(page), "https://static.test/", head.ImageOptions{Max: 10})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Truncated || !slices.Equal(got.URLs, []string{"https://static.test/a.jpg"}) {
		t.Errorf("Images = %+v, want a.jpg only, truncated", got)
	}
}
