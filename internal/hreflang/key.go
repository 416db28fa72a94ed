package hreflang

import (
	"hash/maphash"
	"net/url"
	"strings"

	"github.com/sitemapd/sitemapd/internal/siteurl"
)

// Key identifies a URL in the graph: a hash of its normalised form. Two
// values are special, for targets on another host: foreign (not named by
// pages.hreflang_hosts) and allowed (named). No URL's key is either.
type Key uint64

const (
	foreign Key = 0
	allowed Key = 1
)

var seed = maphash.MakeSeed()

// urlKey normalises a URL for comparison, as a page's canonical is
// compared with its URL: scheme and host in lower case, no default port,
// the path percent-decoded (so "%7E" and "~" match), an empty path as
// "/", the query as written.
func urlKey(u *url.URL) string {
	p := u.Path
	if p == "" {
		p = "/"
	}
	if u.RawQuery != "" || u.ForceQuery {
		p += "?" + u.RawQuery
	}
	return strings.ToLower(u.Scheme) + "://" + siteurl.HostKey(u.Scheme, u.Host) + p
}

func hashOf(s string) Key {
	k := Key(maphash.String(seed, s))
	if k <= allowed {
		k += 2
	}
	return k
}

// Hosts tells a URL on the site's host from one on a host
// pages.hreflang_hosts names, and from any other.
type Hosts struct {
	site  string          // base_url's host[:port], lower case, without the scheme's default port
	other map[string]bool // the named hosts, likewise
}

// NewHosts returns the hosts of a site at baseURL, with others (host
// names, lower case, as pages.hreflang_hosts holds them).
func NewHosts(baseURL string, others []string) Hosts {
	h := Hosts{other: map[string]bool{}}
	if u, err := url.Parse(baseURL); err == nil {
		h.site = siteurl.HostKey(u.Scheme, u.Host)
	}
	for _, o := range others {
		// A host named with a default port is the host without it.
		h.other[o] = true
		h.other[siteurl.HostKey("http", o)] = true
		h.other[siteurl.HostKey("https", o)] = true
	}
	return h
}

// Key returns the key of a URL an alternate names (or a page's own URL):
// foreign or allowed for one on another host.
func (h Hosts) Key(s string) Key {
	u, err := url.Parse(s)
	if err != nil {
		return foreign
	}
	host := siteurl.HostKey(u.Scheme, u.Host)
	switch {
	case host == h.site:
		return hashOf(urlKey(u))
	case h.other[host]:
		return allowed
	}
	return foreign
}
