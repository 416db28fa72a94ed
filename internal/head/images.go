package head

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"golang.org/x/net/html"
)

// BodyLimit is the most bytes of a page Images reads: Googlebot reads the
// first 15 MB of an HTML file, and an image past that is one it does not
// see on the page either.
const BodyLimit = 15 << 20

// ImageOptions say which of a page's images Images returns.
type ImageOptions struct {
	// Max is the most returned; Images stops reading there. <= 0: none.
	Max int
	// Keep returns the form in which an image's URL (absolute, http or
	// https, without fragment) is listed, or false to leave it out (an
	// image on another host). Nil keeps every image as u.String().
	Keep func(u *url.URL) (string, bool)
}

// ImageResult is what Images found.
type ImageResult struct {
	// URLs are the images kept, as Keep formed them, without
	// duplicates, in document order.
	URLs []string
	// Truncated: the page is longer than BodyLimit and was read up to
	// there only.
	Truncated bool
}

// Images reads the images a page shows, as a browser running scripts
// parses it (golang.org/x/net/html's tokenizer): the src and srcset
// candidates of each <img> (and of <image>, which the parser makes an
// img outside svg and math), the srcset candidates of each <source> in a
// <picture>, and the content of each og:image, og:image:url and
// og:image:secure_url meta tag (by property or name, in any case) of the
// head, in document order. Nothing in a <template> (inert) or in raw
// text (a script, a style, a noscript's content, which a browser running
// scripts does not parse) counts. Each is resolved against the page's
// URL, pageURL, or the first <base href> before it (where a conforming
// page has its base), and kept as opts.Keep says. Only an error reading
// r, or an unusable pageURL, is returned.
//
// Limits: elements are told apart by their tags, not by a tree: a
// <source> counts while a <picture> is open, whatever element it is
// directly in; and the head ends where Read says it does.
func Images(r io.Reader, pageURL string, opts ImageOptions) (ImageResult, error) {
	var res ImageResult
	if opts.Max <= 0 {
		return res, nil
	}
	page, err := url.Parse(pageURL)
	if err != nil {
		return res, fmt.Errorf("page URL %q: %w", pageURL, err)
	}
	keep := opts.Keep
	if keep == nil {
		keep = func(u *url.URL) (string, bool) { return u.String(), true }
	}
	s := imageScan{base: page, keep: keep, max: opts.Max, seen: map[string]bool{}, inHead: true}
	lr := &io.LimitedReader{R: r, N: BodyLimit}
	z := html.NewTokenizer(lr)
	for len(s.urls) < s.max {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if err := z.Err(); !errors.Is(err, io.EOF) {
				return res, err
			}
			res.URLs, res.Truncated = s.urls, lr.N == 0
			return res, nil
		case html.TextToken:
			if s.inHead && s.template == 0 && !s.rawNext {
				text := z.Raw()
				if !s.started {
					text = bytes.TrimPrefix(text, []byte("\uFEFF"))
				}
				if len(bytes.Trim(text, htmlSpace)) > 0 {
					s.inHead = false
				}
			}
			s.rawNext = false
		case html.StartTagToken, html.SelfClosingTagToken:
			s.started = true
			name, hasAttr := z.TagName()
			s.startTag(z, string(name), hasAttr, tt == html.StartTagToken)
		case html.EndTagToken:
			s.started, s.rawNext = true, false
			name, _ := z.TagName()
			s.endTag(string(name))
		default:
			s.started, s.rawNext = true, false
		}
	}
	res.URLs = s.urls
	return res, nil
}

// imageScan is the state of Images between tokens.
type imageScan struct {
	base    *url.URL // the page's URL, or its <base href>
	hasBase bool
	keep    func(*url.URL) (string, bool)
	max     int
	seen    map[string]bool
	urls    []string
	// inHead: the head has not ended (as Read ends it); started: a
	// token other than white space was seen (a byte order mark is not
	// text before one).
	inHead, started bool
	rawNext         bool // the next text token is raw text
	template        int  // depth of <template>, whose content is inert
	picture         int  // depth of <picture>
	foreign         int  // depth of <svg> and <math>
}

func (s *imageScan) startTag(z *html.Tokenizer, tag string, hasAttr, start bool) {
	s.rawNext = start && rawText[tag]
	if s.inHead && s.template == 0 && !inHead[tag] {
		s.inHead = false
	}
	// The parser ignores a self-closing flag on HTML elements that are
	// not void: <template/> and <picture/> open one all the same.
	if tag == "template" {
		s.template++
		return
	}
	if s.template > 0 {
		return
	}
	switch tag {
	case "picture":
		s.picture++
		return
	case "svg", "math":
		if start {
			s.foreign++
		}
		return
	}
	if !hasAttr {
		return
	}
	switch {
	case tag == "img" || tag == "image" && s.foreign == 0:
		src, srcset, _ := attrs(z, "src", "srcset", "")
		if src != nil {
			s.add(*src)
		}
		if srcset != nil {
			for _, c := range Srcset(*srcset) {
				s.add(c)
			}
		}
	case tag == "source" && s.picture > 0:
		if _, srcset, _ := attrs(z, "", "srcset", ""); srcset != nil {
			for _, c := range Srcset(*srcset) {
				s.add(c)
			}
		}
	case tag == "meta" && s.inHead:
		prop, content, name := attrs(z, "property", "content", "name")
		if content != nil && (prop != nil && isImageMeta(*prop) || name != nil && isImageMeta(*name)) {
			s.add(*content)
		}
	case tag == "base" && !s.hasBase:
		if _, href, _ := attrs(z, "", "href", ""); href != nil {
			s.hasBase = true
			// As Read: a base URL that does not parse is ignored.
			if b, err := resolve(s.base, *href); err == nil {
				s.base = b
			}
		}
	}
}

func (s *imageScan) endTag(tag string) {
	switch tag {
	case "template":
		s.template = max(s.template-1, 0)
	case "head", "body", "html":
		if s.template == 0 {
			s.inHead = false
		}
	}
	if s.template > 0 {
		return
	}
	switch tag {
	case "picture":
		s.picture = max(s.picture-1, 0)
	case "svg", "math":
		s.foreign = max(s.foreign-1, 0)
	}
}

// add takes in an image's URL as written.
func (s *imageScan) add(ref string) {
	if len(s.urls) >= s.max {
		return
	}
	u, err := resolve(s.base, ref)
	if err != nil {
		return // empty, data:, javascript: and such: no image to list
	}
	v, ok := s.keep(u)
	if !ok || s.seen[v] {
		return
	}
	s.seen[v] = true
	s.urls = append(s.urls, v)
}

// isImageMeta reports whether a meta's property (or name) is Open Graph's
// image: og:image, or its og:image:url or og:image:secure_url, in any
// case, trimmed.
func isImageMeta(v string) bool {
	v = strings.Trim(v, htmlSpace)
	return strings.EqualFold(v, "og:image") || strings.EqualFold(v, "og:image:url") || strings.EqualFold(v, "og:image:secure_url")
}

// attrs returns the values of the first attributes of up to three keys
// ("" for none) of the current tag, nil where it has none.
func attrs(z *html.Tokenizer, k1, k2, k3 string) (v1, v2, v3 *string) {
	for more := true; more; {
		var k, v []byte
		k, v, more = z.TagAttr()
		var dst **string
		switch string(k) {
		case k1:
			dst = &v1
		case k2:
			dst = &v2
		case k3:
			dst = &v3
		default:
			continue
		}
		if *dst == nil && len(k) > 0 {
			s := string(v)
			*dst = &s
		}
	}
	return
}
