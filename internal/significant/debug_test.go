package significant

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDebugDump learns a model from a built site (SIG_SITE, a directory)
// and prints one page's blocks (SIG_PAGE, its path in the site) with
// their verdicts: for working on the learner, skipped otherwise.
func TestDebugDump(t *testing.T) {
	dir, page := os.Getenv("SIG_SITE"), os.Getenv("SIG_PAGE")
	if dir == "" || page == "" {
		t.Skip("SIG_SITE and SIG_PAGE not set")
	}
	l := NewLearner(nil)
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".html") {
			return err
		}
		b, _ := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		p, _ := Read(b, Options{URL: "/" + rel})
		l.Add(p)
		return nil
	})
	m := l.Model()
	src, err := os.ReadFile(filepath.Join(dir, page))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	opts := Options{URL: "/" + page}
	opts.trace = func(kind uint8, n int32, what string) {
		lines = append(lines, fmt.Sprintf("%d\t%d\t%q", kind, n, what))
	}
	p, _ := Read(src, opts)
	sp := new([]uint64)
	ks := append([]uint64(nil), keys(p, &m.tokens, nil)...)
	st := m.judge(p, sp)
	for i, n := range p.nodes {
		fmt.Printf("node %d parent %d tag %d flags %b verdict %d root %v tmpl %v seen %v\n", i, n.parent, n.tag, n.flags, st[i], m.roots.has(ks[i]), m.templates.has(ks[i]), m.seen.has(ks[i]))
	}
	fmt.Println(strings.Join(lines, "\n"))
}
