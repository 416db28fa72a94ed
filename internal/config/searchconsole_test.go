package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sitemapd/sitemapd/internal/searchconsole/sctest"
)

// TestSearchConsoleEndpoint checks what a searchconsole endpoint must be:
// each problem named by key, with the file and its mode where they are
// the problem.
func TestSearchConsoleEndpoint(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "site"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, data string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil { // umask
			t.Fatal(err)
		}
		return p
	}
	key, _ := sctest.Key(t, "https://oauth2.googleapis.test/token")
	good := write("gsc.json", string(key), 0o600)
	write("ro.json", string(key), 0o400)
	write("group.json", string(key), 0o640)
	write("world.json", string(key), 0o604)
	write("oauth.json", `{"installed": {"client_id": "x"}}`, 0o600)
	write("junk.json", `not json`, 0o600)
	write("nopem.json", `{"type": "service_account", "client_email": "a@p.test", "private_key": "x", "token_uri": "https://t.test/"}`, 0o600)
	t.Setenv(CredentialsEnv, dir)

	cases := []struct {
		name, property, credentials string
		base                        string // base_url, https://www.shop.test/ if empty
		want                        []string
	}{
		{name: "domain", property: "sc-domain:shop.test", credentials: "gsc.json"},
		{name: "url prefix", property: "https://www.shop.test/", credentials: good},
		{name: "url prefix below", property: "https://www.shop.test/blog/", base: "https://www.shop.test/blog/", credentials: good},
		{name: "read-only key", property: "sc-domain:shop.test", credentials: "ro.json"},
		{name: "LoadCredential", property: "sc-domain:shop.test", credentials: "${CREDENTIALS_DIRECTORY}/gsc.json"},
		{name: "LoadCredential plain", property: "sc-domain:shop.test", credentials: "$CREDENTIALS_DIRECTORY/gsc.json"},
		{name: "group-readable", property: "sc-domain:shop.test", credentials: "group.json",
			want: []string{"notify.endpoints[0].credentials: " + filepath.Join(dir, "group.json") + " has mode 0640", "chmod 600"}},
		{name: "world-readable", property: "sc-domain:shop.test", credentials: "world.json",
			want: []string{filepath.Join(dir, "world.json") + " has mode 0604"}},
		{name: "missing key", property: "sc-domain:shop.test", credentials: "nowhere.json",
			want: []string{"credentials: " + filepath.Join(dir, "nowhere.json") + ": no such file"}},
		{name: "no key", property: "sc-domain:shop.test", want: []string{"credentials: is required"}},
		{name: "oauth client", property: "sc-domain:shop.test", credentials: "oauth.json", want: []string{"is not a service account's key"}},
		{name: "junk", property: "sc-domain:shop.test", credentials: "junk.json", want: []string{"is not a JSON key file"}},
		{name: "no PEM", property: "sc-domain:shop.test", credentials: "nopem.json", want: []string{"nopem.json: private_key is not PEM"}},
		{name: "no property", credentials: good, want: []string{"property: is required"}},
		{name: "domain with scheme", property: "sc-domain:https://shop.test", credentials: good, want: []string{"a Domain property is sc-domain:"}},
		{name: "domain upper case", property: "sc-domain:Shop.test", credentials: good, want: []string{"in lower case"}},
		{name: "prefix without slash", property: "https://www.shop.test", credentials: good, want: []string{"ends with '/'"}},
		{name: "prefix upper case", property: "https://WWW.shop.test/", credentials: good, want: []string{"in lower case"}},
		{name: "neither", property: "shop.test", credentials: good, want: []string{"neither sc-domain:HOST nor"}},
		{name: "other domain", property: "sc-domain:other.test", credentials: good, want: []string{`"sc-domain:other.test" does not hold base_url https://www.shop.test/`}},
		{name: "not a suffix", property: "sc-domain:hop.test", credentials: good, want: []string{"does not hold base_url"}},
		{name: "other scheme", property: "http://www.shop.test/", credentials: good, want: []string{"does not hold base_url"}},
		{name: "prefix below base_url", property: "https://www.shop.test/blog/", credentials: good, want: []string{"does not hold base_url"}},
		{name: "url and key", property: "sc-domain:shop.test", credentials: good + "\n    url: https://x.shop.test/\n    key: abcdefgh",
			want: []string{"url: is not used by searchconsole endpoints", "key: is only used by indexnow endpoints"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base := tc.base
			if base == "" {
				base = "https://www.shop.test/"
			}
			y := "root: site\nbase_url: " + base + "\nstate_dir: state\nnotify:\n  endpoints:\n  - name: google\n    kind: searchconsole\n" +
				"    property: \"" + tc.property + "\"\n    credentials: " + tc.credentials + "\n"
			c, err := Load([]byte(y), filepath.Join(dir, "sitemapd.yaml"))
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				if got := c.Notify.Endpoints[0].Credentials; !filepath.IsAbs(got) || !strings.HasPrefix(got, dir+"/") {
					t.Errorf("credentials %q: want an absolute path in %s", got, dir)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted; want %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nlacks %q", err, w)
				}
			}
			if !strings.HasPrefix(err.Error(), filepath.Join(dir, "sitemapd.yaml")+":") {
				t.Errorf("error %q does not name the file and line", err)
			}
		})
	}
}

// TestCredentialsDirectoryUnset: a path under LoadCredential='s directory
// outside the service says what is missing.
func TestCredentialsDirectoryUnset(t *testing.T) {
	t.Setenv(CredentialsEnv, "")
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "site"), 0o755)
	y := "root: site\nbase_url: https://www.shop.test/\nstate_dir: state\nnotify:\n  endpoints:\n" +
		"  - {name: google, kind: searchconsole, property: \"sc-domain:shop.test\", credentials: $CREDENTIALS_DIRECTORY/gsc.json}\n"
	_, err := Load([]byte(y), filepath.Join(dir, "sitemapd.yaml"))
	if err == nil || !strings.Contains(err.Error(), "$CREDENTIALS_DIRECTORY is not set") {
		t.Fatalf("got %v", err)
	}
}

// TestCovers: which URLs a property holds, as Search Console documents
// Domain and URL-prefix properties.
func TestCovers(t *testing.T) {
	cases := []struct {
		property, url string
		want          bool
	}{
		{"sc-domain:shop.test", "https://shop.test/sitemap_index.xml", true},
		{"sc-domain:shop.test", "http://www.shop.test:8080/sitemap_index.xml", true},
		{"sc-domain:shop.test", "https://WWW.Shop.Test/x.xml", true},
		{"sc-domain:shop.test", "https://myshop.test/x.xml", false},
		{"sc-domain:shop.test", "https://shop.test.evil.test/x.xml", false},
		{"https://www.shop.test/", "https://www.shop.test/sitemap_index.xml", true},
		{"https://www.shop.test/", "HTTPS://WWW.SHOP.TEST/sitemap_index.xml", true},
		{"https://www.shop.test/", "http://www.shop.test/sitemap_index.xml", false},
		{"https://www.shop.test/", "https://shop.test/sitemap_index.xml", false},
		{"https://www.shop.test/blog/", "https://www.shop.test/blog/sitemap.xml", true},
		{"https://www.shop.test/blog/", "https://www.shop.test/Blog/sitemap.xml", false},
		{"https://www.shop.test/blog/", "https://www.shop.test/sitemap.xml", false},
		{"", "https://www.shop.test/", false},
	}
	for _, tc := range cases {
		if got := (Endpoint{Kind: SearchConsole, Property: tc.property}).Covers(tc.url); got != tc.want {
			t.Errorf("%s covers %s: %v, want %v", tc.property, tc.url, got, tc.want)
		}
	}
}
