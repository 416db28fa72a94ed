package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// strangeNames are directory and file name parts: every character RFC 3986
// allows as itself in a path segment beyond letters and digits (pchar:
// unreserved, sub-delims, ':' and '@'), and characters it does not allow
// there (gen-delims, space, '%', the unsafe ASCII ones, non-ASCII, and a
// name that looks percent-encoded already).
var strangeNames = []string{
	"a(b)",
	"-._~x", // not ending in ~: a name like an editor backup is never listed
	"!$&'()*+,;=",
	":@",
	"sp ace",
	"per%cent",
	"%41",
	"hash#q?",
	"br[ack]ets",
	`quo"te<>`,
	"back\\slash^`",
	"{pi|pe}",
	"caf\u00e9",
	"\u65e5\u672c",
	"\U0001F389",
}

// TestCheckAcceptsOwnOutputStrangeNames builds a tree of such names and
// checks that `sitemapd check -config` accepts every sitemap, text sitemap
// and index it wrote (their <loc>s are at or below the URL each file is
// served at), and that every URL they list reaches its file through an
// independent URL decoder, Go's net/http file server, as do the index URLs
// `sitemapd ping -now` would send.
func TestCheckAcceptsOwnOutputStrangeNames(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "site")
	var pages []string
	for _, d := range strangeNames {
		for _, f := range strangeNames {
			pages = append(pages, filepath.Join(d, f+".html"), filepath.Join(d, "sub "+d, f+".html"))
		}
		pages = append(pages, filepath.Join(d, "index.html"))
	}
	for _, p := range append(pages, "index.html") {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte("<title>"+p+"</title>"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(root)))
	defer srv.Close()
	cfg := filepath.Join(dir, "sitemapd.yaml")
	body := "root: site\nbase_url: " + srv.URL + "/\ndepth: 2\nformats: [xml, txt]\nindex_name: \"site map (all).xml\"\n" +
		"state_dir: state\nlog: {format: json}\n" +
		"notify: {endpoints: [{name: p, kind: ping, url: \"http://127.0.0.1:1/ping?sitemap={sitemap}\"}]}\n"
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(dir, "state"), 0o755)
	if code, _, stderr := runCLI("build", "-config", cfg); code != ExitOK {
		t.Fatalf("build: exit %d: %s", code, stderr)
	}

	var outputs []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasPrefix(d.Name(), "sitemap") || strings.HasPrefix(d.Name(), "site map")) {
			outputs = append(outputs, p)
		}
		return nil
	})
	// An XML and a text sitemap for each directory and its "sub" folded
	// at depth 2, and for the root, and the index.
	if want := 4*len(strangeNames) + 3; len(outputs) != want {
		t.Fatalf("%d outputs written, want %d: %q", len(outputs), want, outputs)
	}
	code, out, stderr := runCLI(append([]string{"check", "-config", cfg}, outputs...)...)
	if code != ExitOK || strings.Count(out, ": ok, a ") != len(outputs) {
		t.Errorf("check of sitemapd's own output: exit %d:\n%s%s", code, out, stderr)
	}

	// Every URL listed is served: the file server decodes it back to the
	// file's own name.
	fetch := func(u string) []byte {
		t.Helper()
		resp, err := http.Get(u)
		if err != nil {
			t.Errorf("GET %s: %v", u, err)
			return nil
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %s", u, resp.Status)
		}
		return b
	}
	listed := 0
	for _, p := range outputs {
		if !strings.HasSuffix(p, ".xml") {
			continue
		}
		b, _ := os.ReadFile(p)
		var doc struct {
			Locs []string `xml:"url>loc"`
			Maps []string `xml:"sitemap>loc"`
		}
		if err := xml.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, u := range doc.Locs {
			listed++
			if !bytes.HasPrefix(fetch(u), []byte("<title>")) {
				t.Errorf("%s: %s does not serve a page", p, u)
			}
		}
		for _, u := range doc.Maps {
			if !bytes.Contains(fetch(u), []byte("<urlset")) {
				t.Errorf("%s: %s does not serve a sitemap", p, u)
			}
		}
	}
	if listed != len(pages)+1 {
		t.Errorf("%d URLs listed, want %d", listed, len(pages)+1)
	}

	code, out, stderr = runCLI("ping", "-config", cfg, "-now", "-dry-run")
	if code != ExitOK || !strings.Contains(out, "sitemap=") {
		t.Fatalf("ping -now -dry-run: exit %d: %s%s", code, out, stderr)
	}
	_, indexURL, _ := strings.Cut(strings.TrimSpace(out), "?sitemap=")
	if u, err := url.QueryUnescape(indexURL); err != nil || !bytes.Contains(fetch(u), []byte("<sitemapindex")) {
		t.Errorf("ping -now names the index as %q (%v), which does not serve the index", indexURL, err)
	}
}
