// Package news is the Google News sitemap: which articles it lists at a
// given time, how an article is kept with its page (Pack, Unpack), which
// publication an article belongs to (Rules), and the documents' bytes
// (Encode).
//
// Google's rules (developers.google.com/search/docs/crawling-indexing/
// sitemaps/news-sitemap) and its schema (sitemap-news.xsd): a news
// sitemap lists the articles published in the last two days, at most
// 1,000 URLs a sitemap (more go into further sitemaps of an index), each
// with news:publication (name, language), news:publication_date and
// news:title. So the list is a function of the pages and the time: an
// article enters when its publication time comes and leaves 48 hours
// later (Window), whether or not any file changes; Next says when that
// next happens, for the daemon's timer.
package news

import (
	"encoding/binary"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Window is how long after its publication an article is listed.
const Window = 48 * time.Hour

// MaxURLs is the most articles a news sitemap lists (Google's limit).
const MaxURLs = 1000

// MaxTitle bounds a title kept, in bytes: Google shows a title shortened
// anyway, and 1,000 titles of a head's length (up to 1 MiB) would exceed
// a sitemap's 50 MiB.
const MaxTitle = 1024

// Namespace is the namespace of Google's news extension.
const Namespace = "http://www.google.com/schemas/sitemap-news/0.9"

// Publication is the publication an article appears in.
type Publication struct {
	Name, Language string
}

// Article is one article of the site: its page's URL, when it was
// published, its title and its publication.
type Article struct {
	Loc         string
	Published   time.Time
	Title       string
	Publication Publication
}

// Pack is what a page keeps of the article it is (tree.Head.News): its
// publication time (Unix nanoseconds, 8 bytes little-endian) and its
// title, cut to MaxTitle bytes at a character's start. "" for a zero
// time: no article.
func Pack(published time.Time, title string) string {
	if published.IsZero() {
		return ""
	}
	if len(title) > MaxTitle {
		cut := MaxTitle
		for cut > 0 && !utf8.RuneStart(title[cut]) {
			cut--
		}
		title = title[:cut]
	}
	var b strings.Builder
	b.Grow(8 + len(title))
	var t [8]byte
	binary.LittleEndian.PutUint64(t[:], uint64(published.UnixNano()))
	b.Write(t[:])
	b.WriteString(title)
	return b.String()
}

// Unpack reads what Pack packed; ok is false for "" (no article) and for
// a value too short to be one.
func Unpack(packed string) (published time.Time, title string, ok bool) {
	if len(packed) < 8 {
		return time.Time{}, "", false
	}
	ns := int64(binary.LittleEndian.Uint64([]byte(packed[:8])))
	return time.Unix(0, ns).UTC(), packed[8:], true
}

// Fresh reports whether an article published at t is listed at now: its
// time has come, and Window has not passed since.
func Fresh(t, now time.Time) bool { return !t.After(now) && now.Sub(t) < Window }

// Kept reports whether an article published at t may still be listed, at
// now or later: it is fresh, or its time is still to come.
func Kept(t, now time.Time) bool { return now.Sub(t) < Window }

// Select returns the articles listed at now, newest first (ties by URL),
// without duplicate URLs.
func Select(articles []Article, now time.Time) []Article {
	var out []Article
	for _, a := range articles {
		if Fresh(a.Published, now) {
			out = append(out, a)
		}
	}
	// One of each URL (a page under two names whose URL is one: the
	// first by publication time), then newest first.
	slices.SortStableFunc(out, func(a, b Article) int { return strings.Compare(a.Loc, b.Loc) })
	out = slices.CompactFunc(out, func(a, b Article) bool { return a.Loc == b.Loc })
	slices.SortFunc(out, func(a, b Article) int {
		if c := b.Published.Compare(a.Published); c != 0 {
			return c
		}
		return strings.Compare(a.Loc, b.Loc)
	})
	return out
}

// Next is the first time after now at which Select's answer changes: an
// article's time comes, or one listed leaves. The zero time when none
// will.
func Next(articles []Article, now time.Time) time.Time {
	var next time.Time
	for _, a := range articles {
		var at time.Time
		switch {
		case a.Published.After(now):
			at = a.Published
		case Fresh(a.Published, now):
			at = a.Published.Add(Window)
		default:
			continue
		}
		if next.IsZero() || at.Before(next) {
			next = at
		}
	}
	return next
}
