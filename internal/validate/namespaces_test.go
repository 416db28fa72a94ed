package validate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sitemapd/sitemapd/internal/xsdtest"
)

// TestNamespaces: what check says of sitemaps and indexes using
// namespaces other than sitemaps.org's, Google's image, video and news
// extensions' and XHTML's (a PageMap, the mobile extension, typos, unused
// declarations): each reported with its file, line and namespace, as an
// error, or, for a declaration nothing uses, a warning
// (testdata/namespaces.golden, refreshed with -update).
func TestNamespaces(t *testing.T) {
	files, _ := filepath.Glob("testdata/namespaces/*.xml")
	if len(files) == 0 {
		t.Fatal("no testdata/namespaces")
	}
	var out strings.Builder
	for _, f := range files {
		res := check(t, f, "")
		if len(res.Problems) == 0 {
			fmt.Fprintf(&out, "%-8s %s: ok\n", "", filepath.Base(f))
		}
		for _, p := range res.Problems {
			kind := "protocol"
			switch {
			case p.Warning:
				kind = "warning"
			case p.Schema:
				kind = "schema"
			}
			fmt.Fprintf(&out, "%-8s %s\n", kind, p)
		}
		// Every namespace the file declares that is none of those
		// Google reads is named, on the line of its first use, or of
		// its declaration if it has none.
		data, _ := os.ReadFile(f)
		for _, ns := range declaredNamespaces(string(data)) {
			if _, known := knownNamespaces[ns]; known {
				continue
			}
			named := false
			for _, p := range res.Problems {
				named = named || strings.Contains(p.Msg, fmt.Sprintf("%q", ns)) && p.Line > 0
			}
			if !named {
				t.Errorf("%s: namespace %q is not reported", f, ns)
			}
		}
	}
	golden := "testdata/namespaces.golden"
	if *update {
		os.WriteFile(golden, []byte(out.String()), 0o644)
	}
	want, _ := os.ReadFile(golden)
	if out.String() != string(want) {
		t.Errorf("problems found:\n%s\nwant (%s):\n%s", out.String(), golden, want)
	}
}

// declaredNamespaces are the namespace URIs a document's xmlns attributes
// name.
func declaredNamespaces(doc string) []string {
	var nss []string
	for _, part := range strings.Split(doc, "xmlns")[1:] {
		_, rest, ok := strings.Cut(part, `="`)
		if !ok {
			continue
		}
		ns, _, _ := strings.Cut(rest, `"`)
		nss = append(nss, ns)
	}
	return nss
}

// TestNamespacesAgainstXmllint: check finds a schema problem in exactly
// the files xmllint rejects with sitemap.xsd, siteindex.xsd, XHTML's link
// and Google's image, video and news schemas; a warning never fails a
// file xmllint takes, nor makes one it rejects pass.
func TestNamespacesAgainstXmllint(t *testing.T) {
	files, _ := filepath.Glob("testdata/namespaces/*.xml")
	verdicts := xsdtest.Verdicts(t, files...)
	for _, f := range files {
		res := check(t, f, "")
		agree(t, filepath.Base(f), res, verdicts[f])
		for _, p := range res.Problems {
			if p.Warning && p.Schema {
				t.Errorf("%s: %s is both a warning and a schema error", f, p)
			}
		}
	}
}
