package build

import (
	"bytes"
	"compress/gzip"
	"flag"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/zap/zaptest/observer"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/outname"
	"github.com/sitemapd/sitemapd/internal/sitemap"
	"github.com/sitemapd/sitemapd/internal/textrecord"
	"github.com/sitemapd/sitemapd/internal/xsdtest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden/*/want")

// TestGolden builds each tree in testdata/golden and compares every output
// byte for byte with want/. Golden files are named by the output's path,
// escaped with url.PathEscape; a golden ending in .gz is stored compressed
// and compared decompressed, so goldens do not depend on the compressor's
// exact bytes. Index lastmods (the sitemaps' mtimes, which change with
// every run) are checked against the files and masked as MTIME. The
// warnings logged are compared with want/warnings.txt.
func TestGolden(t *testing.T) {
	cases, _ := filepath.Glob("testdata/golden/*")
	if len(cases) == 0 {
		t.Fatal("no golden cases")
	}
	for _, dir := range cases {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "root")
			materialize(t, filepath.Join(dir, "tree.txt"), root)
			cfg, e, logs := caseEngine(t, dir, root)
			mustBuild(t, e)

			outs := outputs(t, cfg, root)
			masked, listed := checkIndexes(t, cfg, root, outs)
			got := map[string][]byte{"warnings.txt": []byte(warnings(logs, root))}
			var files []string
			for name, b := range outs {
				if m, ok := masked[name]; ok {
					got[url.PathEscape(name)] = m
					continue
				}
				if !listed[name] {
					t.Errorf("sitemap %s is not in the index", name)
				}
				checkLocationRule(t, cfg, name, plain(t, name, b))
				got[url.PathEscape(name)] = plain(t, name, b)
				files = append(files, filepath.Join(root, name))
			}
			sort.Strings(files)
			xsdtest.Validate(t, files...)
			for name, b := range textOutputs(t, cfg, root) {
				if name == textrecord.Name {
					got[url.PathEscape(name)] = b
					continue
				}
				// A text sitemap lists the URLs of the XML one beside it.
				xmlName := strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), ".txt") + ".xml"
				if cfg.Gzip {
					xmlName += ".gz"
				}
				var locs []string
				for line := range strings.SplitSeq(string(plain(t, xmlName, outs[xmlName])), "\n") {
					if loc, ok := between(line, "<loc>", "</loc>"); ok {
						locs = append(locs, sitemap.UnescapeXML([]byte(loc))+"\n")
					}
				}
				if txt := string(plain(t, name, b)); txt != strings.Join(locs, "") {
					t.Errorf("%s does not list the URLs of %s:\n%s", name, xmlName, txt)
				}
				got[url.PathEscape(name)] = plain(t, name, b)
			}
			compareGolden(t, filepath.Join(dir, "want"), got)
		})
	}
}

func compareGolden(t *testing.T, wantDir string, got map[string][]byte) {
	t.Helper()
	if *update {
		os.RemoveAll(wantDir)
		os.MkdirAll(wantDir, 0o755)
		for name, b := range got {
			if strings.HasSuffix(name, ".gz") {
				var buf bytes.Buffer
				zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
				zw.Write(b)
				zw.Close()
				b = buf.Bytes()
			}
			if err := os.WriteFile(filepath.Join(wantDir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	entries, err := os.ReadDir(wantDir)
	if err != nil {
		t.Fatalf("%v (run go test -update to create the goldens)", err)
	}
	want := map[string][]byte{}
	for _, ent := range entries {
		b, err := os.ReadFile(filepath.Join(wantDir, ent.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(ent.Name(), ".gz") {
			b = gunzip(t, b)
		}
		want[ent.Name()] = b
	}
	for name, w := range want {
		g, ok := got[name]
		if !ok {
			t.Errorf("missing output %s", name)
			continue
		}
		if !bytes.Equal(g, w) {
			t.Errorf("%s differs from the golden file:\n%s", name, diffLines(w, g))
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("unexpected output %s:\n%.2000s", name, got[name])
		}
	}
}

// diffLines reports the first differing lines, with line numbers.
func diffLines(want, got []byte) string {
	wl, gl := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(wl), len(gl)) && shown < 10; i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			b.WriteString("line " + strconv.Itoa(i+1) + ":\n  want " + w + "\n  got  " + g + "\n")
			shown++
		}
	}
	return b.String()
}

// TestDeterministicAndIdempotent builds the hostile tree, copies it with its
// mtimes elsewhere and builds the copy: the sitemaps must be byte-identical.
// A second build of the same tree must rewrite nothing.
func TestDeterministicAndIdempotent(t *testing.T) {
	dir := "testdata/golden/hostile"
	tmp := t.TempDir()
	a, b := filepath.Join(tmp, "a", "root"), filepath.Join(tmp, "b", "root")
	materialize(t, filepath.Join(dir, "tree.txt"), a)
	os.MkdirAll(filepath.Dir(b), 0o755)
	if out, err := exec.Command("cp", "-a", a, b).CombinedOutput(); err != nil {
		t.Fatalf("cp -a: %v: %s", err, out)
	}
	cfgA, eA, _ := caseEngine(t, dir, a)
	mustBuild(t, eA)
	before := statAll(t, cfgA, a)

	rep := mustBuild(t, eA)
	if len(rep.Written) != 0 || len(rep.Removed) != 0 {
		t.Errorf("second build wrote %v and removed %v", rep.Written, rep.Removed)
	}
	if rep.Unchanged == 0 {
		t.Error("second build reported no unchanged files")
	}
	after := statAll(t, cfgA, a)
	for name, st := range before {
		if st2, ok := after[name]; !ok || !os.SameFile(st, st2) || !st.ModTime().Equal(st2.ModTime()) {
			t.Errorf("second build replaced %s", name)
		}
	}

	// A fresh engine on the same tree (a restart) rewrites nothing either.
	eA2, _ := newEngine(t, cfgA)
	if rep := mustBuild(t, eA2); len(rep.Written) != 0 || len(rep.Removed) != 0 {
		t.Errorf("build after restart wrote %v and removed %v", rep.Written, rep.Removed)
	}

	// The copy (made with cp -a before any build, so mtimes and symlinks
	// are kept): the sitemaps, though not the index, whose lastmods are the
	// sitemaps' own mtimes, are byte-identical.
	cfgB, eB, _ := caseEngine(t, dir, b)
	mustBuild(t, eB)
	outA, outB := outputs(t, cfgA, a), outputs(t, cfgB, b)
	if len(outA) != len(outB) {
		t.Errorf("%d outputs in one place, %d in the other", len(outA), len(outB))
	}
	for name, bytesA := range outA {
		if outname.IsPart(name, cfgA.IndexName) {
			continue
		}
		if !bytes.Equal(bytesA, outB[name]) {
			t.Errorf("%s differs between two builds of the same tree", name)
		}
	}
}

// caseEngine loads a golden case's config for a tree at root.
func caseEngine(t *testing.T, dir, root string) (*config.Config, *Engine, *observer.ObservedLogs) {
	t.Helper()
	cfg := loadConfig(t, filepath.Join(dir, "config.yaml"), root, "")
	e, logs := newEngine(t, cfg)
	return cfg, e, logs
}

func statAll(t *testing.T, cfg *config.Config, dir string) map[string]os.FileInfo {
	t.Helper()
	out := map[string]os.FileInfo{}
	for name := range outputs(t, cfg, dir) {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		out[name] = st
	}
	return out
}
