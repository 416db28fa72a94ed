package news

import (
	"github.com/sitemapd/sitemapd/internal/sitemap"
)

// Encode encodes the articles Select chose, in their order, as news
// sitemaps of MaxURLs articles at most, each a <urlset> of the sitemaps
// protocol whose <url>s carry a <news:news>, started by header
// (sitemap.Encoder.Header: the declaration, a stylesheet, the marker by
// which sitemapd knows its files). No articles, no documents: an empty
// <urlset> is invalid. Titles and names are escaped; a title is as
// head.CleanTitle leaves it, with nothing XML cannot carry.
func Encode(header string, articles []Article) [][]byte {
	var docs [][]byte
	for start := 0; start < len(articles); start += MaxURLs {
		chunk := articles[start:min(start+MaxURLs, len(articles))]
		b := make([]byte, 0, 256+len(chunk)*400)
		b = append(b, header...)
		b = append(b, `<urlset xmlns="`+sitemap.Namespace+`" xmlns:news="`+Namespace+`">`+"\n"...)
		for i := range chunk {
			b = appendArticle(b, &chunk[i])
		}
		docs = append(docs, append(b, "</urlset>\n"...))
	}
	return docs
}

// appendArticle appends one article's <url>.
func appendArticle(b []byte, a *Article) []byte {
	b = append(b, "<url><loc>"...)
	b = sitemap.AppendEscaped(b, a.Loc)
	b = append(b, "</loc><news:news><news:publication><news:name>"...)
	b = sitemap.AppendEscaped(b, a.Publication.Name)
	b = append(b, "</news:name><news:language>"...)
	b = append(b, a.Publication.Language...)
	b = append(b, "</news:language></news:publication><news:publication_date>"...)
	b = sitemap.AppendTime(b, a.Published)
	b = append(b, "</news:publication_date><news:title>"...)
	b = sitemap.AppendEscaped(b, a.Title)
	return append(b, "</news:title></news:news></url>\n"...)
}
