// Package headtest holds the test oracles of package head's readers, for
// the tests of head and of the packages that list what it reads.
package headtest

import (
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/sitemapd/sitemapd/internal/head"
)

// DOMImages is the oracle of head.Images: the images of the tree that
// golang.org/x/net/html's parser builds of page (as a browser running
// scripts does, after its decoder drops a byte order mark): img elements
// of the HTML namespace (src, then srcset's candidates), source elements
// whose parent is a picture (srcset's candidates), og:image,
// og:image:url and og:image:secure_url metas (by property or name, in any
// case) in the head element; none in a template's content. Each is
// resolved as the URL standard says against the document's base URL (its
// first base element with an href, else pageURL), kept if http(s), then
// as keep says, without duplicates, in tree order.
func DOMImages(t testing.TB, page, pageURL string, keep func(*url.URL) (string, bool)) []string {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(strings.TrimPrefix(page, "\uFEFF")))
	if err != nil {
		t.Fatal(err)
	}
	base, err := url.Parse(pageURL)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	walk(doc, func(n *html.Node) {
		if !found && isHTML(n, atom.Base) {
			if href, ok := attr(n, "href"); ok {
				found = true
				if b, ok := resolve(base, href); ok {
					base = b
				}
			}
		}
	})
	var out []string
	seen := map[string]bool{}
	add := func(ref string) {
		u, ok := resolve(base, ref)
		if !ok {
			return
		}
		if v, ok := keep(u); ok && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	walk(doc, func(n *html.Node) {
		switch {
		case isHTML(n, atom.Img):
			if src, ok := attr(n, "src"); ok {
				add(src)
			}
			if srcset, ok := attr(n, "srcset"); ok {
				for _, c := range head.Srcset(srcset) {
					add(c)
				}
			}
		case isHTML(n, atom.Source) && n.Parent != nil && isHTML(n.Parent, atom.Picture):
			if srcset, ok := attr(n, "srcset"); ok {
				for _, c := range head.Srcset(srcset) {
					add(c)
				}
			}
		case isHTML(n, atom.Meta) && inHeadElement(n):
			prop, _ := attr(n, "property")
			name, _ := attr(n, "name")
			if content, ok := attr(n, "content"); ok && (ogImage(prop) || ogImage(name)) {
				add(content)
			}
		}
	})
	return out
}

// walk calls f for n and every node below it, in tree order, but not for
// a template's content.
func walk(n *html.Node, f func(*html.Node)) {
	f(n)
	if isHTML(n, atom.Template) {
		return
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, f)
	}
}

func isHTML(n *html.Node, a atom.Atom) bool {
	return n.Type == html.ElementNode && n.DataAtom == a && n.Namespace == ""
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func inHeadElement(n *html.Node) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if isHTML(p, atom.Head) {
			return true
		}
	}
	return false
}

func ogImage(v string) bool {
	switch strings.ToLower(strings.Trim(v, " \t\n\f\r")) {
	case "og:image", "og:image:url", "og:image:secure_url":
		return true
	}
	return false
}

// resolve parses ref against base as the URL standard's parser does what
// matters here (C0 controls and spaces stripped from either end, tabs and
// newlines from anywhere), and keeps http(s) URLs with a host, without
// their fragment.
func resolve(base *url.URL, ref string) (*url.URL, bool) {
	ref = strings.TrimFunc(ref, func(r rune) bool { return r <= ' ' })
	ref = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(ref)
	if ref == "" {
		return nil, false
	}
	u, err := base.Parse(ref)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, false
	}
	u.Fragment, u.RawFragment = "", ""
	return u, true
}
