package robots

import (
	"strings"
	"testing"

	"github.com/jimsmart/grobotstxt"
)

// benchRobots is a robots.txt as a shop or a blog has one: 40 rules in
// four groups, wildcards, comments and Sitemap lines.
const benchRobots = `# robots.txt for www.static.test
User-agent: *
Disallow: /wp-admin/
Allow: /wp-admin/admin-ajax.php
Disallow: /wp-includes/
Disallow: /wp-content/plugins/
Disallow: /cgi-bin/
Disallow: /cart/
Disallow: /checkout/
Disallow: /my-account/
Disallow: /login
Disallow: /register
Disallow: /search/
Disallow: /*?s=
Disallow: /*?add-to-cart=
Disallow: /*?orderby=
Disallow: /*&filter_
Disallow: /*/feed/$
Disallow: /*.pdf$
Disallow: /tag/*/page/
Disallow: /author/
Disallow: /trackback/
Disallow: /print/
Disallow: /tmp/
Disallow: /wp-login.php
Disallow: /xmlrpc.php
Disallow: /*?replytocom=
Disallow: /comments/feed/
Disallow: /*/attachment/
Allow: /wp-content/uploads/
Allow: /search/help.html

User-agent: Googlebot
User-agent: Googlebot-News
Disallow: /cart/
Disallow: /checkout/
Disallow: /my-account/
Disallow: /*?sessionid=
Disallow: /drafts/
Allow: /drafts/published/
Disallow: /private/index.html
Allow: /private/open/index.html

User-agent: AhrefsBot
User-agent: SemrushBot
Disallow: /

User-agent: Bingbot
Disallow: /search/
Disallow: /cart/
Crawl-delay: 5

Sitemap: https://www.static.test/sitemap_index.xml
Sitemap: https://www.static.test/news-sitemap.xml
`

// benchPaths are the site paths of pages of such a site.
var benchPaths = strings.Fields(`
/ /about/ /contact/ /blog/ /blog/2024/05/a-post-about-something/ /blog/2024/05/a-post-about-something/feed/
/blog/page/2/ /tag/go/ /tag/go/page/3/ /author/alice/ /category/news/ /products/ /products/shoes/
/products/shoes/red-sneaker.html /products/shoes/red-sneaker.html?orderby=price /products/shoes/?s=red
/cart/ /checkout/ /my-account/orders/ /search/ /search/help.html /wp-content/uploads/2024/05/photo.jpg
/wp-content/uploads/2024/05/brochure.pdf /docs/manual.pdf /docs/manual/ /docs/manual/chapter-1.html
/caf%C3%A9/menu.html /drafts/published/x.html /drafts/y.html /private/ /private/open/ /print/x.html
`)

func BenchmarkAllowed(b *testing.B) {
	for _, agent := range []string{"*", "Googlebot"} {
		r := parse([]byte(benchRobots), agent)
		if len(r.rules) == 0 {
			b.Fatal("no rules")
		}
		for _, p := range benchPaths {
			if r.Allowed(p) != oracle(benchRobots, agent, p) {
				b.Fatalf("%s %s: not Google's answer", agent, p)
			}
		}
		b.Run("agent="+agent+"/Rules", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				r.Allowed(benchPaths[i%len(benchPaths)])
			}
		})
		// Google's parser, one call per page: it parses the file again
		// for each.
		b.Run("agent="+agent+"/grobotstxt.AgentAllowed", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				grobotstxt.AgentAllowed(benchRobots, agent, "https://www.static.test"+benchPaths[i%len(benchPaths)])
			}
		})
	}
}

// BenchmarkLoad is the once-per-build cost of parsing.
func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	data := []byte(benchRobots)
	for b.Loop() {
		parse(data, "*")
	}
}
