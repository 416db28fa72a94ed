package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestGoodConfigs(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.good.yml")
	if len(files) == 0 {
		t.Fatal("no testdata")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			if _, err := LoadFile(f); err != nil {
				t.Fatalf("LoadFile: %v", err)
			}
		})
	}
}

func TestFullConfig(t *testing.T) {
	c, err := LoadFile("testdata/full.good.yml")
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs("testdata/site")
	state, _ := filepath.Abs("testdata/state")
	for _, tc := range []struct{ name, got, want string }{
		{"root", c.Root, abs},
		{"output_dir", c.OutputDir, abs},
		{"state_dir", c.StateDir, state},
		{"base_url", c.BaseURL, "https://www.sitemapd.test/docs/"},
		{"sitemap_name", c.SitemapName, "map.xml"},
		{"rule 0 changefreq", c.Pages.Rules[0].ChangeFreq, "daily"},
		{"endpoint 1 kind", string(c.Notify.Endpoints[1].Kind), "ping"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %q, want %q", tc.name, tc.got, tc.want)
		}
	}
	if c.Depth != 2 || !c.Gzip || c.Mode != 0o640 || c.Watch.Settle != time.Second || c.Watch.Rescan != 0 ||
		*c.Pages.Rules[0].Priority != 1 || c.Pages.FollowSymlinks || len(c.Pages.IgnoreNames) != 1 ||
		c.Pages.NoIndex || c.Pages.Canonical || c.Pages.Hreflang ||
		c.Notify.Timeout != 3*time.Second || c.Notify.Attempts != 2 || c.Notify.MaxBackoff != time.Minute ||
		c.Stylesheet != "builtin" || !c.TextSitemaps() || c.OutputNames().Text() != "map.txt" ||
		c.Feed != (Feed{Name: "changes.atom", Entries: 50}) {
		t.Errorf("decoded %+v", c)
	}
}

func TestImagesConfig(t *testing.T) {
	c, err := LoadFile("testdata/images.good.yml")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"cdn.sitemapd.test", "img.sitemapd.test:8443", "[::1]:8080"}
	if !c.Pages.Images || !slices.Equal(c.Pages.ImageHosts, want) {
		t.Errorf("images %v, image_hosts %q; want true, %q", c.Pages.Images, c.Pages.ImageHosts, want)
	}
	if d := Default(); d.Pages.Images || len(d.Pages.ImageHosts) != 0 {
		t.Errorf("default images %v, image_hosts %q: want off, none", d.Pages.Images, d.Pages.ImageHosts)
	}
}

func TestDefaults(t *testing.T) {
	c, err := LoadFile("testdata/minimal.good.yml")
	if err != nil {
		t.Fatal(err)
	}
	if c.BaseURL != "http://localhost:8080/" {
		t.Errorf("base_url = %q, want a trailing slash added", c.BaseURL)
	}
	d := Default()
	if c.Depth != d.Depth || c.SitemapName != "sitemap.xml" || c.IndexName != "sitemap_index.xml" || c.Mode != 0o644 ||
		len(c.Pages.Extensions) != 3 || c.Watch.MaxDelay != 5*time.Second || c.Notify.Schedule != "*/10 * * * *" || c.OutputDir != "" ||
		!c.Pages.NoIndex || !c.Pages.Canonical || !c.Pages.Hreflang || c.Feed != (Feed{Entries: 100}) {
		t.Errorf("defaults not applied: %+v", c)
	}
}

// TestBadConfigs checks that each problem is reported with file, line and key.
func TestBadConfigs(t *testing.T) {
	for _, tc := range []struct {
		file string
		want []string
	}{
		{"unknown-key.bad.yml", []string{`unknown-key.bad.yml:4: pages.extension: unknown key (did you mean "extensions"?)`}},
		{"wrong-type.bad.yml", []string{`wrong-type.bad.yml:3: depth: "deep" is not a whole number`}},
		{"syntax.bad.yml", []string{"syntax.bad.yml:", "invalid YAML"}},
		{"options.bad.yml", []string{`options.bad.yml:3: robots_txt: needs base_url at the root of its host`,
			`options.bad.yml:4: stylesheet: "ftp://example.com/s.xsl" must be builtin, a path from the site root`,
			`options.bad.yml:6: pages.robots_agent: "Googlebot/2.1" must be "*" or a crawler's product token, letters, digits`,
			`options.bad.yml:7: pages.error_pages[0]: "/errors/[x" is not a valid glob`}},
		{"formats.bad.yml", []string{
			`formats.bad.yml:4: formats: "html" is not a format: xml, txt`,
			`formats.bad.yml:4: formats: must include xml`,
			`formats.bad.yml:4: formats: text sitemaps would be named like robots.txt (from sitemap_name "robots.xml")`,
		}},
		{"images.bad.yml", []string{
			`images.bad.yml:5: pages.image_hosts[1]: "https://cdn.sitemapd.test/" must be a host name`,
			`images.bad.yml:5: pages.image_hosts[2]: "*.sitemapd.test" must be a host name`,
			`images.bad.yml:5: pages.image_hosts[3]: "img.sitemapd.test:" must be a host name`,
		}},
		{"extras.bad.yml", []string{
			`extras.bad.yml:5: extra_sitemaps[1]: "https://elsewhere.test/sitemap.xml" is not under base_url https://www.sitemapd.test/`,
			`extras.bad.yml:6: extra_sitemaps[2]: "https://www.sitemapd.test/sitemap_index.xml" is sitemapd's own index`,
			`extras.bad.yml:7: extra_sitemaps[3]: "https://WWW.sitemapd.test/shop/sitemap.xml" is extra_sitemaps[0] already`,
			`extras.bad.yml:8: extra_sitemaps[4]: "https://www.sitemapd.test/sitemap-urls-x.xml" is named like the sitemap of an extra_urls file`,
			`extras.bad.yml:9: extra_sitemaps[5]: "https://www.sitemapd.test/blog/sitemap-0123456789ab.xml" is named like a part of sitemapd's own sitemaps`,
			`extras.bad.yml:10: extra_sitemaps[6]: "https://www.sitemapd.test/shop/" names a directory`,
			`extras.bad.yml:11: extra_sitemaps[7]: "https://www.sitemapd.test/changes.atom" is sitemapd's own feed`,
			`extras.bad.yml:15: extra_urls[1]: the directory of `,
			`extras.bad.yml:16: extra_urls[2]: `, `would publish its URLs as sitemap-urls-a.xml, like extra_urls[0]`,
		}},
		{"values.bad.yml", []string{
			"values.bad.yml:1: root: stat ",
			"values.bad.yml:2: base_url: \"ftp://example.com/\" must start with http:// or https://",
			"values.bad.yml:3: depth: -1 is outside 0–32",
			"values.bad.yml:4: sitemap_name: \"sitemap.txt\" must end in .xml",
			"values.bad.yml:5: index_name: \".index.xml\" must not start with '.'",
			"values.bad.yml:6: file_mode: \"0666\" makes files world-writable",
			"values.bad.yml:8: pages.extensions[0]: \"html\" must look like \".html\"",
			"values.bad.yml:9: pages.exclude[0]: \"/drafts/[**\" is not a valid glob",
			"values.bad.yml:12: pages.rules[0].priority: 1.5 is outside 0.0–1.0",
			"values.bad.yml:13: pages.rules[0].changefreq: \"sometimes\" is not one of",
			"values.bad.yml:16: watch.max_delay: 1s must be at least watch.settle (2s)",
			"values.bad.yml:18: notify.schedule: \"TZ=UTC\": not a valid cron spec",
			"values.bad.yml:19: notify.attempts: 0 must be at least 1",
			"values.bad.yml:24: notify.endpoints[0].key: IndexNow keys are 8–128 characters",
			"values.bad.yml:25: notify.endpoints[1].name: \"in\" is used by another endpoint",
			"values.bad.yml:27: notify.endpoints[1].url: \"https://engine.example/ping?token=REDACTED\" has no {sitemap} placeholder",
			"values.bad.yml:28: log.level: \"loud\" is not one of",
			"values.bad.yml:28: log.format: \"xml\" is not one of",
			"values.bad.yml:29: listen: \"9477\" must be host:port",
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			_, err := LoadFile(filepath.Join("testdata", tc.file))
			if err == nil {
				t.Fatal("loaded without error")
			}
			msg := err.Error()
			if strings.Contains(msg, "SECRET") {
				t.Errorf("an error shows a secret of an endpoint URL:\n%s", msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error lacks %q; got:\n%s", w, msg)
				}
			}
		})
	}
}

// TestFeedConfig checks feed: its name is a plain .atom file name and its
// length is bounded, and each mistake is reported at its line and key.
func TestFeedConfig(t *testing.T) {
	for _, tc := range []struct{ feed, want string }{
		{"{name: changes.atom}", ""},
		{"{name: recent.atom, entries: 1}", ""},
		{"{name: recent.atom, entries: 1000}", ""},
		{"{entries: 20}", ""}, // off: no name
		{"{name: feeds/changes.atom}", `x.yml:3: feed.name: "feeds/changes.atom" must be a plain file name`},
		{"{name: .changes.atom}", `x.yml:3: feed.name: ".changes.atom" must not start with '.'`},
		{"{name: changes.xml}", `x.yml:3: feed.name: "changes.xml" must end in .atom`},
		{"{name: sitemap.xml}", `x.yml:3: feed.name: "sitemap.xml" must end in .atom`},
		{"{name: robots.txt}", `x.yml:3: feed.name: "robots.txt" must end in .atom`},
		{"{name: .atom}", `x.yml:3: feed.name: ".atom" must not start with '.'`},
		{"{name: changes.atom, entries: 0}", "x.yml:3: feed.entries: 0 is outside 1–1000"},
		{"{name: changes.atom, entries: 1001}", "x.yml:3: feed.entries: 1001 is outside 1–1000"},
		{"{name: changes.atom, entries: many}", `x.yml:3: feed.entries: "many" is not a whole number`},
		{"{name: changes.atom, count: 5}", `x.yml:3: feed.count: unknown key`},
	} {
		t.Run(tc.feed, func(t *testing.T) {
			yaml := "root: site\nbase_url: https://www.sitemapd.test/\nfeed: " + tc.feed + "\n"
			_, err := Load([]byte(yaml), filepath.Join("testdata", "x.yml"))
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestMissingFile(t *testing.T) {
	_, err := LoadFile(filepath.Join(t.TempDir(), "nope.yaml"))
	if err == nil || !strings.Contains(err.Error(), "nope.yaml") {
		t.Errorf("err = %v, want the file named", err)
	}
}

func TestRequiredAndEmpty(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"empty.yml":   "",
		"list.yml":    "- a\n- b\n",
		"nothing.yml": "depth: 1\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadFile(p)
		if err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: err = %v, want an error naming the file", name, err)
		}
		if name == "nothing.yml" && (!strings.Contains(err.Error(), "root: is required") || !strings.Contains(err.Error(), "base_url: is required")) {
			t.Errorf("%s: err = %v, want root and base_url required", name, err)
		}
	}
}

func TestSchedules(t *testing.T) {
	for spec, ok := range map[string]bool{
		"*/10 * * * *":                    true,
		"@hourly":                         true,
		"@every 5m":                       true,
		"CRON_TZ=Europe/Berlin 0 3 * * *": true,
		"":                                false,
		"TZ=":                             false,
		"CRON_TZ=":                        false,
		"TZ=UTC":                          false,
		"CRON_TZ=Nowhere/Bogus 0 3 * * *": false,
		"@every 0s":                       false,
		"@every -5m":                      false,
		"@every 500ms":                    false,
		"0 0 3 * * *":                     false,
		"61 * * * *":                      false,
	} {
		if err := checkSchedule(spec); (err == nil) != ok {
			t.Errorf("checkSchedule(%q) = %v, want ok=%v", spec, err, ok)
		}
	}
}

// TestShippedConfig loads configs/sitemapd.yaml: as shipped it is refused
// until root and base_url are set, naming both; once they are, it is
// valid. It must not ship a retired ping URL, nor set state_dir (whose
// default follows systemd's StateDirectory=).
func TestShippedConfig(t *testing.T) {
	data, err := os.ReadFile("../../configs/sitemapd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Load(data, "sitemapd.yaml")
	lines := strings.Split(string(data), "\n")
	line := func(key string) int {
		return slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, key+":") }) + 1
	}
	for _, want := range []string{
		fmt.Sprintf("sitemapd.yaml:%d: root: is required", line("root")),
		fmt.Sprintf("sitemapd.yaml:%d: base_url: is required", line("base_url")),
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("as shipped: %v; want %q", err, want)
		}
	}
	if strings.Count(err.Error(), "\n") != 1 {
		t.Errorf("as shipped, more than root and base_url are wrong: %v", err)
	}
	s := strings.Replace(string(data), `root: ""`, "root: "+t.TempDir(), 1)
	s = strings.Replace(s, `base_url: ""`, "base_url: https://www.sitemapd.test/", 1)
	c, err := Load([]byte(s), "sitemapd.yaml")
	if err != nil {
		t.Fatalf("the shipped configuration with root and base_url set is invalid: %v", err)
	}
	if line("state_dir") != 0 || c.StateDir != DefaultStateDir() {
		t.Errorf("it sets state_dir (line %d): %q", line("state_dir"), c.StateDir)
	}
	for _, retired := range []string{"google.com/ping", "bing.com/ping"} {
		if strings.Contains(s, retired) {
			t.Errorf("it ships the retired ping URL %s", retired)
		}
	}
}

// TestComposeConfigs loads the configurations the compose examples mount
// (deploy/docker, deploy/fleet), their root replaced by a directory that
// exists: each is valid, and the fleet's names the compose file's three
// etcd members.
func TestComposeConfigs(t *testing.T) {
	for _, c := range []struct {
		path    string
		members int
	}{
		{"../../deploy/docker/config/sitemapd.yaml", 0},
		{"../../deploy/fleet/config/sitemapd.yaml", 3},
	} {
		data, err := os.ReadFile(c.path)
		if err != nil {
			t.Fatal(err)
		}
		s := strings.Replace(string(data), "root: /srv/www", "root: "+t.TempDir(), 1)
		s = strings.Replace(s, "state_dir: /var/lib/sitemapd", "state_dir: "+t.TempDir(), 1)
		cfg, err := Load([]byte(s), c.path)
		if err != nil {
			t.Errorf("%s: %v", c.path, err)
			continue
		}
		if got := len(cfg.Fleet.Etcd.Endpoints); got != c.members {
			t.Errorf("%s: %d etcd endpoints, want %d", c.path, got, c.members)
		}
	}
	compose, err := os.ReadFile("../../deploy/fleet/compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"etcd1:", "etcd2:", "etcd3:", "http://etcd1:2379", "sitemapd1:", "sitemapd2:"} {
		if !strings.Contains(string(compose), m) {
			t.Errorf("deploy/fleet/compose.yaml lacks %s", m)
		}
	}
}
