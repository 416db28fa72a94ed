package build

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/scan"
	"github.com/sitemapd/sitemapd/internal/tree"
)

// TestLinkMadeAndEditedInOneBatch makes a hard link and edits the file
// through the new name before the watcher's batch ends: the batch names
// only the new name, which nothing known can be compared with (its other
// names were read with the old bytes). The old name, in another group,
// must show the edit too, as a full build shows it. Before the engine
// looked for a new name's other names, the old one kept its old lastmod
// until the next rescan. Then a link made to a file as it is known
// (`cp -al`) republishes nothing else.
func TestLinkMadeAndEditedInOneBatch(t *testing.T) {
	for _, mode := range []string{"content", "mtime"} {
		t.Run(mode, func(t *testing.T) {
			root := site(t, "en/howto.html", "en/other.html", "archive/x.html")
			cfg := loadConfig(t, baseConfig, root, "pages: {lastmod: "+mode+"}\n")
			e, _ := newEngine(t, cfg, WithChanges())
			mustBuild(t, e)
			first, second := filepath.Join(root, "en/howto.html"), filepath.Join(root, "archive/copy.html")
			if err := os.Link(first, second); err != nil {
				t.Fatal(err)
			}
			editInPlace(t, second)

			rep, err := e.Update(context.Background(), []string{"archive"}, map[string][]string{"archive": {"copy.html"}})
			if err != nil {
				t.Fatal(err)
			}
			if want := []string{"https://static.test/en/howto.html"}; !slices.Equal(rep.Changes.Changed, want) {
				t.Errorf("changed = %q, want %q", rep.Changes.Changed, want)
			}
			if sm := read(t, filepath.Join(root, "en/sitemap.xml")); !strings.Contains(sm, "<loc>https://static.test/en/howto.html</loc><lastmod>2025-05-06T07:08:09Z</lastmod>") {
				t.Errorf("en/sitemap.xml does not show the edit made through archive/copy.html:\n%s", sm)
			}
			fresh, _ := newEngine(t, cfg)
			if rep := mustBuild(t, fresh); len(rep.Written) != 0 || len(rep.Removed) != 0 {
				t.Errorf("a full build would write %v and remove %v", rep.Written, rep.Removed)
			}

			// cp -al: a new name of a file as it is known changes no other.
			if err := os.Link(filepath.Join(root, "en/other.html"), filepath.Join(root, "archive/other.html")); err != nil {
				t.Fatal(err)
			}
			rep, err = e.Update(context.Background(), []string{"archive"}, map[string][]string{"archive": {"other.html"}})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Changes.Changed) != 0 || !slices.Equal(rep.Changes.Added, []string{"https://static.test/archive/other.html"}) {
				t.Errorf("after a link to an unchanged file: changes = %+v", rep.Changes)
			}
		})
	}
}

// TestEditThroughNameLeftOut edits a file through a name that robots.txt
// disallows, so that nothing remembers it: the event names only that
// name, and the page the file is listed as, in another group, must show
// the edit, as a full build shows it. Before the engine looked for the
// other names of a name left out, it kept the old bytes until the next
// rescan.
func TestEditThroughNameLeftOut(t *testing.T) {
	root := site(t, "a/page.html", "a/other.html")
	writeFile(t, filepath.Join(root, "robots.txt"), "User-agent: *\nDisallow: /private/\n", defaultMTime)
	if err := os.MkdirAll(filepath.Join(root, "private"), 0o755); err != nil {
		t.Fatal(err)
	}
	hidden := filepath.Join(root, "private/copy.html")
	if err := os.Link(filepath.Join(root, "a/page.html"), hidden); err != nil {
		t.Fatal(err)
	}
	cfg := loadConfig(t, baseConfig, root, "")
	e, _ := newEngine(t, cfg, WithChanges())
	mustBuild(t, e)
	editInPlace(t, hidden)

	rep, err := e.Update(context.Background(), []string{"private"}, map[string][]string{"private": {"copy.html"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"https://static.test/a/page.html"}; !slices.Equal(rep.Changes.Changed, want) {
		t.Errorf("changed = %q, want %q", rep.Changes.Changed, want)
	}
	fresh, _ := newEngine(t, cfg)
	if rep := mustBuild(t, fresh); len(rep.Written) != 0 || len(rep.Removed) != 0 {
		t.Errorf("a full build would write %v and remove %v", rep.Written, rep.Removed)
	}
}

// editInPlace writes new bytes into a file through the name p, keeping
// its inode (and so its other names), with the mtime 2025-05-06T07:08:09Z.
func editInPlace(t *testing.T, p string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("<title>edited</title><h1>new bytes</h1>"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	edited := time.Date(2025, 5, 6, 7, 8, 9, 0, time.UTC)
	os.Chtimes(p, edited, edited)
}

// TestLinkSearchByKnown: the pages known that are the file a read found
// changed are its other names (not the name it was read by), by stamp and
// hash, or by time where no stamp is kept; a name nothing knew is looked
// for by identity only when no page known has its file's stamp.
func TestLinkSearchByKnown(t *testing.T) {
	known := map[string]*tree.Listing{
		"a": tree.NewListing([]tree.Page{
			{Name: "x.html", Time: 1, Stamp: 10, Sum: 100},
			{Name: "y.html", Time: 2, Stamp: 20, Sum: 200},
		}, tree.KeepStamps|tree.KeepSums, nil, tree.DirID{}),
		"b": tree.NewListing([]tree.Page{
			{Name: "x2.html", Time: 1, Stamp: 10, Sum: 100}, // another name of a/x.html
			{Name: "y2.html", Time: 2, Stamp: 20, Sum: 999}, // same stamp, other bytes
			{Name: "t.html", Time: 7, Stamp: tree.NoStamp},  // no stamp kept
			{Name: "t2.html", Time: 7, Stamp: tree.NoStamp}, // same time
		}, tree.KeepStamps|tree.KeepSums, nil, tree.DirID{}),
	}
	each := func(f func(string, *tree.Listing)) {
		for _, d := range slices.Sorted(maps.Keys(known)) {
			f(d, known[d])
		}
	}
	for _, tc := range []struct {
		name      string
		reads     []*scan.Group
		want      []string // dir/name added, sorted
		wantFiles int      // files left to find by identity
	}{
		{"nothing", nil, nil, 0},
		{"by stamp and hash", []*scan.Group{{Relinked: []scan.Relinked{{Dir: "a", Name: "x.html", Was: tree.Page{Stamp: 10, Sum: 100}}}}},
			[]string{"b/x2.html"}, 0},
		{"by time", []*scan.Group{{Relinked: []scan.Relinked{{Dir: "b", Name: "t.html", Was: tree.Page{Time: 7, Stamp: tree.NoStamp}}}}},
			[]string{"b/t2.html"}, 0},
		{"a name nothing knew, its stamp known", []*scan.Group{{Linked: []scan.Linked{{Dir: "c", Name: "new.html", Stamp: 20, Ino: 1}}}}, nil, 0},
		{"a name nothing knew, its stamp not", []*scan.Group{{Linked: []scan.Linked{{Dir: "c", Name: "new.html", Stamp: 30, MTime: 3, Ino: 2}}}}, nil, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reads := map[string]groupRead{}
			for i, g := range tc.reads {
				reads[fmt.Sprint(i)] = groupRead{g: g}
			}
			s := linkSearchOf(reads)
			var got []string
			files := s.byKnown(each, func(dir, name string) { got = append(got, dir+"/"+name) })
			slices.Sort(got)
			if !slices.Equal(got, tc.want) || len(files) != tc.wantFiles {
				t.Errorf("found %q and %d files to look for, want %q and %d", got, len(files), tc.want, tc.wantFiles)
			}
		})
	}
}
