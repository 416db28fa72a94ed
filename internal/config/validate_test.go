package config

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/validate.golden")

// validateCases are configurations that between them reach every message
// validate gives, each after a minimal valid root and base_url (which a
// case may override: the later key wins as a second key would not, so a
// case that sets either sets both).
var validateCases = []struct{ name, yaml string }{
	{"name", "name: \"-bad\"\n"},
	{"root missing", "root: \"\"\nbase_url: https://www.sitemapd.test/\n"},
	{"root absent dir", "root: nowhere\nbase_url: https://www.sitemapd.test/\n"},
	{"root a file", "root: full.good.yml\nbase_url: https://www.sitemapd.test/\n"},
	{"base_url missing", "root: site\nbase_url: \"\"\n"},
	{"base_url not a URL", "root: site\nbase_url: \"http://[::1\"\n"},
	{"base_url scheme", "root: site\nbase_url: ftp://www.sitemapd.test/\n"},
	{"base_url no host", "root: site\nbase_url: \"https:///x\"\n"},
	{"base_url user", "root: site\nbase_url: https://user@www.sitemapd.test/\n"},
	{"base_url query", "root: site\nbase_url: https://www.sitemapd.test/?a=1\n"},
	{"base_url empty query", "root: site\nbase_url: https://www.sitemapd.test/?\n"},
	{"base_url fragment", "root: site\nbase_url: https://www.sitemapd.test/#top\n"},
	{"base_url placeholder", "root: site\nbase_url: https://Docs.Example.com/\n"},
	{"base_url canonical", "root: site\nbase_url: HTTPS://WWW.Sitemapd.TEST/Docs/a%20b\nrobots_txt: false\n"},
	{"robots_txt below root", "root: site\nbase_url: https://www.sitemapd.test/docs\nrobots_txt: true\n"},
	{"robots_agent", "root: site\nbase_url: https://www.sitemapd.test/\npages: {robots_agent: \"Googlebot/2.1\"}\n"},
	{"stylesheet", "root: site\nbase_url: https://www.sitemapd.test/\nstylesheet: sitemap.xsl\n"},
	{"stylesheet ok", "root: site\nbase_url: https://www.sitemapd.test/\nstylesheet: https://cdn.sitemapd.test/s.xsl\n"},
	{"output_dir absent", "root: site\nbase_url: https://www.sitemapd.test/\noutput_dir: nowhere\n"},
	{"output_dir a file", "root: site\nbase_url: https://www.sitemapd.test/\noutput_dir: full.good.yml\n"},
	{"output_dir", "root: site\nbase_url: https://www.sitemapd.test/\noutput_dir: other\n"},
	{"depth and part_size", "root: site\nbase_url: https://www.sitemapd.test/\ndepth: 33\npart_size: 50001\n"},
	{"output names", "root: site\nbase_url: https://www.sitemapd.test/\nsitemap_name: a/b.xml\nindex_name: \"\"\n"},
	{"names clash", "root: site\nbase_url: https://www.sitemapd.test/\nsitemap_name: map.xml\nindex_name: map-2.xml\n"},
	{"feed", "root: site\nbase_url: https://www.sitemapd.test/\nfeed: {name: x.xml, entries: 0}\n"},
	{"formats", "root: site\nbase_url: https://www.sitemapd.test/\nformats: [txt, html]\n"},
	{"news without a name", "root: site\nbase_url: https://www.sitemapd.test/\nnews: {publication: {language: en}, paths: [/news/**]}\n"},
	{"news values", "root: site\nbase_url: https://www.sitemapd.test/\nindex_name: sitemap-news.xml\nextra_sitemaps: [https://www.sitemapd.test/sitemap-news-2.xml]\nnews:\n" +
		"  publication: {name: \" The Daily \", language: EN}\n" +
		"  paths: [\"/news/[\"]\n" +
		"  publications: [{match: \"\", name: \"\", language: de}, {match: \"/zh/[\", name: Zh, language: zh-hk}]\n"},
	{"news ok", "root: site\nbase_url: https://www.sitemapd.test/\nextra_sitemaps: [https://www.sitemapd.test/news-sitemap.xml]\nnews:\n" +
		"  publication: {name: The Daily Test, language: en}\n" +
		"  paths: [/news/**, \"*.html\"]\n" +
		"  publications: [{match: \"/de/**\", name: Der Test, language: de}, {match: /zh/**, name: Test, language: zh-tw}]\n"},
	{"text names a key file", "root: site\nbase_url: https://www.sitemapd.test/\nsitemap_name: abcdefgh.xml\nformats: [xml, txt]\n" +
		"notify: {endpoints: [{name: in, kind: indexnow, url: https://in.sitemapd.test/indexnow, key: abcdefgh}]}\n"},
	{"file_mode not octal", "root: site\nbase_url: https://www.sitemapd.test/\nfile_mode: \"rw\"\n"},
	{"file_mode too big", "root: site\nbase_url: https://www.sitemapd.test/\nfile_mode: \"01644\"\n"},
	{"file_mode world-writable", "root: site\nbase_url: https://www.sitemapd.test/\nfile_mode: \"0o646\"\n"},
	{"file_mode unreadable", "root: site\nbase_url: https://www.sitemapd.test/\nfile_mode: \"0244\"\n"},
	{"file_mode ok", "root: site\nbase_url: https://www.sitemapd.test/\nfile_mode: \"0o600\"\n"},
	{"content selectors", "root: site\nbase_url: https://www.sitemapd.test/\npages:\n" +
		"  main: \"div main\"\n" +
		"  template: [\".footer\", \"\", \"nav > a\", \"[role=navigation]\"]\n"},
	{"content selectors ok", "root: site\nbase_url: https://www.sitemapd.test/\npages: {lastmod: content, main: \"article.post\", template: [\"#sidebar\", \"[role=main]\"]}\n"},
	{"no extensions", "root: site\nbase_url: https://www.sitemapd.test/\npages: {extensions: []}\n"},
	{"pages lists", "root: site\nbase_url: https://www.sitemapd.test/\npages:\n" +
		"  extensions: [html, \".a/b\", \".\", \".md\"]\n" +
		"  index_files: [\"\", a/b, \".\", \"..\", index.md]\n" +
		"  exclude: [\"[\", \"/ok/**\"]\n" +
		"  lastmod: sometimes\n" +
		"  image_hosts: [CDN.Sitemapd.TEST, \"a b\", \"\"]\n" +
		"  error_pages: [\"x[\"]\n" +
		"  ignore_names: [\"a/b\", \"[\", \"*.bak\"]\n"},
	{"lastmod mtime", "root: site\nbase_url: https://www.sitemapd.test/\npages: {lastmod: mtime, image_hosts: [\"IMG.sitemapd.test:8443\"]}\n"},
	{"rules", "root: site\nbase_url: https://www.sitemapd.test/\npages:\n  rules:\n" +
		"    - {priority: -0.5}\n    - {match: \"[\", changefreq: often}\n    - {match: /a/**, priority: 0.5, changefreq: daily}\n"},
	{"watch", "root: site\nbase_url: https://www.sitemapd.test/\nwatch: {settle: 0s, max_delay: -1s, rescan: -1s}\n"},
	{"notify values", "root: site\nbase_url: https://www.sitemapd.test/\nnotify: {schedule: \"\", timeout: 0s, attempts: 0, max_backoff: -1s}\n"},
	{"notify endpoints", "root: site\nbase_url: https://www.sitemapd.test/\nnotify:\n  endpoints:\n" +
		"    - {kind: indexnow, url: https://in.sitemapd.test/indexnow, key: abcdefgh}\n" +
		"    - {name: a, kind: indexnow, url: \"ftp://in.sitemapd.test/?key=SECRET\", key: short}\n" +
		"    - {name: a, kind: ping, url: \"https://p.sitemapd.test/ping?token=SECRET\", key: abcdefgh}\n" +
		"    - {name: b, kind: smoke, url: \"https://p.sitemapd.test/?s={sitemap}\"}\n"},
	{"state_dir required", "root: site\nbase_url: https://www.sitemapd.test/\nstate_dir: \"\"\n" +
		"notify: {endpoints: [{name: p, kind: ping, url: \"https://p.sitemapd.test/?s={sitemap}\"}]}\n"},
	{"state_dir relative", "root: site\nbase_url: https://www.sitemapd.test/\nstate_dir: state\n"},
	{"extras with a bad base_url", "root: site\nbase_url: ftp://www.sitemapd.test/\nextra_sitemaps: [https://www.sitemapd.test/a.xml]\n"},
	{"extra_urls", "root: site\nbase_url: https://www.sitemapd.test/\nextra_urls: [\"\", \"site/\", a.urls, other/a.txt, nowhere/b.urls, full.good.yml/c.urls, sitemap_index]\nsitemap_name: sitemap.xml\nindex_name: sitemap-urls-sitemap_index.xml\n"},
	{"process keys", "root: site\nbase_url: https://www.sitemapd.test/\nlog: {level: all, format: text}\nlisten: localhost\n"},
}

// TestValidateGolden pins every message validate gives, whole and in
// order, and the values it normalises, against testdata/validate.golden.
func TestValidateGolden(t *testing.T) {
	t.Setenv("STATE_DIRECTORY", "/var/lib/sitemapd")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, tc := range validateCases {
		fmt.Fprintf(&b, "== %s\n", tc.name)
		c, err := Load([]byte(tc.yaml), filepath.Join(dir, "x.yml"))
		if err != nil {
			fmt.Fprintf(&b, "%s\n", err)
			continue
		}
		fmt.Fprintf(&b, "root %s\nbase_url %s\noutput_dir %s\nstate_dir %s\nmode %v\nlastmod %d\nimage_hosts %q\nextra_urls %q\n",
			c.Root, c.BaseURL, c.OutputDir, c.StateDir, c.Mode, c.Pages.LastModFrom, c.Pages.ImageHosts, c.ExtraURLs)
	}
	files, _ := filepath.Glob("testdata/*.bad.yml")
	for _, f := range files {
		fmt.Fprintf(&b, "== %s\n", filepath.Base(f))
		_, err := LoadFile(f)
		fmt.Fprintf(&b, "%v\n", err)
	}
	multi, _ := filepath.Glob("testdata/multi/*.yml")
	for _, f := range multi {
		fmt.Fprintf(&b, "== multi/%s\n", filepath.Base(f))
		p, err := LoadProcessFile(f)
		if err != nil {
			fmt.Fprintf(&b, "%v\n", err)
			continue
		}
		fmt.Fprintf(&b, "state_dir %s\ninclude %q\n", p.StateDir, p.Include)
		for _, s := range p.Sites {
			fmt.Fprintf(&b, "site %s: root %s, state_dir %s\n", s.Name, s.Root, s.StateDir)
		}
		for _, s := range p.Failed {
			fmt.Fprintf(&b, "failed %s\n", s)
		}
	}
	for _, y := range []string{
		"state_dir: \"\"\nlog: {level: all}\nlisten: x\ninclude: [\"[\", \"\"]\nsites: {a: 1}\n",
		"include: [nowhere/*.yaml]\nsites:\n  - name: a\n    root: site\n    base_url: https://a.sitemapd.test/\n",
		"sites:\n  - name: a\n    root: site\n    base_url: https://a.sitemapd.test/\n  - name: b\n    root: site\n    output_dir: other\n    base_url: https://b.sitemapd.test/\n  - 7\n",
	} {
		fmt.Fprintf(&b, "== process %q\n", y)
		p, err := LoadProcess([]byte(y), filepath.Join(dir, "p.yml"))
		if err != nil {
			fmt.Fprintf(&b, "%v\n", err)
			continue
		}
		for _, s := range p.Sites {
			fmt.Fprintf(&b, "site %s: root %s, output_dir %s, state_dir %s\n", s.Name, s.Root, s.OutputDir, s.StateDir)
		}
		for _, s := range p.Failed {
			fmt.Fprintf(&b, "failed %s\n", s)
		}
	}
	got := strings.ReplaceAll(b.String(), dir, "TESTDATA")
	if strings.Contains(got, "SECRET") {
		t.Errorf("a message shows a secret")
	}
	const golden = "testdata/validate.golden"
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("validate's messages or values changed (go test -update to accept):\n%s", diffLines(string(want), got))
	}
}

// diffLines lists the lines of want and got that differ, by position.
func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n- %s\n+ %s\n", i+1, wl, gl)
		}
	}
	return b.String()
}

// TestCanonicalBaseURL: base_url's canonical form, and that a value it
// refuses is quoted as written.
func TestCanonicalBaseURL(t *testing.T) {
	for _, tc := range []struct{ raw, canon, path, err string }{
		{"https://www.sitemapd.test", "https://www.sitemapd.test/", "/", ""},
		{"HTTP://WWW.Sitemapd.Test:8080/Docs", "http://www.sitemapd.test:8080/Docs/", "/Docs/", ""},
		{"https://www.sitemapd.test/a b/", "https://www.sitemapd.test/a%20b/", "/a%20b/", ""},
		{"https://www.sitemapd.test/a%2Fb", "https://www.sitemapd.test/a%2Fb/", "/a%2Fb/", ""},
		{"", "", "", "is required: the URL the document root is served at (your site's own, http or https)"},
		{"www.sitemapd.test", "", "", `"www.sitemapd.test" must start with http:// or https://`},
		{"https://www.sitemapd.test/#", "https://www.sitemapd.test/", "/", ""}, // an empty fragment is none to url.Parse
		{"https://docs.example.org/", "", "", `"https://docs.example.org/" is the example's placeholder: set the site's own URL`},
	} {
		canon, p, err := canonicalBaseURL(tc.raw)
		if got := fmt.Sprint(err); (tc.err == "" && err != nil) || (tc.err != "" && got != tc.err) {
			t.Errorf("%q: err %v, want %q", tc.raw, err, tc.err)
		}
		if canon != tc.canon || p != tc.path {
			t.Errorf("%q: %q, %q; want %q, %q", tc.raw, canon, p, tc.canon, tc.path)
		}
		if err == nil {
			if again, _, err := canonicalBaseURL(canon); err != nil || again != canon {
				t.Errorf("%q: canonical form %q is not its own (%q, %v)", tc.raw, canon, again, err)
			}
		}
	}
}

func TestParseFileMode(t *testing.T) {
	for _, tc := range []struct {
		s    string
		mode os.FileMode
		err  string
	}{
		{"0644", 0o644, ""},
		{"0o600", 0o600, ""},
		{"400", 0o400, ""},
		{"0777", 0, `"0777" makes files world-writable`},
		{"0044", 0, `"0044" leaves files unreadable by their owner`},
		{"0800", 0, `"0800" is not an octal permission such as "0644" (owner, group, others; 4 read, 2 write)`},
		{"01000", 0, `"01000" is not an octal permission such as "0644" (owner, group, others; 4 read, 2 write)`},
		{"", 0, `"" is not an octal permission such as "0644" (owner, group, others; 4 read, 2 write)`},
	} {
		m, err := parseFileMode(tc.s)
		if m != tc.mode || (err == nil) != (tc.err == "") || (err != nil && err.Error() != tc.err) {
			t.Errorf("%q: %v, %v; want %v, %q", tc.s, m, err, tc.mode, tc.err)
		}
	}
}

// TestNormalize: normalize rewrites what it can read and leaves what it
// cannot as written, for the validators to quote.
func TestNormalize(t *testing.T) {
	dir := t.TempDir()
	c := Default()
	c.File = filepath.Join(dir, "site.yml")
	c.Root, c.OutputDir, c.StateDir = "www", "", "/abs/state"
	c.BaseURL = "HTTPS://WWW.Sitemapd.TEST"
	c.ExtraURLs = []string{"a.urls", "", "d/", "/abs/b.urls"}
	c.FileMode = "0o640"
	c.Pages.LastMod = "mtime"
	c.Pages.ImageHosts = []string{"CDN.Sitemapd.TEST", "Bad Host"}
	c.normalize()
	want := []struct{ name, got, want string }{
		{"root", c.Root, filepath.Join(dir, "www")},
		{"output_dir", c.OutputDir, ""},
		{"state_dir", c.StateDir, "/abs/state"},
		{"base_url", c.BaseURL, "https://www.sitemapd.test/"},
		{"extra_urls", fmt.Sprintf("%q", c.ExtraURLs), fmt.Sprintf("%q", []string{filepath.Join(dir, "a.urls"), "", "d/", "/abs/b.urls"})},
		{"mode", c.Mode.String(), os.FileMode(0o640).String()},
		{"lastmod", fmt.Sprint(c.Pages.LastModFrom), fmt.Sprint(LastModMTime)},
		{"image_hosts", fmt.Sprintf("%q", c.Pages.ImageHosts), `["cdn.sitemapd.test" "Bad Host"]`},
	}
	for _, w := range want {
		if w.got != w.want {
			t.Errorf("%s = %s, want %s", w.name, w.got, w.want)
		}
	}
	bad := Default()
	bad.BaseURL, bad.FileMode, bad.Pages.LastMod = "ftp://WWW.Sitemapd.TEST", "0777", "never"
	bad.normalize()
	if bad.BaseURL != "ftp://WWW.Sitemapd.TEST" || bad.Mode != 0 || bad.Pages.LastModFrom != LastModContent {
		t.Errorf("values normalize cannot read were rewritten: %q, %v, %v", bad.BaseURL, bad.Mode, bad.Pages.LastModFrom)
	}
}

// TestValidators runs each validator alone: it reports the keys of its
// own section and no other.
func TestValidators(t *testing.T) {
	for _, tc := range []struct {
		name  string
		set   func(*Config)
		check func(*Config, badFunc)
		keys  []string
	}{
		{"site", func(c *Config) { c.Name, c.Stylesheet, c.RobotsTxt = "_x", "x.xsl", true },
			func(c *Config, bad badFunc) { c.checkSite("https://www.sitemapd.test/docs", bad) },
			[]string{"name", "root", "robots_txt", "stylesheet"}},
		{"output", func(c *Config) { c.Depth, c.PartSize, c.IndexName, c.Feed.Entries = -1, -1, "sitemap-2.xml", 0 },
			(*Config).checkOutput, []string{"depth", "part_size", "index_name", "feed.entries"}},
		{"formats", func(c *Config) { c.Formats, c.SitemapName = []string{"txt"}, "robots.xml" },
			(*Config).checkFormats, []string{"formats", "formats"}},
		{"formats without text", func(c *Config) { c.SitemapName = "robots.xml" }, (*Config).checkFormats, nil},
		{"file_mode", func(c *Config) { c.FileMode = "0" }, (*Config).checkFileMode, []string{"file_mode"}},
		{"pages", func(c *Config) {
			c.Pages.Extensions, c.Pages.Exclude, c.Pages.ErrorPages = nil, []string{"["}, []string{"a", "]["}
		}, (*Config).checkPages, []string{"pages.extensions", "pages.exclude[0]", "pages.error_pages[1]"}},
		{"rules", func(c *Config) { c.Pages.Rules = []Rule{{Match: "/a"}, {ChangeFreq: "often"}} },
			(*Config).checkRules, []string{"pages.rules[1].match", "pages.rules[1].changefreq"}},
		{"watch", func(c *Config) { c.Watch.MaxDelay = time.Millisecond }, (*Config).checkWatch, []string{"watch.max_delay"}},
		{"watch zero rescan", func(c *Config) { c.Watch.Rescan = 0 }, (*Config).checkWatch, nil},
		{"notify", func(c *Config) {
			c.Notify.Attempts = 0
			c.Notify.Endpoints = []Endpoint{{Name: "a", Kind: Ping, URL: "https://p.sitemapd.test/{sitemap}"}, {Name: "a", Kind: IndexNow, URL: "https://i.sitemapd.test/", Key: "0123456789"}}
		}, (*Config).checkNotify, []string{"notify.attempts", "notify.endpoints[1].name"}},
		{"extra_sitemaps", func(c *Config) {
			c.ExtraSitemaps = []string{"https://www.sitemapd.test/a.xml", "https://www.sitemapd.test/a.xml"}
		},
			(*Config).checkExtraSitemaps, []string{"extra_sitemaps[1]"}},
		{"extra_urls", func(c *Config) { c.ExtraURLs = []string{"/", "/tmp/a.urls"} }, (*Config).checkExtraURLs, []string{"extra_urls[0]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Default()
			c.BaseURL = "https://www.sitemapd.test/"
			tc.set(&c)
			var keys []string
			tc.check(&c, func(key, format string, args ...any) { keys = append(keys, key) })
			if fmt.Sprint(keys) != fmt.Sprint(tc.keys) {
				t.Errorf("reported %q, want %q", keys, tc.keys)
			}
		})
	}
}
