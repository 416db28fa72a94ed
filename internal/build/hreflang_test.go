package build

import (
	"context"
	"encoding/xml"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sitemapd/sitemapd/internal/hreflang"
)

// TestAlternatesRule checks the counts of the golden heads case, derived
// by hand from its tree.txt and Google's rule: index.html (en, de) and
// de/index.html (en, de, x-default) name each other and themselves: 5
// kept; de/seite.html keeps itself and its example.at version (a host
// pages.hreflang_hosts names), not example.ch (another host) nor
// /fr/seite.html (no such page); en.html names /de/, which does not name
// it back, and then names nothing but itself; noself.html does not name
// itself.
func TestAlternatesRule(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	materialize(t, filepath.Join(headsCase, "tree.txt"), root)
	cfg := loadConfig(t, filepath.Join(headsCase, "config.yaml"), root, "")
	e, _ := newEngine(t, cfg)
	rep := mustBuild(t, e)
	var want hreflang.Tally
	want[hreflang.Kept] = 7
	want[hreflang.OtherHost] = 1
	want[hreflang.Unlisted] = 1
	want[hreflang.NoReturn] = 1
	want[hreflang.Alone] = 1
	want[hreflang.NoSelf] = 1
	if rep.Hreflang != want {
		t.Errorf("tally %v (kept %d), want %v (kept %d)", rep.Hreflang.String(), rep.Hreflang[hreflang.Kept], want.String(), want[hreflang.Kept])
	}
}

// langSite is a site of language versions: each language's directory
// ("" for en, at the root) holds the same pages, each naming its version
// in every language of the site (and x-default, the en one).
type langSite struct {
	root  string
	langs []string
	pages []string
	// noReturn are pages (lang/page) whose head names every version but
	// the en one (nor x-default, which is it).
	noReturn map[string]bool
}

func langDir(lang string) string {
	if lang == "en" {
		return ""
	}
	return lang
}

// url is the URL of a page in a language.
func (s *langSite) url(lang, page string) string {
	p := path.Join("/", langDir(lang), page)
	if page == "index.html" {
		p = path.Join("/", langDir(lang)) + "/"
		p = strings.Replace(p, "//", "/", 1)
	}
	return "https://static.test" + p
}

// links are the alternates the head of a page in a language names:
// lang=URL each.
func (s *langSite) links(lang, page string) []string {
	var out []string
	for _, l := range s.langs {
		if l == "en" && lang != "en" && s.noReturn[lang+"/"+page] {
			continue
		}
		out = append(out, l+"="+s.url(l, page))
	}
	if lang != "en" && s.noReturn[lang+"/"+page] {
		return out
	}
	return append(out, "x-default="+s.url("en", page))
}

// names reports whether a page's head names a URL, in any language.
func (s *langSite) names(lang, page, u string) bool {
	return slices.ContainsFunc(s.links(lang, page), func(l string) bool { return strings.HasSuffix(l, "="+u) })
}

func (s *langSite) write(t *testing.T, lang string) {
	for _, page := range s.pages {
		var b strings.Builder
		for _, l := range s.links(lang, page) {
			hl, href, _ := strings.Cut(l, "=")
			fmt.Fprintf(&b, "<link rel=alternate hreflang=%s href=%s>", hl, href)
		}
		writeFile(t, filepath.Join(s.root, langDir(lang), page), "<head>"+b.String()+"</head>", defaultMTime)
	}
}

// want is what Google's rule makes of the site as it is: each present
// page lists the versions that exist and name it back, itself included,
// and nothing if no other version is left.
func (s *langSite) want(present []string) map[string][]string {
	out := map[string][]string{}
	for _, lang := range present {
		for _, page := range s.pages {
			self := s.url(lang, page)
			var kept []string
			others := 0
			for _, l := range s.links(lang, page) {
				hl, href, _ := strings.Cut(l, "=")
				target := hl
				if hl == "x-default" {
					target = "en"
				}
				if href == self {
					kept = append(kept, l)
					continue
				}
				if slices.Contains(present, target) && s.names(target, page, self) {
					kept = append(kept, l)
					others++
				}
			}
			if others == 0 {
				kept = nil
			}
			out[self] = kept
		}
	}
	return out
}

// listedAlternates reads every sitemap below root: each <loc> with its
// alternates, lang=href.
func listedAlternates(t *testing.T, root string) map[string][]string {
	t.Helper()
	type urlset struct {
		URLs []struct {
			Loc   string `xml:"loc"`
			Links []struct {
				Lang string `xml:"hreflang,attr"`
				Href string `xml:"href,attr"`
			} `xml:"http://www.w3.org/1999/xhtml link"`
		} `xml:"url"`
	}
	out := map[string][]string{}
	for name, b := range outputsNamed(t, root, "sitemap.xml") {
		var set urlset
		if err := xml.Unmarshal(b, &set); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, u := range set.URLs {
			var links []string
			for _, l := range u.Links {
				links = append(links, l.Lang+"="+l.Href)
			}
			out[u.Loc] = links
		}
	}
	return out
}

func sameAlternates(t *testing.T, step string, got, want map[string][]string) {
	t.Helper()
	for loc, w := range want {
		g, ok := got[loc]
		if !ok {
			t.Errorf("%s: %s not listed", step, loc)
			continue
		}
		if !slices.Equal(g, w) {
			t.Errorf("%s: %s lists %q, want %q", step, loc, g, w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d URLs listed, want %d", step, len(got), len(want))
	}
}

// TestAlternatesFollowTargets deletes a language's pages, brings them back
// and changes one so it no longer names its en version, each told to
// Update as the watcher tells it (the directory that changed, the names):
// the pages of the other groups that name them are encoded again, and
// list what Google's rule says of the tree (want), as a fresh full build
// does.
func TestAlternatesFollowTargets(t *testing.T) {
	for _, mode := range []struct {
		name, cfg string
		opts      []Option
	}{
		{"memory", "depth: 1\n", []Option{WithChanges()}},
		{"walk", "depth: 1\n", nil},
		// One group of small parts: the part of a page that names a
		// page that changed is not one the change touched.
		{"one group", "depth: 0\npart_size: 1\n", []Option{WithChanges()}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "root")
			s := &langSite{root: root, langs: []string{"en", "fr", "de"}, pages: []string{"index.html", "about.html"}, noReturn: map[string]bool{}}
			for _, l := range s.langs {
				s.write(t, l)
			}
			cfg := loadConfig(t, baseConfig, root, mode.cfg)
			e, _ := newEngine(t, cfg, mode.opts...)
			mustBuild(t, e)
			sameAlternates(t, "first build", listedAlternates(t, root), s.want(s.langs))

			update := func(step string, present []string) {
				t.Helper()
				if _, err := e.Update(context.Background(), []string{"fr"}, map[string][]string{"fr": s.pages}); err != nil {
					t.Fatal(err)
				}
				sameAlternates(t, step, listedAlternates(t, root), s.want(present))
				fresh, _ := newEngine(t, cfg)
				if rep := mustBuild(t, fresh); len(rep.Written) != 0 || len(rep.Removed) != 0 {
					t.Errorf("%s: a full build after Update wrote %v, removed %v", step, rep.Written, rep.Removed)
				}
				fresh.Close()
			}
			for _, p := range s.pages {
				os.Remove(filepath.Join(root, "fr", p))
			}
			update("fr removed", []string{"en", "de"})
			s.write(t, "fr")
			update("fr back", s.langs)
			s.noReturn["fr/about.html"] = true
			s.write(t, "fr")
			update("fr/about.html names en no more", s.langs)
		})
	}
}
