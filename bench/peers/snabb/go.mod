module github.com/sitemapd/sitemapd/bench/peers/snabb

go 1.26

require github.com/snabb/sitemap v1.0.4

require github.com/snabb/diagio v1.0.4 // indirect
