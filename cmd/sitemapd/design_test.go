package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestDesignPackageOrder keeps docs/design.md's package table true: it
// says a package uses only those below it, and every non-test import of
// every package it lists must keep that order.
func TestDesignPackageOrder(t *testing.T) {
	const module = "github.com/sitemapd/sitemapd/"
	doc, err := os.ReadFile("../../docs/design.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `((?:cmd|internal)/[a-z/]+)` \\|")
	pos := map[string]int{}
	for i, m := range row.FindAllStringSubmatch(string(doc), -1) {
		pos[m[1]] = i
	}
	if len(pos) < 20 {
		t.Fatalf("found %d packages in docs/design.md's table; the table's shape changed?", len(pos))
	}
	for pkg, at := range pos {
		files, _ := filepath.Glob(filepath.Join("../..", pkg, "*.go"))
		if len(files) == 0 {
			t.Errorf("docs/design.md lists %s, which has no Go file", pkg)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range ast.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				dep, ours := strings.CutPrefix(path, module)
				if !ours {
					continue
				}
				if dat, listed := pos[dep]; !listed {
					t.Errorf("%s imports %s, which docs/design.md's table does not list", f, dep)
				} else if dat <= at {
					t.Errorf("%s imports %s, listed above it in docs/design.md's table", f, dep)
				}
			}
		}
	}
	// Every package is in the table (test and bench helpers aside).
	filepath.WalkDir("../../internal", func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel("../..", p)
		goFiles, _ := filepath.Glob(filepath.Join(p, "*.go"))
		helper := strings.HasSuffix(rel, "test") || strings.Contains(rel, "benchpage") || strings.Contains(rel, "testdata")
		if _, listed := pos[filepath.ToSlash(rel)]; len(goFiles) > 0 && !listed && !helper {
			t.Errorf("package %s is not in docs/design.md's table", rel)
		}
		return nil
	})
}
