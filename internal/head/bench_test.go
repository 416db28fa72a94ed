package head

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkRead reads the head of a page as site generators write them,
// from memory: the parsing cost per page, without the file system.
func BenchmarkRead(b *testing.B) {
	var buf strings.Builder
	buf.WriteString(`<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Page</title>
<meta name="description" content="A page with a head as long as real ones.">
<meta name="robots" content="index, follow"><meta property="og:title" content="Page">
<link rel="canonical" href="page.html"><link rel="alternate" hreflang="en" href="page.html">
<link rel="alternate" hreflang="de" href="/de/page.html"><link rel="icon" href="/favicon.ico">
<link rel="stylesheet" href="/static/site.css"><script src="/static/site.js" defer></script><style>
`)
	for i := range 24 {
		fmt.Fprintf(&buf, ".c%d{margin:0 auto;padding:%dpx;color:#333;font:16px/1.5 system-ui,sans-serif}\n", i, i)
	}
	buf.WriteString("</style></head><body>" + strings.Repeat("<p>text</p>", 400))
	src := []byte(buf.String())
	b.SetBytes(int64(bytes.Index(src, []byte("</head>"))))
	for b.Loop() {
		if _, err := Read(bytes.NewReader(src), page); err != nil {
			b.Fatal(err)
		}
	}
}
