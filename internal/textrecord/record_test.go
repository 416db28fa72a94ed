package textrecord

import (
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/zap"

	"github.com/sitemapd/sitemapd/internal/publish"
)

// write publishes a text sitemap as the engine does: staged, recorded,
// committed, settled, saved.
func write(t *testing.T, r *Record, pub *publish.Publisher, name, content string) {
	t.Helper()
	os.MkdirAll(filepath.Join(pub.Dir(), filepath.Dir(name)), 0o755) // the group's directory
	b := pub.Begin()
	if _, err := b.Put(name, []byte(content)); err != nil {
		t.Fatal(err)
	}
	r.Stage(name, []byte(content), true)
	if _, err := r.Prepare(); err != nil {
		t.Fatal(err)
	}
	failed, err := b.Commit()
	if err != nil || len(failed) > 0 {
		t.Fatal(err, failed)
	}
	r.Settle(failed)
	if err := r.Save(); err != nil {
		t.Fatal(err)
	}
}

// TestMovedCopyStaysOurs: a directory moved away carries its text sitemap;
// when a new directory of the old name gets a text sitemap of its own
// first, the moved copy is still known for sitemapd's, until a full
// publish has settled; a file sitemapd never wrote is not.
func TestMovedCopyStaysOurs(t *testing.T) {
	dir := t.TempDir()
	pub, err := publish.Open(dir, publish.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := Load(pub, zap.NewNop())
	write(t, r, pub, "café/sitemap.txt", "https://x.test/café/a.html\n")
	if err := os.Rename(filepath.Join(dir, "café"), filepath.Join(dir, "moved")); err != nil {
		t.Fatal(err)
	}
	write(t, r, pub, "café/sitemap.txt", "https://x.test/café/new.html\n")
	os.WriteFile(filepath.Join(dir, "moved", "theirs.txt"), []byte("https://x.test/x\n"), 0o644)
	if !r.Owns("moved/sitemap.txt") {
		t.Error("the moved copy is not known for sitemapd's once its old name was written again")
	}
	if r.Owns("moved/theirs.txt") {
		t.Error("a file sitemapd never wrote is taken for its own")
	}
	// On disk, the record lists what is there under each name.
	if got := Load(pub, zap.NewNop()); got.Owns("moved/sitemap.txt") || !got.Owns("café/sitemap.txt") {
		t.Errorf("record on disk: owns the moved copy %v, the new file %v", got.Owns("moved/sitemap.txt"), got.Owns("café/sitemap.txt"))
	}
	r.Settled()
	if r.Owns("moved/sitemap.txt") {
		t.Error("the moved copy is still known after a full publish settled")
	}
}
