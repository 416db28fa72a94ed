package outname

import (
	"maps"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// OwnKey names the last part of a group's sitemap when an application's
// sitemap, listed in extra_sitemaps, sits where that part would be
// ("shop/sitemap.xml"): sitemapd leaves the app's file alone and writes
// its own as Chunk(sitemap_name, OwnKey), "shop/sitemap-sitemapd.xml".
// IsPart knows it, so every part of a group is found the same way.
const OwnKey = "sitemapd"

// FeedExt is the extension a feed's name must have: web servers serve it
// as application/atom+xml (nginx's mime.types does), and it tells the
// feed apart from every other output, which end in .xml, .txt or .xsl.
const FeedExt = ".atom"

// StylesheetName is the name of the built-in stylesheet that `stylesheet:
// builtin` writes at the root of the output.
const StylesheetName = "sitemap.xsl"

// RobotsName is the name of robots.txt, at the root of the document root
// (whose rules decide which pages are listed) and of the output (where
// robots_txt keeps the Sitemap lines).
const RobotsName = "robots.txt"

// gzExt is what a sitemap document's name gets when gzip is on.
const gzExt = ".gz"

// extraInfix is what Site.Extra puts between sitemap_name's stem and an
// extra_urls file's name: "urls-" starts with a letter that is no hex
// digit, so no name of an extra is a part of sitemap_name's (IsPart).
const extraInfix = "-urls-"

// newsInfix is what Site.News puts after sitemap_name's stem: "news"
// starts with a letter that is no hex digit, so no part of the news
// sitemap is a part of sitemap_name's (IsPart), and none is an
// extra_urls file's ("-urls-").
const newsInfix = "-news"

// Part is the file name of part n (1-based) of a sitemap or index called
// name: part 1 is name itself, part n is "stem-n.xml".
func Part(name string, n int) string {
	if n <= 1 {
		return name
	}
	ext := path.Ext(name)
	return strings.TrimSuffix(name, ext) + "-" + strconv.Itoa(n) + ext
}

// Chunk is the file name of the part of a sitemap called name whose key
// is key (sitemap.Chunk.Key): name itself for the unkeyed last part,
// "stem-KEY.xml" for the others.
func Chunk(name, key string) string {
	if key == "" {
		return name
	}
	ext := path.Ext(name)
	return strings.TrimSuffix(name, ext) + "-" + key + ext
}

// IsPart reports whether file is some part of name (ignoring a ".gz"
// suffix): name itself, "stem-N.xml" for N >= 2 (Part), "stem-KEY.xml"
// for a 12-hex-digit key (Chunk), or "stem-sitemapd.xml" (OwnKey).
func IsPart(file, name string) bool {
	file = strings.TrimSuffix(file, gzExt)
	if file == name {
		return true
	}
	// stem-num.ext, compared in place: the walk asks this of every file.
	ext := path.Ext(name)
	stem := name[:len(name)-len(ext)]
	if len(file) < len(stem)+1+len(ext) || !strings.HasPrefix(file, stem) || file[len(stem)] != '-' || !strings.HasSuffix(file, ext) {
		return false
	}
	num := file[len(stem)+1 : len(file)-len(ext)]
	if isChunkKey(num) || num == OwnKey {
		return true
	}
	n, err := strconv.Atoi(num)
	return err == nil && n >= 2 && strconv.Itoa(n) == num
}

// isChunkKey reports whether s is a chunk key: 12 lower-case hex digits.
func isChunkKey(s string) bool {
	if len(s) != 12 {
		return false
	}
	for i := range len(s) {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// KeyName is the name of the key file of an IndexNow key, which sitemapd
// publishes at the root of the output (holding the key) and names as
// keyLocation.
func KeyName(key string) string { return key + ".txt" }

// Bases are what a site's output names derive from: its configuration's
// values (config.Config.OutputNames hands them over).
type Bases struct {
	Sitemap    string   // sitemap_name: each group's sitemap
	Index      string   // index_name: the root sitemap index
	Feed       string   // feed.name; "" when there is no feed
	Gzip       bool     // gzip: sitemap documents are written gzipped
	Stylesheet bool     // stylesheet: builtin, written as StylesheetName
	Keys       []string // the IndexNow endpoints' keys
}

// Site names one site's outputs. Its names are computed once, at New, as
// the walk asks Kind of every file.
type Site struct {
	sitemap, index, text, news string
	extraPrefix                string // sitemap_name's stem and extraInfix
	feed                       string
	gzip, stylesheet           bool
	keys                       map[string]string // key file name -> key
}

// New returns the names of a site's outputs.
func New(b Bases) *Site {
	stem := strings.TrimSuffix(b.Sitemap, path.Ext(b.Sitemap))
	s := &Site{
		sitemap: b.Sitemap, index: b.Index, text: stem + ".txt", news: stem + newsInfix + ".xml",
		extraPrefix: stem + extraInfix, feed: b.Feed, gzip: b.Gzip, stylesheet: b.Stylesheet,
		keys: map[string]string{},
	}
	for _, k := range b.Keys {
		s.keys[KeyName(k)] = k
	}
	return s
}

// Sitemap is the base name of each group's sitemap (sitemap_name).
func (s *Site) Sitemap() string { return s.sitemap }

// Index is the base name of the root sitemap index (index_name).
func (s *Site) Index() string { return s.index }

// Text is the base name of a group's text sitemap: sitemap_name with .txt
// for .xml. Its parts are named as Chunk says.
func (s *Site) Text() string { return s.text }

// News is the base name of the news sitemap, at the root of the output:
// sitemap_name's stem and "-news.xml" ("sitemap-news.xml"); past 1,000
// articles its parts are named as Part says ("sitemap-news-2.xml").
func (s *Site) News() string { return s.news }

// Extra is the base name of the sitemap published, at the root of the
// output, for the extra_urls file at path: sitemap_name's stem, "-urls-"
// and the file's base name without its extension, characters other than
// letters, digits, '.', '_' and '-' made '-' ("/etc/sitemapd/shop.urls"
// gives "sitemap-urls-shop.xml"). Its parts are named as Chunk says.
func (s *Site) Extra(file string) string {
	base := filepath.Base(file)
	stem := strings.TrimSuffix(base, filepath.Ext(base))
	if stem == "" {
		stem = strings.TrimPrefix(base, ".")
	}
	clean := []byte(stem)
	for i, b := range clean {
		if !(b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '.' || b == '_' || b == '-') {
			clean[i] = '-'
		}
	}
	return s.extraPrefix + string(clean) + ".xml"
}

// ExtraPattern is the names Extra gives as a glob ("sitemap-urls-*.xml"),
// for messages.
func (s *Site) ExtraPattern() string { return s.extraPrefix + "*.xml" }

// Out is the file name a sitemap document (a part of a sitemap, index,
// text, news or extra_urls sitemap) called name is written as: with
// ".gz" when gzip is on.
func (s *Site) Out(name string) string {
	if s.gzip {
		return name + gzExt
	}
	return name
}

// PartOf reports whether file is a part of the output called base as
// written now: IsPart, and gzipped exactly when gzip is on. A part of
// the other spelling is sitemapd's (Kind) but no longer written.
func (s *Site) PartOf(file, base string) bool {
	return file == s.Out(strings.TrimSuffix(file, gzExt)) && IsPart(file, base)
}

// KeyFiles maps the name of each IndexNow key file to its key (a copy).
func (s *Site) KeyFiles() map[string]string { return maps.Clone(s.keys) }

// Kind is which of a site's outputs a name is.
type Kind uint8

const (
	// Foreign is a name sitemapd gives none of its files.
	Foreign Kind = iota
	// Sitemap is a part of a group's sitemap (sitemap_name).
	Sitemap
	// Index is a part of the root index (index_name).
	Index
	// Text is a part of a group's text sitemap, whether text sitemaps
	// are on or not: the ones written before are found and removed (if
	// the record says they are sitemapd's).
	Text
	// News is a part of the news sitemap, on or off.
	News
	// Extra is a part of the sitemap of an extra_urls file, whichever
	// file: one whose file left the configuration is found and removed.
	Extra
	// Key is an IndexNow endpoint's key file.
	Key
	// Stylesheet is the built-in stylesheet, when it is written.
	Stylesheet
	// Feed is the feed, when there is one.
	Feed
	// Robots is robots.txt: the site's own, whose Sitemap lines sitemapd
	// keeps when robots_txt is on; never a page.
	Robots
)

// String names a kind for messages and tests.
func (k Kind) String() string {
	return [...]string{"foreign", "sitemap", "index", "text sitemap", "news sitemap", "extra_urls sitemap", "key file", "stylesheet", "feed", "robots.txt"}[k]
}

// Parted reports whether names of the kind are parts of a sitemap
// document (sitemaps, indexes, text, news and extra_urls sitemaps): the
// outputs a publish writes, cuts and removes in parts.
func (k Kind) Parted() bool { return k >= Sitemap && k <= Extra }

// Owned reports whether a file of the kind is one sitemapd writes whole:
// every kind but Foreign and Robots, which is the site's.
func (k Kind) Owned() bool { return k != Foreign && k != Robots }

// Kind says which of the site's outputs a base name is, its parts named
// gzipped or not. A name two kinds would share (the configuration
// refuses most such clashes) is the first of: the parted kinds, Key,
// Stylesheet, Feed, Robots.
func (s *Site) Kind(name string) Kind {
	switch {
	case s.isExtra(name):
		return Extra
	case IsPart(name, s.sitemap):
		return Sitemap
	case IsPart(name, s.index):
		return Index
	case IsPart(name, s.text):
		return Text
	case IsPart(name, s.news):
		return News
	}
	if _, ok := s.keys[name]; ok {
		return Key
	}
	switch {
	case s.stylesheet && name == StylesheetName:
		return Stylesheet
	case s.feed != "" && name == s.feed:
		return Feed
	case name == RobotsName:
		return Robots
	}
	return Foreign
}

// isExtra reports whether a base name is named like the sitemap of an
// extra_urls file, or some part of one, gzipped or not, whichever file.
func (s *Site) isExtra(name string) bool {
	name = strings.TrimSuffix(name, gzExt)
	return len(name) > len(s.extraPrefix)+len(".xml") && strings.HasPrefix(name, s.extraPrefix) && strings.HasSuffix(name, ".xml")
}
