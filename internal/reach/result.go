package reach

import "fmt"

// What is what a URL checked is to search engines.
type What int

const (
	KeyFile What = iota // an IndexNow key file
	Robots              // robots.txt, its Sitemap lines
	Index               // an index file of the output root
	Sitemap             // a sitemap an index lists
	Page                // a page a sitemap lists
)

func (w What) String() string {
	return [...]string{"key file", "robots.txt", "index", "sitemap", "page"}[w]
}

// Problem is what was wrong with an answer; OK when nothing was.
type Problem int

const (
	OK          Problem = iota
	Unreachable         // no answer: connection refused, timeout, TLS
	BadStatus           // an answer that is not 200 (nor a redirect)
	Redirect            // a redirect, which engines do not follow for it (or, strict, at all)
	ContentType         // the wrong media type
	Body                // other bytes than sitemapd wrote, or robots.txt without the index's Sitemap line
	NotOnDisk           // sitemapd's file is not on disk to compare with
)

// String is the problem's name in metrics and /healthz.
func (p Problem) String() string {
	return [...]string{"ok", "unreachable", "status", "redirect", "content_type", "body", "not_on_disk"}[p]
}

// Result is the verdict on one URL.
type Result struct {
	What    What
	URL     string
	Problem Problem
	// Detail says what was wrong ("answered 301 to /keys/k.txt") or,
	// when OK, what was right; Fix says where to look.
	Detail, Fix string
	// Hops are the redirects followed to the answer judged, each "301 to
	// URL" (not strict: robots.txt, the index and sitemaps).
	Hops []string
	// In is the sitemap that lists a page.
	In string
}

// String is the result as one line: what, the URL and what was wrong.
func (r Result) String() string {
	return fmt.Sprintf("%s %s %s", r.What, r.URL, r.Detail)
}

// key identifies a problem across checks: the same URL wrong the same
// way is the same problem, whatever its detail (a byte count) says.
type key struct {
	what    What
	url     string
	problem Problem
}

func (r Result) key() key { return key{r.What, r.URL, r.Problem} }
