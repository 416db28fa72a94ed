package sitemap

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"strings"
)

// ReadFileURLs is ReadURLs of the sitemap file named name, read from r:
// gunzipped first when the name ends in .gz, as sitemapd names the files
// it compresses.
func ReadFileURLs(r io.Reader, name string, urls map[string]string) error {
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return err
		}
		r = zr
	}
	return ReadURLs(r, urls)
}

// ReadURLs reads back the <url> entries of a sitemap this package encoded,
// into urls (loc -> lastmod as written, "" for none). It relies on the
// encoder's layout, one <url> per line, which is this package's to keep;
// it is no parser for sitemaps of other origins.
func ReadURLs(r io.Reader, urls map[string]string) error {
	sc := bufio.NewScanner(r)
	// A <url> line is at most some 12 MB: MaxImages images of
	// MaxLocLen characters each, escaped (see maxEncodedLen).
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	for sc.Scan() {
		line := sc.Bytes()
		loc, ok := between(line, "<loc>", "</loc>")
		if !ok {
			continue
		}
		lastmod, _ := between(line, "<lastmod>", "</lastmod>")
		urls[UnescapeXML(loc)] = string(lastmod)
	}
	return sc.Err()
}

// maxLine bounds the length of an entry's line, as maxEncodedLen bounds
// it for the longest entry the encoder is given.
const maxLine = 16 << 20

func between(b []byte, open, close string) ([]byte, bool) {
	i := bytes.Index(b, []byte(open))
	if i < 0 {
		return nil, false
	}
	b = b[i+len(open):]
	j := bytes.Index(b, []byte(close))
	if j < 0 {
		return nil, false
	}
	return b[:j], true
}

var xmlUnescaper = strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">", "&apos;", "'", "&quot;", "\"")

// UnescapeXML undoes AppendEscaped.
func UnescapeXML(b []byte) string { return xmlUnescaper.Replace(string(b)) }
