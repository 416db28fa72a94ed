package hreflang

import (
	"slices"
	"testing"

	"github.com/sitemapd/sitemapd/internal/sitemap"
)

const site = "https://www.site.test"

func alts(pairs ...string) []sitemap.Alternate {
	var out []sitemap.Alternate
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, sitemap.Alternate{Lang: pairs[i], Href: pairs[i+1]})
	}
	return out
}

// heads is a site: each listed page's URL and the alternates its head
// names.
type heads map[string][]sitemap.Alternate

func (h heads) graph(hosts Hosts) *Graph {
	g := NewGraph(hosts)
	s := g.Stage(true)
	var pages []Page
	for loc, a := range h {
		if len(a) > 0 {
			pages = append(pages, hosts.PageOf(loc, a))
		}
	}
	s.Set("", pages)
	s.Commit()
	return g
}

// TestRule checks each case of Google's rule for alternates (the package
// comment), one page at a time, against sites written by hand.
func TestRule(t *testing.T) {
	en, fr, de := site+"/", site+"/fr/", site+"/de/"
	hosts := NewHosts(site+"/", []string{"www.site.example"})
	for _, tc := range []struct {
		name string
		site heads
		page string
		want []string // the hrefs kept, in order
	}{
		{"all reciprocal", heads{
			en: alts("en", en, "fr", fr, "de", de),
			fr: alts("en", en, "fr", fr, "de", de),
			de: alts("en", en, "fr", fr, "de", de),
		}, en, []string{en, fr, de}},
		{"a target gone", heads{
			en: alts("en", en, "fr", fr, "de", de),
			de: alts("en", en, "fr", fr, "de", de),
		}, en, []string{en, de}},
		{"a target that does not name it back", heads{
			en: alts("en", en, "fr", fr, "de", de),
			fr: alts("fr", fr, "de", de),
			de: alts("en", en, "fr", fr, "de", de),
		}, en, []string{en, de}},
		{"a return link in another language, or x-default, counts", heads{
			en: alts("en", en, "fr", fr),
			fr: alts("fr", fr, "x-default", en),
		}, en, []string{en, fr}},
		{"no self", heads{
			en: alts("fr", fr),
			fr: alts("en", en, "fr", fr),
		}, en, nil},
		{"alone", heads{
			en: alts("en", en, "x-default", en, "fr", fr),
		}, en, nil},
		{"hosts", heads{
			en: alts("en", en, "fr", "https://www.site.example/fr/", "de", "https://elsewhere.test/de/", "es", "HTTPS://WWW.SITE.EXAMPLE:443/es/"),
		}, en, []string{en, "https://www.site.example/fr/", "HTTPS://WWW.SITE.EXAMPLE:443/es/"}},
		{"URLs compared as a canonical is", heads{
			site + "/caf%C3%A9/": alts("fr", "https://WWW.site.test:443/café/", "en", en),
			en:                   alts("en", en, "fr", site+"/caf%c3%a9/"),
		}, site + "/caf%C3%A9/", []string{"https://WWW.site.test:443/café/", en}},
		{"another URL of the target is not the URL listed", heads{
			en: alts("en", en, "fr", site+"/fr/index.html"),
			fr: alts("en", en, "fr", fr),
		}, en, nil},
		{"http is not https", heads{
			en: alts("en", en, "fr", "http://www.site.test/fr/"),
			fr: alts("en", en, "fr", fr),
		}, en, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := tc.site.graph(hosts)
			kept := g.Stage(false).Filter(tc.page, slices.Clone(tc.site[tc.page]))
			var got []string
			for _, a := range kept {
				got = append(got, a.Href)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("kept %q, want %q", got, tc.want)
			}
		})
	}
}

// TestStage follows a site of three languages, each its own group, as
// fr/ goes and comes back: the stage sees the change before its commit,
// the graph only after, the groups that name fr/ are its referrers, and
// the counts are those derived by hand.
func TestStage(t *testing.T) {
	en, fr, de := site+"/", site+"/fr/", site+"/de/"
	hosts := NewHosts(site+"/", nil)
	all := alts("en", en, "fr", fr, "de", de)
	page := func(loc string) []Page { return []Page{hosts.PageOf(loc, all)} }
	g := NewGraph(hosts)
	s := g.Stage(true)
	s.Set("", page(en))
	s.Set("fr", page(fr))
	s.Set("de", page(de))
	s.Commit()
	if got := g.Tally(); got != (Tally{Kept: 9}) {
		t.Fatalf("counts %v, kept %d; want 9 kept", got.String(), got[Kept])
	}

	s = g.Stage(false)
	s.Set("fr", nil) // fr/ deleted
	if got := s.Referrers(s.Changed()); !slices.Equal(got, []string{"", "de"}) {
		t.Errorf("referrers %q, want the groups of en and de", got)
	}
	if n := len(s.Filter(en, slices.Clone(all))); n != 2 {
		t.Errorf("the stage lists %d alternates of en, want 2 (fr gone)", n)
	}
	if n := len(g.Stage(false).Filter(en, slices.Clone(all))); n != 3 {
		t.Errorf("the graph lists %d alternates of en before the commit, want 3", n)
	}
	s.Commit()
	if got := g.Tally(); got != (Tally{Kept: 4, Unlisted: 2}) {
		t.Errorf("counts %v, kept %d; want 4 kept, unlisted 2", got.String(), got[Kept])
	}
	if g.Pages() != 2 {
		t.Errorf("%d pages in the graph, want 2", g.Pages())
	}

	s = g.Stage(false)
	s.Set("de", page(de)) // read again, unchanged
	if ch := s.Changed(); len(ch) != 0 {
		t.Errorf("a group read again unchanged changed %d pages", len(ch))
	}
	s.Set("fr", page(fr)) // back: it names itself, too
	if got := s.Referrers(s.Changed()); !slices.Equal(got, []string{"", "de", "fr"}) {
		t.Errorf("referrers %q, want the groups of en, de and fr", got)
	}
	s.Commit()
	if got := g.Tally(); got != (Tally{Kept: 9}) {
		t.Errorf("counts %v, kept %d; want 9 kept", got.String(), got[Kept])
	}
}
