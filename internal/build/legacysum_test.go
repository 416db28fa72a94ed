package build

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sitemapd/sitemapd/internal/pagestore"
)

// legacyFixture is a page store written by sitemapd at 1e0ea74 (before
// pages.lastmod: significant, when every page of over 8 KiB was hashed
// as a stream, the bytes after its head twice) for legacyPages, in hex.
// To write it again, build that commit's cmd/sitemapd and run
//
//	SITEMAPD_LEGACY_BIN=/path/to/it go test ./internal/build -run TestLegacySums
const legacyFixture = "testdata/legacy-sums/pages.hex"

// legacyRoot is the document root the fixture was written for: a store is
// kept under its configured root's name (pagestore.KeysFor), so the root
// is named the same in every run, as the directory the test runs in.
const legacyRoot = "/proc/self/cwd/root"

// legacyPages are pages either side of the sizes that mattered: the
// 8 KiB under which a page was read whole, and io.Copy's 32 KiB pieces;
// with a head and without one (no head reader took a piece first).
func legacyPages() map[string]string {
	pages := map[string]string{}
	for i, n := range []int{2, 9, 31, 33, 70, 130} {
		body := strings.Repeat(fmt.Sprintf("<p>Sentence %d of a page of %d KiB.</p>\n", i, n), n*1024/40)
		pages[fmt.Sprintf("docs/p%d.html", n)] = "<!doctype html><html><head><title>Page " + fmt.Sprint(n) +
			"</title><meta name=\"description\" content=\"d\"></head><body>" + body + "</body></html>\n"
		pages[fmt.Sprintf("raw/r%d.html", n)] = body
	}
	return pages
}

func writeLegacyPages(t *testing.T, root string, mt time.Time) {
	for p, s := range legacyPages() {
		writeFile(t, filepath.Join(root, p), s, mt)
	}
}

// TestLegacySums: a page store written before v0.3.2 holds, for each page
// of over 8 KiB, its bytes' hash as the old stream made it. The same
// bytes redeployed (new mtimes) keep every lastmod under either rule, and
// bytes that did change still move theirs. The store is the old binary's
// (legacyFixture), its verdicts not this code's.
func TestLegacySums(t *testing.T) {
	if bin := os.Getenv("SITEMAPD_LEGACY_BIN"); bin != "" {
		writeLegacyFixture(t, bin)
	}
	fixture, err := os.ReadFile(legacyFixture)
	if err != nil {
		t.Fatal(err)
	}
	base, err := filepath.Abs(baseConfig) // the tests run elsewhere
	if err != nil {
		t.Fatal(err)
	}
	var hexText []byte
	for line := range bytes.Lines(fixture) {
		if !bytes.HasPrefix(line, []byte("#")) {
			hexText = append(hexText, bytes.TrimSpace(line)...)
		}
	}
	store, err := hex.DecodeString(string(hexText))
	if err != nil {
		t.Fatal(err)
	}
	for _, rule := range []string{"content", "significant"} {
		t.Run(rule, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			root, state := filepath.Join(dir, "root"), t.TempDir()
			writeLegacyPages(t, root, defaultMTime)
			if err := os.WriteFile(filepath.Join(state, pagestore.Name), store, 0o600); err != nil {
				t.Fatal(err)
			}
			// A redeploy of the same bytes, and of one page changed.
			later := defaultMTime.Add(time.Hour)
			for p := range legacyPages() {
				rewrite(t, filepath.Join(root, p), later, true)
			}
			changed := "docs/p70.html"
			old, _ := os.ReadFile(filepath.Join(root, changed))
			writeFile(t, filepath.Join(root, changed), strings.Replace(string(old), "Sentence", "A sentence", 1), later)

			cfg := loadConfig(t, base, legacyRoot, "state_dir: "+state+"\npages: {lastmod: "+rule+"}\n")
			e, _ := newEngine(t, cfg)
			rep := mustBuild(t, e)
			got := lastmods(t, filepath.Join(root, "docs", "sitemap.xml"))
			for loc, lm := range lastmods(t, filepath.Join(root, "raw", "sitemap.xml")) {
				got[loc] = lm
			}
			if len(got) != len(legacyPages()) {
				t.Fatalf("%d URLs listed, want %d: %v", len(got), len(legacyPages()), got)
			}
			for loc, lm := range got {
				want := w3c(defaultMTime)
				if strings.HasSuffix(loc, "/"+changed) {
					want = w3c(later)
				}
				if lm != want {
					t.Errorf("%s: lastmod %s, want %s", loc, lm, want)
				}
			}
			if moved := rep.Lastmods.MovedBytes + rep.Lastmods.Moved; moved != 1 {
				t.Errorf("%d lastmods moved (%d by bytes), want 1: %s", moved, rep.Lastmods.MovedBytes, changed)
			}
		})
	}
}

// writeLegacyFixture builds legacyPages with the old binary bin and
// keeps its page store as legacyFixture.
func writeLegacyFixture(t *testing.T, bin string) {
	dir := t.TempDir()
	root, state := filepath.Join(dir, "root"), filepath.Join(dir, "state")
	writeLegacyPages(t, root, defaultMTime)
	cfg := filepath.Join(dir, "sitemapd.yaml")
	if err := os.WriteFile(cfg, []byte("root: "+legacyRoot+"\nbase_url: https://static.test/\nstate_dir: "+state+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	build := exec.Command(bin, "build", "-config", cfg)
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, out)
	}
	b, err := os.ReadFile(filepath.Join(state, pagestore.Name))
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	text.WriteString("# A page store written by sitemapd at 1e0ea74 for legacyPages: see TestLegacySums.\n")
	h := hex.EncodeToString(b)
	for len(h) > 0 {
		n := min(len(h), 64)
		text.WriteString(h[:n] + "\n")
		h = h[n:]
	}
	if err := os.WriteFile(legacyFixture, []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
