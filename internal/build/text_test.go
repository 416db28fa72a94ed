package build

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sitemapd/sitemapd/internal/publish"
	"github.com/sitemapd/sitemapd/internal/textrecord"
)

// TestTextSitemapsOwnership checks that sitemapd replaces and removes only
// the text sitemaps its record lists with their content's hash: a
// hand-made sitemap.txt, there before or put in place of one of ours, is
// reported and left alone, and the XML sitemap beside it is written all
// the same.
func TestTextSitemapsOwnership(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	for _, p := range []string{"index.html", "a/one.html", "a/two.html", "b/three.html"} {
		mustWrite(t, filepath.Join(root, p), defaultMTime)
	}
	handMade := "https://static.test/b/my-own-list.html\n"
	writeFile(t, filepath.Join(root, "b/sitemap.txt"), handMade, defaultMTime)
	read := func(rel string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	engine := func(formats string, opts ...Option) *Engine {
		cfg := loadConfig(t, baseConfig, root, "formats: "+formats+"\n")
		e, _ := newEngine(t, cfg, opts...)
		return e
	}
	wantForeign := func(err error, rel string) {
		t.Helper()
		var fe *publish.ForeignError
		if !errors.As(err, &fe) || fe.Path != filepath.Join(root, rel) {
			t.Errorf("error %v; want one refusing %s", err, rel)
		}
	}

	e := engine("[xml, txt]", WithChanges())
	_, err := e.Build(context.Background())
	wantForeign(err, "b/sitemap.txt")
	if got := read("b/sitemap.txt"); got != handMade {
		t.Errorf("hand-made b/sitemap.txt overwritten: %q", got)
	}
	if !strings.Contains(read("b/sitemap.xml"), "b/three.html") {
		t.Error("b/sitemap.xml not written beside the hand-made text sitemap")
	}
	if got, want := read("a/sitemap.txt"), "https://static.test/a/one.html\nhttps://static.test/a/two.html\n"; got != want {
		t.Errorf("a/sitemap.txt = %q, want %q", got, want)
	}
	record := read(textrecord.Name)
	for _, want := range []string{"  a/sitemap.txt\n", "  sitemap.txt\n"} {
		if !strings.Contains(record, want) {
			t.Errorf("record lacks %q:\n%s", want, record)
		}
	}
	if strings.Contains(record, "b/sitemap.txt") {
		t.Errorf("record claims the hand-made file:\n%s", record)
	}

	// An update rewrites ours.
	os.Remove(filepath.Join(root, "a/two.html"))
	if _, err := e.Update(context.Background(), []string{"a"}, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := read("a/sitemap.txt"), "https://static.test/a/one.html\n"; got != want {
		t.Errorf("after an update a/sitemap.txt = %q, want %q", got, want)
	}

	// One of ours edited by hand is no longer ours.
	edited := "https://static.test/a/one.html\nhttps://static.test/a/extra.html\n"
	writeFile(t, filepath.Join(root, "a/sitemap.txt"), edited, defaultMTime)
	mustWrite(t, filepath.Join(root, "a/four.html"), defaultMTime)
	_, err = e.Update(context.Background(), []string{"a"}, nil)
	wantForeign(err, "a/sitemap.txt")
	if got := read("a/sitemap.txt"); got != edited {
		t.Errorf("edited a/sitemap.txt overwritten: %q", got)
	}

	// Text sitemaps turned off: ours go, the others stay, and so does the
	// record, emptied.
	os.Remove(filepath.Join(root, "a/sitemap.txt"))
	_, err = engine("[xml, txt]").Build(context.Background())
	wantForeign(err, "b/sitemap.txt")
	if _, err := os.Stat(filepath.Join(root, "a/sitemap.txt")); err != nil {
		t.Fatal("a/sitemap.txt not written again once the edited one was gone")
	}
	e = engine("[xml]")
	_, err = e.Build(context.Background())
	if err != nil {
		t.Fatalf("build with text sitemaps off: %v", err)
	}
	for _, rel := range []string{"sitemap.txt", "a/sitemap.txt"} {
		if _, err := os.Stat(filepath.Join(root, rel)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still there with text sitemaps off (%v)", rel, err)
		}
	}
	if got := read("b/sitemap.txt"); got != handMade {
		t.Errorf("hand-made b/sitemap.txt touched: %q", got)
	}
	if got := read(textrecord.Name); !textrecord.IsRecord([]byte(got)) || strings.Count(got, "\n") != 1 {
		t.Errorf("record not emptied:\n%s", got)
	}
}

// TestTextRecordMidWrite checks the record of a publish interrupted
// between writing the record and committing the files (the record lists
// the old and the new hash): either content is taken for ours, and the
// next publish keeps only the hash of what is on disk.
func TestTextRecordMidWrite(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	mustWrite(t, filepath.Join(root, "a.html"), defaultMTime)
	cfg := loadConfig(t, baseConfig, root, "formats: [xml, txt]\n")
	e, _ := newEngine(t, cfg)
	mustBuild(t, e)
	old := textHash([]byte("https://static.test/a.html\n"))
	next := textHash([]byte("https://static.test/a.html\nhttps://static.test/b.html\n"))
	// As Record.Prepare leaves it when the process dies before the commit.
	rec := textRecordHeader + old + "  sitemap.txt\n" + next + "  sitemap.txt\n"
	if err := os.WriteFile(filepath.Join(root, textrecord.Name), []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(root, "c.html"), defaultMTime)
	e, _ = newEngine(t, cfg)
	mustBuild(t, e)
	b, _ := os.ReadFile(filepath.Join(root, textrecord.Name))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	now := textHash([]byte("https://static.test/a.html\nhttps://static.test/c.html\n"))
	if !slices.Equal(lines[1:], []string{now + "  sitemap.txt"}) {
		t.Errorf("record after the next publish:\n%s\nwant only %s", b, now)
	}
}

// TestTextSitemapMovesWithItsDirectory checks that a directory moved
// within the site brings text sitemaps that are still taken for ours: they
// are rewritten for their new place, and the record follows, whether the
// daemon sees the move in one publish or, its two halves in two batches,
// the old place gone first (its text sitemap already moved away).
func TestTextSitemapMovesWithItsDirectory(t *testing.T) {
	for _, tc := range []struct {
		name    string
		batches [][]string
	}{
		{"one publish", [][]string{{"a", "c"}}},
		{"gone, then met", [][]string{{"a"}, {"c"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "root")
			mustWrite(t, filepath.Join(root, "a/one.html"), defaultMTime)
			// The site's one page gone for a publish: the guard would hold it.
			cfg := loadConfig(t, baseConfig, root, "formats: [xml, txt]\nshrink_guard: false\n")
			e, _ := newEngine(t, cfg, WithChanges())
			mustBuild(t, e)
			if err := os.Rename(filepath.Join(root, "a"), filepath.Join(root, "c")); err != nil {
				t.Fatal(err)
			}
			for _, dirty := range tc.batches {
				if _, err := e.Update(context.Background(), dirty, nil); err != nil {
					t.Fatalf("update of %q after the move: %v", dirty, err)
				}
			}
			b, err := os.ReadFile(filepath.Join(root, "c/sitemap.txt"))
			if err != nil || string(b) != "https://static.test/c/one.html\n" {
				t.Errorf("c/sitemap.txt = %q (%v), want the page at its new URL", b, err)
			}
			rec, _ := os.ReadFile(filepath.Join(root, textrecord.Name))
			if !strings.Contains(string(rec), textHash(b)+"  c/sitemap.txt\n") {
				t.Errorf("record:\n%s\nwant c/sitemap.txt with its hash", rec)
			}
			// A full build keeps the record to the files there are.
			mustBuild(t, e)
			rec, _ = os.ReadFile(filepath.Join(root, textrecord.Name))
			if want := textHash(b) + "  c/sitemap.txt\n"; string(rec) != textRecordHeader+want {
				t.Errorf("record after a full build:\n%s\nwant:\n%s", rec, textRecordHeader+want)
			}
		})
	}
}

// TestTextRecordUnwritable checks that text sitemaps are not written when
// their record cannot be: they would not be known as sitemapd's after.
// The XML sitemaps are written all the same, and the text ones follow once
// the record can be written again.
func TestTextRecordUnwritable(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	mustWrite(t, filepath.Join(root, "a.html"), defaultMTime)
	cfg := loadConfig(t, baseConfig, root, "formats: [xml, txt]\n")
	e, _ := newEngine(t, cfg)
	mustBuild(t, e)
	record := filepath.Join(root, textrecord.Name)
	os.Remove(record)
	os.Mkdir(record, 0o755) // in the way: the record cannot be written
	mustWrite(t, filepath.Join(root, "b.html"), defaultMTime)
	_, err := e.Build(context.Background())
	if err == nil || !strings.Contains(err.Error(), "text sitemaps not written") {
		t.Errorf("error %v; want text sitemaps not written", err)
	}
	read := func(rel string) string {
		b, _ := os.ReadFile(filepath.Join(root, rel))
		return string(b)
	}
	if got := read("sitemap.txt"); got != "https://static.test/a.html\n" {
		t.Errorf("sitemap.txt written without its record: %q", got)
	}
	if !strings.Contains(read("sitemap.xml"), "b.html") {
		t.Error("sitemap.xml not written")
	}
	os.Remove(record)
	mustBuild(t, e)
	if got := read("sitemap.txt"); got != "https://static.test/a.html\nhttps://static.test/b.html\n" {
		t.Errorf("sitemap.txt once the record can be written: %q", got)
	}
	if !strings.Contains(read(textrecord.Name), "  sitemap.txt\n") {
		t.Errorf("record:\n%s", read(textrecord.Name))
	}
}

// TestTextRecordStrangeNames keeps text sitemaps in directories whose
// names hold a line break or a backslash: the record escapes them as
// sha256sum does (and sha256sum -c reads it, where installed), and the
// next process knows the files for its own.
func TestTextRecordStrangeNames(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	for _, d := range []string{"line\nbreak", `back\slash`, "plain"} {
		mustWrite(t, filepath.Join(root, d, "p.html"), defaultMTime)
	}
	cfg := loadConfig(t, baseConfig, root, "formats: [xml, txt]\n")
	e, _ := newEngine(t, cfg)
	mustBuild(t, e)
	record, err := os.ReadFile(filepath.Join(root, textrecord.Name))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(record), "  line\\nbreak/sitemap.txt\n") || !strings.Contains(string(record), `  back\\slash/sitemap.txt`) {
		t.Errorf("names not escaped:\n%s", record)
	}
	for _, d := range []string{"line\nbreak", `back\slash`} {
		mustWrite(t, filepath.Join(root, d, "q.html"), defaultMTime)
	}
	e, _ = newEngine(t, cfg) // a new process: ownership from the record alone
	mustBuild(t, e)
	if b, _ := os.ReadFile(filepath.Join(root, "line\nbreak", "sitemap.txt")); !strings.Contains(string(b), "q.html") {
		t.Errorf("text sitemap not rewritten:\n%s", b)
	}
	if _, err := exec.LookPath("sha256sum"); err == nil {
		cmd := exec.Command("sha256sum", "-c", "--quiet", textrecord.Name)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("sha256sum -c: %v\n%s", err, out)
		}
	}
}

// textRecordHeader is the record's first line, as users' sha256sum -c
// reads it (a comment).
const textRecordHeader = "# Text sitemaps written by sitemapd, with their SHA-256: the files it may replace or remove.\n"

// textHash is the SHA-256 of a text sitemap's content, as sha256sum writes
// it.
func textHash(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
