package head

import (
	"bytes"
	"encoding/json"

	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"
)

// collected is what the tokens of a head say, in document order, until
// the head ends: both readers gather it the same way, and finish makes an
// Info of it.
type collected struct {
	info    Info // NoIndex, Truncated and the problems found so far
	base    string
	hasBase bool
	canon   []string
	alts    []Alternate
	// The first meta refresh that parses: refreshed is set by it, as
	// a browser's "will declaratively refresh", and later ones are
	// ignored. redirect is its URL, unresolved, if it is one to
	// follow at once; afterBase says whether a <base href> came
	// before it (a browser resolves the URL as the element is
	// inserted, against the base URL of that moment).
	refreshed, toRedirect, afterBase bool
	redirect                         string
	// The first non-empty content of each meta of metaProps (the
	// modification dates, the article's), and the JSON-LD nodes that
	// have a dateModified or are news articles, in document order.
	props [len(metaProps)]string
	ld    []ldNode
	// ldLater are JSON-LD scripts known to be JSON whose nodes are read
	// only if no meta gives a date: read, they come after those of ld.
	ldLater [][]byte
	// title is the raw text of the head's first <title> (hasTitle), for a
	// news article's title.
	title    string
	hasTitle bool
}

// meta takes in a <meta> of the head.
func (c *collected) meta(a tagAttrs) {
	if slices.ContainsFunc(robotsNames, func(n string) bool { return strings.EqualFold(strings.Trim(a.name, htmlSpace), n) }) {
		c.info.NoIndex = c.info.NoIndex || noindex(a.content)
	}
	for _, r := range a.roles {
		if r > 0 && c.props[r-1] == "" {
			c.props[r-1] = strings.Trim(a.content, htmlSpace)
		}
	}
	// http-equiv is an enumerated attribute: its keyword
	// matches in any case, but without trimming.
	if !c.refreshed && a.has&hasHTTPEquiv != 0 && strings.EqualFold(a.httpEquiv, "refresh") {
		if delay, u, hasURL, ok := parseRefresh(a.content); ok {
			c.refresh(delay, u, hasURL)
		}
	}
}

// refresh takes in the first meta refresh that parses.
func (c *collected) refresh(delay int, u string, hasURL bool) {
	c.refreshed = true
	if delay <= 1 && hasURL {
		c.toRedirect, c.redirect, c.afterBase = true, u, c.hasBase
	}
}

// baseTag takes in a <base> of the head.
func (c *collected) baseTag(a tagAttrs) {
	if a.has&hasHref != 0 && !c.hasBase {
		c.base, c.hasBase = a.href, true
	}
}

// link takes in a <link> of the head.
func (c *collected) link(a tagAttrs) {
	if a.has&hasHref == 0 {
		return
	}
	rel := strings.Fields(strings.ToLower(a.rel))
	if slices.Contains(rel, "canonical") {
		c.canon = append(c.canon, a.href)
	}
	if a.has&hasHreflang != 0 && slices.Contains(rel, "alternate") {
		c.alts = append(c.alts, Alternate{Lang: strings.Trim(a.hreflang, htmlSpace), Href: a.href})
	}
}

// noscript takes in the content of a <noscript> of the head (not in a
// template): what a browser without scripts reads. A redirect stub for it
// is one for crawlers that run no scripts, and the ones that do meet a
// script sending them the same way (sphinx-reredirects writes both).
func (c *collected) noscript(content []byte) {
	if c.refreshed {
		return
	}
	if delay, u, hasURL, ok := noscriptRefresh(content); ok {
		c.refresh(delay, u, hasURL)
	}
}

// jsonLD takes in the content of a JSON-LD script of the head.
func (c *collected) jsonLD(src []byte) {
	var err error
	if c.ld, err = readLD(src, c.ld); err != nil {
		c.info.Problems = append(c.info.Problems, fmt.Sprintf("JSON-LD script ignored: %v", err))
	}
}

// jsonLDLater is jsonLD for a script whose nodes may not be needed: it
// says at once if the script is not JSON (as jsonLD does: readLD fails
// exactly then), and keeps it for finish to read if no meta gives a date.
// It is for readers that keep all scripts this way (ld empty).
func (c *collected) jsonLDLater(src []byte) {
	src = bytes.Trim(src, " \t\n\r")
	switch {
	case len(src) == 0: // no node, no problem
	case json.Valid(src):
		c.ldLater = append(c.ldLater, bytes.Clone(src))
	default:
		c.jsonLD(src) // for readLD's error
	}
}

// finish makes the Info: it chooses the modification date and resolves
// the links and the redirect against the page's URL, pageURL, or the
// head's base URL.
func (c *collected) finish(pageURL string) (Info, error) {
	firstDated, ldMatch := c.dateModified()
	newsMatch := slices.ContainsFunc(c.ld, func(n ldNode) bool { return n.news && len(n.ids) > 0 })

	if !c.hasBase && len(c.canon) == 0 && len(c.alts) == 0 && !c.toRedirect && !ldMatch && !newsMatch {
		c.article(c.newsNode(nil))
		return c.info, nil
	}
	doc, err := url.Parse(pageURL)
	if err != nil {
		return Info{}, fmt.Errorf("page URL %q: %w", pageURL, err)
	}
	page := c.baseURL(doc)
	// Whether a JSON-LD node is about this page: its "url" or "@id"
	// names it. The document's base URL is JSON-LD's base.
	names := func(m ldNode) bool {
		return slices.ContainsFunc(m.ids, func(id string) bool {
			u, err := resolve(page, id)
			return err == nil && samePage(u, doc)
		})
	}
	if ldMatch {
		// The node about this page, or else the first.
		n := c.ld[firstDated]
		for _, m := range c.ld {
			if m.dated && names(m) {
				n = m
				break
			}
		}
		n.setModified(&c.info)
	}
	c.article(c.newsNode(names))
	c.redirectTarget(doc, page)
	c.resolveLinks(page)
	return c.info, nil
}

// dateModified sets the page's modification date from its metas, or from
// its JSON-LD when only one node could be meant. Otherwise, when JSON-LD
// nodes that name a page have a date, ldMatch says the one about this
// page is still to be found (its URL is needed); firstDated is the first
// dated node, or -1.
func (c *collected) dateModified() (firstDated int, ldMatch bool) {
	for i, v := range c.props[:nDateMetas] {
		if v != "" && c.info.setModified(metaProps[i], v) {
			break
		}
	}
	for _, src := range c.ldLater {
		// A script that does not name NewsArticle has no news node
		// (isNewsNode): once a meta gave the date, it has nothing to say.
		if c.info.Modified.IsZero() || mentionsNews(src) {
			c.ld, _ = readLD(src, c.ld) // JSON: no error
		}
	}
	firstDated = slices.IndexFunc(c.ld, func(n ldNode) bool { return n.dated })
	wantDate := c.info.Modified.IsZero() && firstDated >= 0
	ldMatch = wantDate && slices.ContainsFunc(c.ld, func(n ldNode) bool { return n.dated && len(n.ids) > 0 })
	if wantDate && !ldMatch {
		c.ld[firstDated].setModified(&c.info)
	}
	return firstDated, ldMatch
}

// baseURL is the document's base URL: the page's own (doc), or its
// <base href> resolved against it. Relative links resolve against it.
func (c *collected) baseURL(doc *url.URL) *url.URL {
	if !c.hasBase {
		return doc
	}
	b, err := resolve(doc, c.base)
	if err != nil {
		c.info.Problems = append(c.info.Problems, fmt.Sprintf("<base href=%q> ignored: %v", c.base, err))
		return doc
	}
	return b
}

// redirectTarget sets the page's meta refresh target, resolved against
// the page (doc) or, for a refresh after <base>, the base URL (page).
func (c *collected) redirectTarget(doc, page *url.URL) {
	if !c.toRedirect || clean(c.redirect) == "" { // an empty URL is the page itself
		return
	}
	against := doc
	if c.afterBase {
		against = page
	}
	if u, err := resolve(against, c.redirect); err != nil {
		c.info.Problems = append(c.info.Problems, fmt.Sprintf("meta refresh to %q ignored: %v", c.redirect, err))
	} else if !samePage(u, doc) {
		c.info.Redirect = u.String()
	}
}

// resolveLinks sets the page's canonicals and hreflang alternates,
// resolved against its base URL (page), without repeats.
func (c *collected) resolveLinks(page *url.URL) {
	// A page's canonical is often one of its alternates too: each href
	// is resolved once.
	links := linkResolver{page: page}
	for _, href := range c.canon {
		s, err := links.resolve(href)
		if err != nil {
			c.info.Problems = append(c.info.Problems, fmt.Sprintf("canonical link %q ignored: %v", href, err))
			continue
		}
		if !slices.Contains(c.info.Canonicals, s) {
			c.info.Canonicals = append(c.info.Canonicals, s)
		}
	}
	for _, a := range c.alts {
		if !ValidHreflang(a.Lang) {
			c.info.Problems = append(c.info.Problems, fmt.Sprintf("hreflang %q ignored: not a language tag", a.Lang))
			continue
		}
		s, err := links.resolve(a.Href)
		if err != nil {
			c.info.Problems = append(c.info.Problems, fmt.Sprintf("hreflang %q link %q ignored: %v", a.Lang, a.Href, err))
			continue
		}
		alt := Alternate{Lang: a.Lang, Href: s}
		if !slices.Contains(c.info.Alternates, alt) {
			c.info.Alternates = append(c.info.Alternates, alt)
		}
	}
}

// linkResolver resolves links against a page's base URL, each href once.
type linkResolver struct {
	page *url.URL
	seen []resolved
}

type resolved struct {
	href, url string
	err       error
}

// resolve is resolve(page, href).String().
func (r *linkResolver) resolve(href string) (string, error) {
	for _, s := range r.seen {
		if s.href == href {
			return s.url, s.err
		}
	}
	u, err := resolve(r.page, href)
	s := resolved{href: href, err: err}
	if err == nil {
		s.url = u.String()
	}
	r.seen = append(r.seen, s)
	return s.url, s.err
}

// noindex reads a robots meta content: comma-separated directives, any
// case. "none" is noindex plus nofollow.
func noindex(content string) bool {
	for d := range strings.SplitSeq(content, ",") {
		switch strings.ToLower(strings.Trim(d, htmlSpace)) {
		case "noindex", "none":
			return true
		}
	}
	return false
}

// resolve makes a link absolute against base, the way a browser's URL
// parser does (control characters and spaces stripped from either end,
// tabs and newlines from anywhere), and accepts only http and https URLs
// with a host. The fragment goes: it names a part of the page, not
// another page.
func resolve(base *url.URL, href string) (*url.URL, error) {
	href = clean(href)
	if href == "" {
		return nil, errors.New("empty")
	}
	u, err := base.Parse(href)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, errors.New("not an http(s) URL")
	}
	u.Fragment, u.RawFragment = "", ""
	return u, nil
}

// clean strips what a browser's URL parser does from a URL string before
// it parses it.
func clean(href string) string {
	href = strings.TrimFunc(href, func(r rune) bool { return r <= ' ' })
	if strings.ContainsAny(href, "\t\n\r") {
		href = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, href)
	}
	return href
}

// samePage reports whether u, absolute and without fragment, names the
// page at doc: the same scheme and host (in any case, with or without the
// scheme's default port), path and query.
func samePage(u, doc *url.URL) bool {
	key := func(u *url.URL) string {
		scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Host)
		switch {
		case scheme == "http":
			host = strings.TrimSuffix(host, ":80")
		case scheme == "https":
			host = strings.TrimSuffix(host, ":443")
		}
		p := u.Path
		if p == "" {
			p = "/"
		}
		if u.RawQuery != "" || u.ForceQuery {
			p += "?" + u.RawQuery
		}
		return scheme + "://" + host + p
	}
	return key(u) == key(doc)
}

// parseRefresh reads a meta refresh's content attribute by the HTML
// Living Standard's shared declarative refresh steps
// (https://html.spec.whatwg.org/multipage/semantics.html#shared-declarative-refresh-steps).
// ok is false where a browser ignores the element. Otherwise delay is the
// whole seconds to wait (a fraction is ignored; a huge number saturates),
// and, when hasURL, url is where to go, as written: to be resolved against
// the page, which is also where a refresh without a URL goes (a reload).
func parseRefresh(s string) (delay int, url string, hasURL, ok bool) {
	isSpace := func(c byte) bool { return strings.IndexByte(htmlSpace, c) >= 0 }
	isDigit := func(c byte) bool { return '0' <= c && c <= '9' }
	i := 0
	skipSpace := func() {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
	}
	skipSpace()
	// The delay: digits, or none before a '.'; then any digits and
	// dots, ignored.
	start := i
	for i < len(s) && isDigit(s[i]) {
		if delay < math.MaxInt32/10 {
			delay = delay*10 + int(s[i]-'0')
		} else {
			delay = math.MaxInt32
		}
		i++
	}
	if i == start && (i == len(s) || s[i] != '.') {
		return 0, "", false, false
	}
	for i < len(s) && (isDigit(s[i]) || s[i] == '.') {
		i++
	}
	// A separator: white space, a ';' or ',', or both.
	if i < len(s) {
		if c := s[i]; c != ';' && c != ',' && !isSpace(c) {
			return 0, "", false, false
		}
		skipSpace()
		if i < len(s) && (s[i] == ';' || s[i] == ',') {
			i++
		}
		skipSpace()
	}
	if i == len(s) {
		return delay, "", false, true
	}
	// The URL, after an optional "URL =" in any case, and in quotes or
	// not. A "U" that does not begin "URL =" begins the URL itself.
	rest := s[i:]
	if c := s[i] | 0x20; c == 'u' {
		if i+2 >= len(s) || s[i+1]|0x20 != 'r' || s[i+2]|0x20 != 'l' {
			return delay, rest, true, true
		}
		i += 3
		skipSpace()
		if i == len(s) || s[i] != '=' {
			return delay, rest, true, true
		}
		i++
		skipSpace()
	}
	if i < len(s) && (s[i] == '\'' || s[i] == '"') {
		q := s[i]
		url = s[i+1:]
		if j := strings.IndexByte(url, q); j >= 0 {
			url = url[:j]
		}
		return delay, url, true, true
	}
	return delay, s[i:], true, true
}
