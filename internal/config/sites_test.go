package config

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestMultiSite: sites: and include: make one site each, named, with
// their state in state_dir/<name>, the process-wide keys from the top,
// and paths resolved against the file each site is in.
func TestMultiSite(t *testing.T) {
	p, err := LoadProcessFile("testdata/multi/good.yml")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Err(); err != nil {
		t.Fatalf("failed sites: %v", err)
	}
	abs := func(rel string) string { a, _ := filepath.Abs(filepath.Join("testdata", rel)); return a }
	if !p.Multi || p.Listen != "127.0.0.1:9477" || p.Log.Level != "debug" || p.StateDir != abs("state") || len(p.Sites) != 3 {
		t.Fatalf("loaded %+v", p)
	}
	// An included file is named by its absolute path, as its glob is.
	for i, want := range []struct{ name, root, file string }{
		{"a", "multi/www/a", "testdata/multi/good.yml"},
		{"b", "multi/www/b", abs("multi/sites.d/b.yaml")},
		{"c-site", "multi/www/c", abs("multi/sites.d/c.yaml")},
	} {
		s := p.Sites[i]
		if s.Name != want.name || s.Root != abs(want.root) || s.File != want.file ||
			s.StateDir != filepath.Join(abs("state"), want.name) || s.Log.Level != "debug" || s.Listen != p.Listen {
			t.Errorf("site %d: name %q root %q file %q state %q log %v", i, s.Name, s.Root, s.File, s.StateDir, s.Log)
		}
		if p.Site(want.name) != s {
			t.Errorf("Site(%q) is not site %d", want.name, i)
		}
	}
	if p.Sites[0].Depth != 2 || p.Sites[1].Depth != Default().Depth {
		t.Errorf("depths %d, %d: each site's keys are its own", p.Sites[0].Depth, p.Sites[1].Depth)
	}
}

// TestSingleSiteProcess: a file without sites: or include: is one site,
// exactly as Load reads it, its state in state_dir itself.
func TestSingleSiteProcess(t *testing.T) {
	p, err := LoadProcessFile("testdata/full.good.yml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := LoadFile("testdata/full.good.yml")
	if err != nil {
		t.Fatal(err)
	}
	if p.Multi || len(p.Sites) != 1 || p.Sites[0].StateDir != c.StateDir || p.Sites[0].Root != c.Root || p.StateDir != c.StateDir {
		t.Errorf("loaded %+v, want the one site Load reads", p)
	}
	if _, err := LoadFile("testdata/multi/good.yml"); err == nil || !strings.Contains(err.Error(), "good.yml:4: include: makes this file hold several sites") {
		t.Errorf("Load of a multi-site file: %v", err)
	}
}

// TestBadMultiSite: a problem of the file itself fails it whole, naming
// file, line and key; a problem of one site fails that site only, named
// with its file, line and key, and the others load.
func TestBadMultiSite(t *testing.T) {
	for _, tc := range []struct {
		file   string
		whole  []string            // the file's error
		failed map[string][]string // site name -> its error
		good   []string            // sites loaded
	}{
		{file: "top.bad.yml", whole: []string{
			`top.bad.yml:2: lsten: unknown key (did you mean "listen"?)`,
			`top.bad.yml:3: root: is a site's key: with sites or include, set it in each site`,
		}},
		{file: "empty.bad.yml", whole: []string{`empty.bad.yml:2: include: no site: sites: lists none and include: matches no file`}},
		{file: "sites.bad.yml", failed: map[string][]string{
			"a":    {`sites.bad.yml:6: sites[0].listen: is process-wide: set it once, at the top of testdata/multi/sites.bad.yml`},
			"":     {`sites.bad.yml:7: sites[1].name: is required for a site under sites:`},
			"b":    {`sites.bad.yml:12: sites[2].depth: -1 is outside 0–32`},
			"c":    {`sites.bad.yml:16: sites[4].name: "c" names another site too (in testdata/multi/sites.bad.yml)`},
			"../x": {`sites.bad.yml:19: sites[5].name: "../x" must be 1–128 letters, digits`},
			"d":    {`sites.bad.yml:23: sites[6].root: site "c" writes its sitemaps in`},
			"f":    {`sites.bad.yml:29: sites[8].root: the sitemaps of this site and of site "c"`},
		}, good: []string{"c", "e"}},
		{file: "include.bad.yml", failed: map[string][]string{
			"broken": {`bad.d/broken.yaml:2: base_url: `},
			"syntax": {`bad.d/syntax.yaml:`, "invalid YAML"},
			"empty":  {`bad.d/empty.yaml: the file is empty: a minimal configuration sets root`},
		}, good: []string{"fine"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			p, err := LoadProcessFile(filepath.Join("testdata/multi", tc.file))
			if tc.whole != nil {
				if err == nil {
					t.Fatal("loaded without error")
				}
				for _, w := range tc.whole {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error lacks %q; got:\n%v", w, err)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var good []string
			for _, s := range p.Sites {
				good = append(good, s.Name)
			}
			if strings.Join(good, ",") != strings.Join(tc.good, ",") {
				t.Errorf("sites loaded %q, want %q", good, tc.good)
			}
			if len(p.Failed) != len(tc.failed) {
				t.Errorf("%d sites failed, want %d:\n%v", len(p.Failed), len(tc.failed), p.Err())
			}
			for _, f := range p.Failed {
				want, ok := tc.failed[f.Name]
				if !ok {
					t.Errorf("site %q failed: %v", f.Name, f.Err)
					continue
				}
				for _, w := range want {
					if !strings.Contains(f.Error(), w) {
						t.Errorf("site %q: error lacks %q; got:\n%v", f.Name, w, f.Err)
					}
				}
				var ce *Error
				if !errors.As(f.Err, &ce) {
					t.Errorf("site %q: %v is no *Error", f.Name, f.Err)
				}
			}
		})
	}
}
