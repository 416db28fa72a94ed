package sitemap

import (
	"bytes"
	"compress/gzip"
	"testing"
)

// TestReadFileURLs: a file named .gz is gunzipped before it is read, one
// named otherwise is read as it is, and a .gz that is not gzip is an error.
func TestReadFileURLs(t *testing.T) {
	doc := []byte("<urlset>\n<url><loc>https://example.com/a?x=1&amp;y=2</loc><lastmod>2026-11-26</lastmod></url>\n</urlset>\n")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(doc)
	zw.Close()
	for _, tc := range []struct {
		name    string
		data    []byte
		wantErr bool
	}{
		{"sitemap.xml", doc, false},
		{"sitemap.xml.gz", gz.Bytes(), false},
		{"sitemap.xml.gz", doc, true},
	} {
		got := map[string]string{}
		err := ReadFileURLs(bytes.NewReader(tc.data), tc.name, got)
		if tc.wantErr {
			if err == nil {
				t.Errorf("%s of plain XML: no error", tc.name)
			}
			continue
		}
		if err != nil || len(got) != 1 || got["https://example.com/a?x=1&y=2"] != "2026-11-26" {
			t.Errorf("%s: %v, %v", tc.name, got, err)
		}
	}
}
