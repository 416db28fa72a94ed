package head

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"strings"
	"time"
	"unicode"
)

// Article is what a head says of a news article, for a Google News
// sitemap: when it was published and its title. A head says a page is a
// news article in one of two ways:
//
//  1. a schema.org node of a JSON-LD script of the head (read as for
//     Info.Modified: a top-level object, an object of a top-level array,
//     a node of an "@graph") whose "@type" is NewsArticle or one of its
//     schema.org subtypes (AnalysisNewsArticle, OpinionNewsArticle, …),
//     written as such in the script ("NewsArticle", "schema:NewsArticle",
//     "https://schema.org/NewsArticle", alone or in an array): the first
//     such node whose "url" or "@id" is the page's URL, or else the first;
//  2. an Open Graph <meta property="og:type" content="article"> (in any
//     case) with an article:published_time meta.
//
// Its publication time is the node's datePublished, or else the
// article:published_time meta's content, whichever comes first as a
// usable date: a W3C Datetime (as for Info.Modified) with at least a
// complete date, as Google's news schema asks. Its title is the node's
// headline, or else og:title's content, or else the head's first
// <title>: the first of them that is not empty once its runs of white
// space are one space and what XML cannot carry is taken out. A page that
// says it is an article but has no usable date or no title is none, and a
// problem says why.
type Article struct {
	Published time.Time // UTC; zero when the page is no news article
	Title     string
	// Problems say why a page that says it is an article is none, or
	// which of its dates could not be used: for callers that want
	// articles to report (they are not in Info.Problems).
	Problems []string
}

// newsTypes are NewsArticle and its schema.org subtypes.
var newsTypes = []string{
	"NewsArticle", "AnalysisNewsArticle", "AskPublicNewsArticle", "BackgroundNewsArticle",
	"OpinionNewsArticle", "ReportageNewsArticle", "ReviewNewsArticle",
}

// newsWord is in every news type's name: a JSON-LD script that does not
// hold it (as written: a type escaped in JSON is not read as one) has no
// news node.
const newsWord = "NewsArticle"

// mentionsNews reports whether a JSON-LD script may hold a news node.
func mentionsNews(src []byte) bool { return bytes.Contains(src, []byte(newsWord)) }

// isNewsNode reports whether a JSON-LD node's @type, a string or an array
// of strings, names a news type: its name after the last '/' or ':'. The
// raw JSON must hold newsWord as written, so that both readers, one of
// which reads a script's nodes only if it holds that word (mentionsNews),
// agree.
func isNewsNode(m map[string]json.RawMessage) bool {
	raw, ok := m["@type"]
	if !ok || !bytes.Contains(raw, []byte(newsWord)) {
		return false
	}
	var types []string
	var one string
	if json.Unmarshal(raw, &one) == nil {
		types = []string{one}
	} else if json.Unmarshal(raw, &types) != nil {
		return false
	}
	for _, t := range types {
		if i := strings.LastIndexAny(t, "/:"); i >= 0 {
			t = t[i+1:]
		}
		for _, n := range newsTypes {
			if t == n {
				return true
			}
		}
	}
	return false
}

// ldText is a JSON-LD value as text: a string, or the first element of an
// array when that is one; "" otherwise.
func ldText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var arr []json.RawMessage
	if json.Unmarshal(raw, &arr) == nil && len(arr) > 0 && json.Unmarshal(arr[0], &s) == nil {
		return s
	}
	return ""
}

// titleText takes in the raw text of a <title> of the head (not in a
// template): the first one is the document's title.
func (c *collected) titleText(raw []byte) {
	if !c.hasTitle {
		c.title, c.hasTitle = string(raw), true
	}
}

// newsNode is the JSON-LD node of a news article about the page: the first
// that names it, by names (nil: none can), or else the first; nil if
// there is none.
func (c *collected) newsNode(names func(ldNode) bool) *ldNode {
	first := -1
	for i := range c.ld {
		if !c.ld[i].news {
			continue
		}
		if names != nil && names(c.ld[i]) {
			return &c.ld[i]
		}
		if first < 0 {
			first = i
		}
	}
	if first < 0 {
		return nil
	}
	return &c.ld[first]
}

// article sets Info.Article if the head says the page is a news article:
// n is its JSON-LD node, or nil.
func (c *collected) article(n *ldNode) {
	og := strings.EqualFold(c.props[propOGType], "article") && c.props[propPubTime] != ""
	if n == nil && !og {
		return
	}
	var published time.Time
	dates := [...]struct{ source, v string }{{"JSON-LD datePublished", ""}, {metaProps[propPubTime], c.props[propPubTime]}}
	if n != nil {
		dates[0].v = n.published
	}
	for _, d := range dates {
		if strings.Trim(d.v, htmlSpace) == "" {
			continue
		}
		t, err := parseDate(d.v)
		if err == nil && len(strings.Trim(d.v, htmlSpace)) < len("YYYY-MM-DD") {
			err = errIncomplete
		}
		if err != nil {
			c.info.Article.Problems = append(c.info.Article.Problems, fmt.Sprintf("news article: %s %q %v", d.source, clip(d.v), err))
			continue
		}
		published = t
		break
	}
	if published.IsZero() {
		c.info.Article.Problems = append(c.info.Article.Problems, "news article without a usable publication date: not one")
		return
	}
	titles := [...]string{"", c.props[propOGTitle], ""}
	if n != nil {
		titles[0] = n.headline
	}
	if c.hasTitle {
		titles[2] = html.UnescapeString(strings.ReplaceAll(c.title, "\x00", "\uFFFD"))
	}
	for _, t := range titles {
		if t = CleanTitle(t); t != "" {
			c.info.Article.Published, c.info.Article.Title = published, t
			return
		}
	}
	c.info.Article.Problems = append(c.info.Article.Problems, "news article without a title: not one")
}

// errIncomplete is the error of a publication date without a day.
var errIncomplete = fmt.Errorf("is not a complete date (YYYY-MM-DD at least)")

// CleanTitle is a title as a news sitemap carries it: its runs of white
// space made one space, trimmed, its invalid UTF-8 made U+FFFD, and the
// characters XML 1.0 cannot carry (controls, U+FFFE, U+FFFF) taken out.
func CleanTitle(s string) string {
	if cleanAlready(s) {
		return s // most titles: no copy
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
		case r < 0x20 || r == 0xFFFE || r == 0xFFFF:
		default:
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// cleanAlready reports whether CleanTitle(s) is s: ASCII but controls,
// single spaces between words, none at the ends. (Other titles take the
// long way, which gives them back the same when they are clean.)
func cleanAlready(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == ' ' && (i == 0 || i == len(s)-1 || s[i+1] == ' ') {
			return false
		}
	}
	return true
}
