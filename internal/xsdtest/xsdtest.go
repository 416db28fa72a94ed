// Package xsdtest validates sitemaps in tests with xmllint against the
// official sitemaps.org sitemap.xsd, with the XHTML link element that
// hreflang alternates use declared as XHTML 1.0 Strict's schema declares it
// (xhtml-link.xsd, and xml-lang.xsd for its xml:lang, next to this file),
// and Google's image, video and news extensions by Google's own schemas
// (testdata/google, whose README says where they come from: the npm
// package ships sitemap.xsd only): the schemas Google validates a sitemap
// with alternates, images, videos and news against. Sitemap indexes are
// validated with sitemaps.org's siteindex.xsd (testdata/sitemaps.org).
//
// The schema is not committed: it is fetched once by package name from the
// npm registry ("npm pack sitemap", which ships schema/sitemap.xsd) into
// .cache/xsd at the top of the module, and reused from there. Where xmllint
// or npm is missing the tests that need them skip, except under CI (CI set
// in the environment), where they fail: CI installs both.
package xsdtest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	once    sync.Once
	xsdPath string
	xsdErr  string
)

func unavailable(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("sitemap validation unavailable in CI: %s", why)
	}
	t.Skipf("sitemap validation unavailable: %s", why)
}

// moduleRoot finds the directory holding go.mod above the working directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}

var (
	//go:embed xhtml-link.xsd
	xhtmlLink []byte
	//go:embed xml-lang.xsd
	xmlLang []byte
	//go:embed testdata/google/sitemap-image.xsd
	sitemapImage []byte
	//go:embed testdata/google/sitemap-video.xsd
	sitemapVideo []byte
	//go:embed testdata/google/sitemap-news.xsd
	sitemapNews []byte
	//go:embed testdata/sitemaps.org/siteindex.xsd
	siteIndex []byte
)

// sitemapsOrg declares the sitemaps.org namespace's elements: sitemap.xsd's
// (urlset) and siteindex.xsd's (sitemapindex), which share it (a schema
// imports a namespace once) and declare no name twice.
const sitemapsOrg = `<?xml version="1.0" encoding="UTF-8"?>
<schema targetNamespace="http://www.sitemaps.org/schemas/sitemap/0.9" elementFormDefault="qualified" xmlns="http://www.w3.org/2001/XMLSchema">
  <include schemaLocation="%s"/>
  <include schemaLocation="siteindex.xsd"/>
</schema>
`

// wrapper imports the schemas, as the "sitemap" npm package's all.xsd
// does for its extensions.
const wrapper = `<?xml version="1.0" encoding="UTF-8"?>
<schema elementFormDefault="qualified" xmlns="http://www.w3.org/2001/XMLSchema">
  <import namespace="http://www.sitemaps.org/schemas/sitemap/0.9" schemaLocation="sitemaps-org.xsd"/>
  <import namespace="http://www.w3.org/1999/xhtml" schemaLocation="xhtml-link.xsd"/>
  <import namespace="http://www.google.com/schemas/sitemap-image/1.1" schemaLocation="sitemap-image.xsd"/>
  <import namespace="http://www.google.com/schemas/sitemap-video/1.1" schemaLocation="sitemap-video.xsd"/>
  <import namespace="http://www.google.com/schemas/sitemap-news/0.9" schemaLocation="sitemap-news.xsd"/>
</schema>
`

// Schema returns the path of a schema for sitemaps and sitemap indexes
// (sitemap.xsd and siteindex.xsd, the XHTML link element and Google's
// image, video and news extensions), fetching sitemap.xsd on first use.
func Schema(t testing.TB) string {
	t.Helper()
	once.Do(func() {
		var sitemapXSD string
		if sitemapXSD, xsdErr = fetch(); xsdErr == "" {
			xsdPath, xsdErr = writeWrapper(sitemapXSD)
		}
	})
	if xsdErr != "" {
		unavailable(t, xsdErr)
	}
	return xsdPath
}

func fetch() (string, string) {
	if p := os.Getenv("SITEMAPD_XSD"); p != "" {
		return p, ""
	}
	root, err := moduleRoot()
	if err != nil {
		return "", "cannot find the module root: " + err.Error()
	}
	dir := filepath.Join(root, ".cache", "xsd")
	want := filepath.Join(dir, "sitemap.xsd")
	if _, err := os.Stat(want); err == nil {
		return want, ""
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return "", "npm not found (needed once to fetch sitemap.xsd from the npm package \"sitemap\")"
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err.Error()
	}
	tmp, err := os.MkdirTemp(dir, "pack-")
	if err != nil {
		return "", err.Error()
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command("npm", "pack", "sitemap", "--silent", "--pack-destination", tmp)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", "npm pack sitemap: " + err.Error() + ": " + string(out)
	}
	tgz := filepath.Join(tmp, strings.TrimSpace(lastLine(string(out))))
	xsd, err := extract(tgz, "package/schema/sitemap.xsd")
	if err != nil {
		return "", "extract sitemap.xsd: " + err.Error()
	}
	part := filepath.Join(tmp, "sitemap.xsd")
	if err := os.WriteFile(part, xsd, 0o644); err != nil {
		return "", err.Error()
	}
	// Rename so a concurrent test binary never reads half a file.
	if err := os.Rename(part, want); err != nil {
		return "", err.Error()
	}
	return want, ""
}

// writeWrapper writes the wrapper schemas, siteindex.xsd, xhtml-link.xsd, xml-lang.xsd
// and Google's schemas into a directory under the system's temp directory named
// for the user and for the files' contents, each file by rename, so that
// concurrent test binaries, of this version or another, never read a
// half-written or a different file.
func writeWrapper(sitemapXSD string) (string, string) {
	abs, err := filepath.Abs(sitemapXSD)
	if err != nil {
		return "", err.Error()
	}
	files := map[string][]byte{
		"xhtml-link.xsd":    xhtmlLink,
		"xml-lang.xsd":      xmlLang,
		"sitemap-image.xsd": sitemapImage,
		"sitemap-video.xsd": sitemapVideo,
		"sitemap-news.xsd":  sitemapNews,
		"siteindex.xsd":     siteIndex,
		"sitemaps-org.xsd":  fmt.Appendf(nil, sitemapsOrg, (&url.URL{Scheme: "file", Path: abs}).String()),
		"all.xsd":           []byte(wrapper),
	}
	sum := sha256.New()
	for _, name := range []string{"all.xsd", "sitemaps-org.xsd", "siteindex.xsd", "xhtml-link.xsd", "xml-lang.xsd", "sitemap-image.xsd", "sitemap-video.xsd", "sitemap-news.xsd"} {
		sum.Write(files[name])
	}
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("sitemapd-xsd-%d-%x", os.Getuid(), sum.Sum(nil)[:6]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err.Error()
	}
	all := filepath.Join(dir, "all.xsd")
	for name, b := range files {
		tmp, err := os.CreateTemp(dir, name+".*")
		if err != nil {
			return "", err.Error()
		}
		_, err = tmp.Write(b)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp.Name(), filepath.Join(dir, name))
		}
		if err != nil {
			os.Remove(tmp.Name())
			return "", err.Error()
		}
	}
	return all, ""
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func extract(tgz, name string) ([]byte, error) {
	f, err := os.Open(tgz)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err != nil {
			return nil, err
		}
		if h.Name == name {
			return io.ReadAll(tr)
		}
	}
}

// Validate runs xmllint --schema over the given sitemap files
// (plain or gzip) and fails the test with xmllint's output if any is invalid.
func Validate(t testing.TB, files ...string) {
	t.Helper()
	if len(files) == 0 {
		return
	}
	xsd := Schema(t)
	lookXmllint(t)
	// Batches keep the command line short on trees with many sitemaps.
	for len(files) > 0 {
		n := min(len(files), 200)
		args := append([]string{"--noout", "--nonet", "--schema", xsd}, files[:n]...)
		out, err := exec.Command("xmllint", args...).CombinedOutput()
		if err != nil {
			t.Fatalf("xmllint: %v\n%s", err, out)
		}
		files = files[n:]
	}
}

func lookXmllint(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("xmllint"); err != nil {
		unavailable(t, "xmllint not found (Debian package libxml2-utils)")
	}
}

// Verdict is what xmllint says of one file.
type Verdict struct {
	Valid bool
	// Output is xmllint's messages about the file (those that begin with
	// its name), one a line.
	Output string
}

// Verdicts runs xmllint --schema over the given files, as Validate does,
// and returns what it says of each, by file name, without failing the
// test: for tests whose expected answers are xmllint's. A file is valid
// when xmllint says it "validates"; one it cannot parse is not.
func Verdicts(t testing.TB, files ...string) map[string]Verdict {
	t.Helper()
	xsd := Schema(t)
	lookXmllint(t)
	verdicts := make(map[string]Verdict, len(files))
	for len(files) > 0 {
		n := min(len(files), 200)
		args := append([]string{"--noout", "--nonet", "--schema", xsd}, files[:n]...)
		// xmllint's exit status says whether any file failed; its output
		// says which.
		out, err := exec.Command("xmllint", args...).CombinedOutput()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) || exit != nil && exit.ExitCode() == 5 {
			t.Fatalf("xmllint: %v\n%s", err, out) // 5: the schema did not compile
		}
		lines := strings.Split(string(out), "\n")
		for _, f := range files[:n] {
			var v Verdict
			var msgs bytes.Buffer
			for _, l := range lines {
				switch {
				case l == f+" validates":
					v.Valid = true
				case strings.HasPrefix(l, f+":"):
					msgs.WriteString(l + "\n")
				}
			}
			v.Output = msgs.String()
			verdicts[f] = v
		}
		files = files[n:]
	}
	return verdicts
}
