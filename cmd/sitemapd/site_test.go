package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"html"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A realistic site for the whole-process tests, and what sitemapd wrote for
// it, read from outside sitemapd (encoding/xml, the filesystem).

// siteFile is one file of a generated site: its path, bytes and mtime,
// and, for a page that is listed, its URL and expected lastmod.
type siteFile struct {
	rel          string
	data         []byte
	mtime        time.Time
	url, lastmod string
}

func writeSite(t *testing.T, dir string, site []siteFile) {
	t.Helper()
	for _, f := range site {
		writeFileAt(t, filepath.Join(dir, f.rel), f.data, f.mtime)
	}
}

// pageURL is a page's URL as sitemaps.org and RFC 3986 want it, computed
// here: each path segment's bytes percent-encoded but for letters, digits
// and -._~!$&'()*,;=:@; an index.html maps to its directory.
func pageURL(rel string) string {
	const hex = "0123456789ABCDEF"
	if rel == "index.html" {
		rel = ""
	} else if strings.HasSuffix(rel, "/index.html") {
		rel = strings.TrimSuffix(rel, "index.html")
	}
	var b strings.Builder
	b.WriteString(base + "/")
	for i := 0; i < len(rel); i++ {
		c := rel[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '/' || strings.IndexByte("-._~!$&'()*,;=:@", c) >= 0 {
			b.WriteByte(c)
		} else {
			b.WriteString("%" + string(hex[c>>4]) + string(hex[c&15]))
		}
	}
	return b.String()
}

func isPageName(rel string) bool {
	ext := strings.ToLower(filepath.Ext(rel))
	return ext == ".html" || ext == ".htm" || ext == ".pdf"
}

// realisticSite is a static site as a generator leaves it: nested
// sections, heads with canonical links, Open Graph and JSON-LD, hreflang
// pairs, PDFs, assets, names with spaces and UTF-8, an error page and a
// section robots.txt disallows. Each file has its own mtime, in the past.
func realisticSite() []siteFile {
	var site []siteFile
	mtime := time.Date(2025, 3, 1, 8, 0, 0, 0, time.UTC)
	add := func(rel string, data []byte, listed bool, headDate time.Time) {
		mtime = mtime.Add(37*time.Minute + 13*time.Second + 123_456_789)
		f := siteFile{rel: rel, data: data, mtime: mtime}
		if listed {
			f.url, f.lastmod = pageURL(rel), w3c(mtime)
			if !headDate.IsZero() {
				f.lastmod = w3c(headDate)
			}
		}
		site = append(site, f)
	}
	cet := time.FixedZone("CET", 3600)
	page := func(rel, title, extraHead string, listed bool, headDate time.Time) {
		var h strings.Builder
		fmt.Fprintf(&h, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
		fmt.Fprintf(&h, "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
		fmt.Fprintf(&h, "<title>%s | Example Corp</title>\n", html.EscapeString(title))
		fmt.Fprintf(&h, "<meta name=\"description\" content=\"%s, from Example Corp.\">\n", html.EscapeString(title))
		fmt.Fprintf(&h, "<link rel=\"canonical\" href=\"%s\">\n", html.EscapeString(pageURL(rel)))
		fmt.Fprintf(&h, "<meta property=\"og:title\" content=\"%s\">\n<meta property=\"og:url\" content=\"%s\">\n", html.EscapeString(title), html.EscapeString(pageURL(rel)))
		h.WriteString(extraHead)
		fmt.Fprintf(&h, "<link rel=\"stylesheet\" href=\"/assets/site.css\">\n<script src=\"/assets/app.js\" defer></script>\n</head>\n")
		fmt.Fprintf(&h, "<body>\n<nav><a href=\"/\">Home</a> <a href=\"/blog/\">Blog</a> <a href=\"/docs/\">Docs</a></nav>\n<main>\n<h1>%s</h1>\n", html.EscapeString(title))
		for i := range 3 + len(rel)%4 {
			fmt.Fprintf(&h, "<p>Paragraph %d of %s. Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>\n", i+1, html.EscapeString(rel))
		}
		h.WriteString("</main>\n<footer>© 2025 Example Corp</footer>\n</body>\n</html>\n")
		add(rel, []byte(h.String()), listed, headDate)
	}
	pdf := func(rel string) {
		add(rel, fmt.Appendf(nil, "%%PDF-1.4\n%%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Title (%s) >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%%%EOF\n", rel), true, time.Time{})
	}
	hreflang := func(en, de string) string {
		return fmt.Sprintf("<link rel=\"alternate\" hreflang=\"en\" href=\"%s\">\n<link rel=\"alternate\" hreflang=\"de\" href=\"%s\">\n", pageURL(en), pageURL(de))
	}

	add("robots.txt", []byte("User-agent: *\nDisallow: /private/\n\nSitemap: https://static.test/sitemap_index.xml\n"), false, time.Time{})
	add("assets/site.css", []byte("body { font-family: sans-serif; }\n"), false, time.Time{})
	add("assets/app.js", []byte("document.documentElement.classList.add('js');\n"), false, time.Time{})
	add("assets/logo.png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), false, time.Time{})
	page("index.html", "Example Corp", hreflang("index.html", "de/index.html"), true, time.Time{})
	page("about.html", "About us", hreflang("about.html", "de/about.html"), true, time.Time{})
	page("contact.html", "Contact", "", true, time.Time{})
	page("privacy policy.html", "Privacy policy", "", true, time.Time{})
	page("404.html", "Not found", "", false, time.Time{})
	page("de/index.html", "Example Corp (Deutsch)", hreflang("index.html", "de/index.html"), true, time.Time{})
	page("de/about.html", "Über uns", hreflang("about.html", "de/about.html"), true, time.Time{})
	page("private/drafts.html", "Drafts", "", false, time.Time{})
	page("private/roadmap.html", "Roadmap", "", false, time.Time{})

	page("blog/index.html", "Blog", "", true, time.Time{})
	for _, year := range []int{2023, 2024} {
		for i := range 36 {
			published := time.Date(year, 1, 1, 9, 30, 0, 0, cet).AddDate(0, 0, 10*i)
			modified := published.Add(72*time.Hour + time.Duration(i)*time.Hour + 17*time.Second)
			rel := fmt.Sprintf("blog/%d/%02d-notes-on-topic-%d.html", year, i+1, i)
			title := fmt.Sprintf("Notes on topic %d (%d)", i, year)
			head := fmt.Sprintf("<meta property=\"og:type\" content=\"article\">\n"+
				"<meta property=\"article:published_time\" content=\"%s\">\n"+
				"<meta property=\"article:modified_time\" content=\"%s\">\n"+
				"<script type=\"application/ld+json\">{\"@context\":\"https://schema.org\",\"@type\":\"BlogPosting\",\"headline\":%q,\"datePublished\":%q,\"dateModified\":%q}</script>\n",
				published.Format(time.RFC3339), modified.Format(time.RFC3339), title, published.Format(time.RFC3339), modified.Format(time.RFC3339))
			page(rel, title, head, true, modified)
		}
	}
	for _, tag := range []string{"go", "linux", "nginx", "seo", "sitemaps", "deploys", "c++", "q&a"} {
		page("blog/tags/"+tag+".html", "Posts tagged "+tag, "", true, time.Time{})
	}

	page("docs/index.html", "Documentation", "", true, time.Time{})
	for _, name := range []string{"getting-started", "install", "configure", "upgrade", "uninstall", "faq", "troubleshooting",
		"security", "performance", "logging", "metrics", "backups", "clustering", "tls", "proxies", "docker", "systemd",
		"kubernetes", "glossary", "release notes"} {
		page("docs/guide/"+name+".html", "Guide: "+name, "", true, time.Time{})
	}
	for i := range 15 {
		page(fmt.Sprintf("docs/api/v1/endpoint-%02d.html", i), fmt.Sprintf("API endpoint %d", i), "", true, time.Time{})
	}
	pdf("docs/manual.pdf")
	pdf("docs/api/reference.pdf")

	page("über uns/index.html", "Über uns", "", true, time.Time{})
	page("über uns/team & culture.html", "Team & culture", "", true, time.Time{})
	page("über uns/café menu.html", "Café menu", "", true, time.Time{})
	page("news and events/2024 recap.html", "2024 recap", "", true, time.Time{})
	page("news and events/日本語のお知らせ.html", "お知らせ", "", true, time.Time{})
	pdf("news and events/résumé.pdf")
	return site
}

type fileStat struct {
	mtime time.Time
	ino   uint64
	size  int64
}

// stats stats every file of the site under root.
func stats(t *testing.T, root string, site []siteFile) map[string]fileStat {
	t.Helper()
	out := map[string]fileStat{}
	for _, f := range site {
		fi, err := os.Stat(filepath.Join(root, f.rel))
		if err != nil {
			t.Fatal(err)
		}
		out[f.rel] = fileStat{fi.ModTime(), fi.Sys().(*syscall.Stat_t).Ino, fi.Size()}
	}
	return out
}

// output is one file sitemapd wrote, as the filesystem shows it.
type output struct {
	data  []byte
	mtime time.Time
	ino   uint64
}

// outputs returns sitemapd's files under root by path: sitemaps, indexes
// and the IndexNow key file.
func outputs(t *testing.T, root string) map[string]output {
	t.Helper()
	out := map[string]output{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() || !(strings.HasPrefix(name, "sitemap") && strings.HasSuffix(name, ".xml") || name == "0123456789abcdef.txt") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fi, err := os.Stat(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		out[filepath.ToSlash(rel)] = output{data, fi.ModTime(), fi.Sys().(*syscall.Stat_t).Ino}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("no sitemap under " + root)
	}
	return out
}

// compareOutputs reports every output file, but those in except, that
// appeared, vanished, or was written again (other bytes, another inode or
// another mtime) between before and after.
func compareOutputs(t *testing.T, what string, before, after map[string]output, except map[string]bool) {
	t.Helper()
	for _, rel := range slices.Sorted(maps.Keys(before)) {
		if except[rel] {
			continue
		}
		b, a := before[rel], after[rel]
		_, ok := after[rel]
		switch {
		case !ok:
			t.Errorf("%s: %s was removed", what, rel)
		case !bytes.Equal(a.data, b.data):
			t.Errorf("%s: %s was rewritten with other bytes:\n%s", what, rel, diffLines(b.data, a.data))
		case a.ino != b.ino || !a.mtime.Equal(b.mtime):
			t.Errorf("%s: %s was written again with the same bytes (inode %d -> %d, mtime %s -> %s)", what, rel, b.ino, a.ino,
				b.mtime.Format(time.RFC3339Nano), a.mtime.Format(time.RFC3339Nano))
		}
	}
	for rel := range after {
		if _, ok := before[rel]; !ok && !except[rel] {
			t.Errorf("%s: %s appeared", what, rel)
		}
	}
}

// compareIndex reports an index entry, but that of the sitemap changed,
// that differs between the outputs before and after, and a changed entry
// whose date is not its sitemap file's mtime.
func compareIndex(t *testing.T, root string, before, after map[string]output, changed string) {
	t.Helper()
	b, a := readIndexFrom(before), readIndexFrom(after)
	loc := base + "/" + changed
	want := maps.Clone(b)
	fi, err := os.Stat(filepath.Join(root, changed))
	if err != nil {
		t.Fatal(err)
	}
	want[loc] = w3c(fi.ModTime())
	if !maps.Equal(a, want) {
		t.Errorf("the index lists\n%s\nwant\n%s", fmtMap(a), fmtMap(want))
	}
}

// urlset is a sitemap as encoding/xml reads it.
type urlset struct {
	XMLName xml.Name `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 urlset"`
	URLs    []struct {
		Loc     string  `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 loc"`
		LastMod *string `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 lastmod"`
	} `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 url"`
}

type sitemapIndex struct {
	XMLName  xml.Name `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 sitemapindex"`
	Sitemaps []struct {
		Loc     string `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 loc"`
		LastMod string `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 lastmod"`
	} `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 sitemap"`
}

// readURLSet returns a sitemap's URLs with their lastmod ("" for none);
// nothing for a sitemap that is not there.
func readURLSet(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var s urlset
	if err := xml.Unmarshal(data, &s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := map[string]string{}
	for _, u := range s.URLs {
		if _, dup := out[u.Loc]; dup {
			t.Errorf("%s lists %s twice", path, u.Loc)
		}
		out[u.Loc] = ""
		if u.LastMod != nil {
			out[u.Loc] = *u.LastMod
		}
	}
	return out
}

// sitemapLastmods reads every sitemap the root index lists and returns
// all their URLs with their lastmod.
func sitemapLastmods(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for loc := range readIndex(t, root) {
		rel, ok := strings.CutPrefix(loc, base+"/")
		if !ok {
			t.Fatalf("the index lists %s, not under %s", loc, base)
		}
		rel, err := url.PathUnescape(rel)
		if err != nil {
			t.Fatalf("the index lists %s: %v", loc, err)
		}
		urls := readURLSet(t, filepath.Join(root, filepath.FromSlash(rel)))
		if urls == nil {
			t.Errorf("the index lists %s, which is not there", loc)
		}
		for u, lm := range urls {
			if _, dup := out[u]; dup {
				t.Errorf("%s is listed in two sitemaps", u)
			}
			out[u] = lm
		}
	}
	return out
}

func readIndex(t *testing.T, root string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "sitemap_index.xml"))
	if err != nil {
		t.Fatal(err)
	}
	return parseIndex(t, data)
}

func readIndexFrom(outs map[string]output) map[string]string {
	return parseIndex(nil, outs["sitemap_index.xml"].data)
}

func parseIndex(t *testing.T, data []byte) map[string]string {
	var idx sitemapIndex
	if err := xml.Unmarshal(data, &idx); err != nil {
		if t != nil {
			t.Fatalf("sitemap_index.xml: %v", err)
		}
		return nil
	}
	out := map[string]string{}
	for _, s := range idx.Sitemaps {
		out[s.Loc] = s.LastMod
	}
	return out
}

// diffLines shows the first few lines that differ between two files.
func diffLines(before, after []byte) string {
	b, a := strings.Split(string(before), "\n"), strings.Split(string(after), "\n")
	var out strings.Builder
	shown := 0
	for i := range max(len(a), len(b)) {
		var x, y string
		if i < len(b) {
			x = b[i]
		}
		if i < len(a) {
			y = a[i]
		}
		if x != y && shown < 3 {
			fmt.Fprintf(&out, "\tline %d: %s\n\t     now: %s\n", i+1, x, y)
			shown++
		}
	}
	return out.String()
}

func sortedSet(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

// diffMap lists the keys where got and want differ, with both values
// (absent: -).
func diffMap(got, want map[string]string) string {
	var b strings.Builder
	keys := slices.Sorted(maps.Keys(maps.Collect(func(yield func(string, bool) bool) {
		for k := range got {
			yield(k, true)
		}
		for k := range want {
			yield(k, true)
		}
	})))
	show := func(m map[string]string, k string) string {
		if v, ok := m[k]; ok {
			return fmt.Sprintf("%q", v)
		}
		return "-"
	}
	for _, k := range slices.Compact(keys) {
		if g, w := show(got, k), show(want, k); g != w {
			fmt.Fprintf(&b, "\t%s %s, want %s\n", k, g, w)
		}
	}
	return b.String()
}

func fmtMap(m map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(&b, "\t%s %q\n", k, m[k])
	}
	return b.String()
}
