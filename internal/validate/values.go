package validate

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/sitemap"
)

// The values of <loc>, <lastmod>, <changefreq> and <priority>: by the
// protocol's rules, and by the types sitemap.xsd gives them (xsdtypes.go).

func (c *checker) field(name, text string, line int) {
	v := strings.TrimSpace(text)
	n := len(c.res.Problems)
	schema := true                     // the schema takes the value
	why := func() string { return "" } // if not, why, for when the protocol takes it
	switch name {
	case "loc":
		c.loc(v, line)
		switch l := collapsedLen(text); {
		case l < 12 || l > 2048:
			schema = false
			why = func() string { return fmt.Sprintf("<loc> %q has %d characters: sitemap.xsd wants 12 to 2,048", v, l) }
		case !xsAnyURI(text):
			schema = false
			why = func() string { return fmt.Sprintf("<loc> %q is not a URI (xs:anyURI)%s", v, uriHint(v)) }
		}
	case "lastmod":
		c.lastmod(v, line)
		schema = xsDateOrDateTime(text)
		why = func() string {
			return fmt.Sprintf("<lastmod> %q: sitemap.xsd wants a date (2026-11-22) or a date and time to the second (2026-11-22T10:30:00Z)", v)
		}
	case "changefreq":
		if c.res.Kind != "urlset" || !slices.Contains(config.ValidChangeFreqs, v) {
			c.add(line, fmt.Sprintf("<changefreq> %q: want one of %s", v, strings.Join(config.ValidChangeFreqs, ", ")), true)
		}
		schema = slices.Contains(config.ValidChangeFreqs, text)
		why = func() string {
			return fmt.Sprintf("<changefreq> %q: sitemap.xsd wants the word alone, without whitespace around it", text)
		}
	case "priority":
		schema = c.res.Kind == "urlset" && xsPriority(text)
		if !schema {
			c.add(line, fmt.Sprintf("<priority> %q: want a number from 0.0 to 1.0", v), true)
		}
	default:
		return
	}
	switch {
	case schema:
	case len(c.res.Problems) > n:
		c.res.Problems[n].Schema = true
	default:
		c.add(line, why(), true)
	}
}

// uriHint says why a value is not a URI, where it can tell.
func uriHint(v string) string {
	switch {
	case pctRE.MatchString(v):
		return ": a '%' that starts no %XX escape"
	case strings.Count(v, "#") > 1:
		return ": more than one '#'"
	}
	return ""
}

// uriChars are the characters a URL may hold unescaped (RFC 3986).
func uriChar(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' ||
		strings.IndexByte("-._~:/?#[]@!$&'()*+,;=%", b) >= 0
}

var pctRE = regexp.MustCompile(`%([^0-9A-Fa-f]|.[^0-9A-Fa-f]|.?$)`)

// loc checks a URL by the protocol's rules.
func (c *checker) loc(v string, line int) {
	if len(v) > sitemap.MaxLocLen {
		c.add(line, fmt.Sprintf("%s of %d characters: the protocol wants fewer than 2,048", c.what, len(v)), false)
	}
	for i := 0; i < len(v); i++ {
		if !uriChar(v[i]) {
			c.add(line, fmt.Sprintf("%s %q has a character that must be percent-encoded (%q)", c.what, v, v[i]), false)
			return
		}
	}
	if pctRE.MatchString(v) {
		c.add(line, fmt.Sprintf("%s %q has a '%%' that starts no %%XX escape", c.what, v), false)
		return
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		c.add(line, fmt.Sprintf("%s %q is not an absolute http or https URL", c.what, v), false)
		return
	}
	switch n := normHost(v); {
	case c.dir == "":
	case c.res.Kind != "sitemapindex" && !strings.HasPrefix(n, c.dir):
		c.add(line, fmt.Sprintf("%s %q is outside %s, where this sitemap lives: it may list URLs at or below its own directory only", c.what, v, c.dir), false)
	case c.res.Kind == "sitemapindex" && !strings.HasPrefix(n, c.site):
		c.add(line, fmt.Sprintf("%s %q is on another site than %s, where this index lives", c.what, v, c.site), false)
	}
}

// normHost lower-cases a URL's scheme and host, which are case-insensitive;
// the rest is compared as it is.
func normHost(v string) string {
	i := strings.Index(v, "://")
	if i < 0 {
		return v
	}
	j := strings.IndexByte(v[i+3:], '/')
	if j < 0 {
		return strings.ToLower(v)
	}
	return strings.ToLower(v[:i+3+j]) + v[i+3+j:]
}

// W3C Datetime, the forms the protocol accepts.
var lastmodRE = regexp.MustCompile(`^\d{4}(-\d{2}(-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?)?)?$`)

func (c *checker) lastmod(v string, line int) {
	if !lastmodRE.MatchString(v) {
		c.add(line, fmt.Sprintf("<lastmod> %q is not a W3C Datetime (e.g. 2026-11-22 or 2026-11-22T10:30:00Z)", v), false)
		return
	}
	var t time.Time
	var err error
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00", "2006-01-02", "2006-01", "2006"} {
		if t, err = time.Parse(layout, v); err == nil {
			break
		}
	}
	if err != nil {
		c.add(line, fmt.Sprintf("<lastmod> %q is not a valid date", v), false)
		return
	}
	if t.After(c.opts.Now) {
		c.add(line, fmt.Sprintf("<lastmod> %s is in the future", v), false)
	}
}
