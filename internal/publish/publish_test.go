package publish

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

var marker = []byte("MINE")

func owned(_ string, head []byte) bool { return bytes.HasPrefix(head, marker) }

func open(t *testing.T, dir string, opts Options) *Publisher {
	t.Helper()
	if opts.Owned == nil {
		opts.Owned = owned
	}
	p, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func put(t *testing.T, p *Publisher, files map[string]string) []string {
	t.Helper()
	b := p.Begin()
	var changed []string
	for name, data := range files {
		ok, err := b.Put(name, []byte(data))
		if err != nil {
			t.Fatalf("Put %s: %v", name, err)
		}
		if ok {
			changed = append(changed, name)
		}
	}
	if failed, err := b.Commit(); err != nil || failed != nil {
		t.Fatal(failed, err)
	}
	return changed
}

func noTemps(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && IsTemp(d.Name()) {
			t.Errorf("temp file left behind: %s", p)
		}
		return nil
	})
}

func TestPutWritesAtomicallyWithMode(t *testing.T) {
	for _, mode := range []SyncMode{SyncAuto, SyncBatch, SyncPerFile} {
		t.Run(fmt.Sprint(mode), func(t *testing.T) {
			old := syscall.Umask(0o077) // a hostile umask must not leave files unreadable
			defer syscall.Umask(old)
			dir := t.TempDir()
			p := open(t, dir, Options{Mode: 0o644, Sync: mode, CreateDirs: true})
			put(t, p, map[string]string{"a/b/sitemap.xml": "MINE 1", "sitemap.xml": "MINE 2"})
			for name, want := range map[string]string{"a/b/sitemap.xml": "MINE 1", "sitemap.xml": "MINE 2"} {
				got, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil || string(got) != want {
					t.Errorf("%s = %q, %v", name, got, err)
				}
				st, _ := os.Stat(filepath.Join(dir, name))
				if st.Mode().Perm() != 0o644 {
					t.Errorf("%s mode = %v, want 0644 under umask 077", name, st.Mode().Perm())
				}
			}
			noTemps(t, dir)
		})
	}
}

func TestUnchangedIsNotRewritten(t *testing.T) {
	dir := t.TempDir()
	p := open(t, dir, Options{})
	put(t, p, map[string]string{"s.xml": "MINE same"})
	path := filepath.Join(dir, "s.xml")
	past := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(path, past, past); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(path)
	if changed := put(t, p, map[string]string{"s.xml": "MINE same"}); len(changed) != 0 {
		t.Errorf("identical bytes were staged: %v", changed)
	}
	after, _ := os.Stat(path)
	if !os.SameFile(before, after) || !after.ModTime().Equal(past) {
		t.Error("identical bytes replaced the file (inode or mtime changed)")
	}
	// Same size, different bytes: rewritten.
	if changed := put(t, p, map[string]string{"s.xml": "MINE diff"}); len(changed) != 1 {
		t.Error("changed bytes of equal length were not written")
	}
	// Past the head and the first block compared (64 KiB): the bytes
	// after them count too.
	long := "MINE " + strings.Repeat("x", 200<<10)
	put(t, p, map[string]string{"l.xml": long})
	for _, at := range []int{600, 64<<10 + 600, len(long) - 1} {
		b := []byte(long)
		b[at] = 'y'
		if changed := put(t, p, map[string]string{"l.xml": string(b)}); len(changed) != 1 {
			t.Errorf("a byte changed at %d of %d was not written", at, len(long))
		}
		if changed := put(t, p, map[string]string{"l.xml": long}); len(changed) != 1 {
			t.Errorf("the byte changed back at %d was not written", at)
		}
	}
	if changed := put(t, p, map[string]string{"l.xml": long}); len(changed) != 0 {
		t.Errorf("identical long bytes were staged: %v", changed)
	}
}

func TestRefusesForeignFiles(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "passwd")
	os.WriteFile(outside, []byte("root:x:0:0"), 0o644)
	os.WriteFile(filepath.Join(dir, "hand.xml"), []byte("<urlset>hand-written</urlset>"), 0o644)
	os.Symlink(outside, filepath.Join(dir, "link.xml"))
	os.Mkdir(filepath.Join(dir, "dir.xml"), 0o755)
	p := open(t, dir, Options{})
	for _, name := range []string{"hand.xml", "link.xml", "dir.xml"} {
		b := p.Begin()
		_, err := b.Put(name, []byte("MINE new"))
		var fe *ForeignError
		if !errors.As(err, &fe) || fe.Path != filepath.Join(dir, name) {
			t.Errorf("Put %s: err = %v, want a ForeignError naming it", name, err)
		}
		if b.Len() != 0 {
			t.Errorf("Put %s staged a write", name)
		}
		if _, err := p.Remove(name); !errors.As(err, &fe) {
			t.Errorf("Remove %s: err = %v, want a ForeignError", name, err)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "hand.xml")); string(got) != "<urlset>hand-written</urlset>" {
		t.Errorf("foreign file changed: %q", got)
	}
	if got, _ := os.ReadFile(outside); string(got) != "root:x:0:0" {
		t.Errorf("symlink target changed: %q", got)
	}
	noTemps(t, dir)
}

func TestRemove(t *testing.T) {
	dir := t.TempDir()
	p := open(t, dir, Options{})
	put(t, p, map[string]string{"s.xml": "MINE"})
	if removed, err := p.Remove("s.xml"); err != nil || !removed {
		t.Fatalf("Remove = %v, %v", removed, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "s.xml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("file still there: %v", err)
	}
	if removed, err := p.Remove("s.xml"); err != nil || removed {
		t.Errorf("removing a missing file: %v, %v", removed, err)
	}
}

func TestUnwritableDirectory(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "ro")
	os.Mkdir(sub, 0o755)
	unwritable(t, sub)
	p := open(t, dir, Options{})
	_, err := p.Begin().Put("ro/s.xml", []byte("MINE"))
	if err == nil || !strings.Contains(err.Error(), sub) || !errors.Is(err, os.ErrPermission) {
		t.Errorf("err = %v, want a permission error naming %s", err, sub)
	}
}

// TestMissingDirectoryIsNotCreated: without CreateDirs, a Put into a
// directory that is gone fails, and the directory stays gone.
func TestMissingDirectoryIsNotCreated(t *testing.T) {
	dir := t.TempDir()
	p := open(t, dir, Options{})
	_, err := p.Begin().Put("gone/s.xml", []byte("MINE"))
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), filepath.Join(dir, "gone")) {
		t.Errorf("err = %v, want a not-exist error naming the directory", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "gone")); !errors.Is(err, os.ErrNotExist) {
		t.Error("Put created the missing directory")
	}
}

// TestCommitFailsFilesAlone moves a directory away between Put and Commit,
// as a deploy can while a publish is under way: that directory's file fails
// alone, named, and every other file of the batch lands.
func TestCommitFailsFilesAlone(t *testing.T) {
	for _, mode := range []SyncMode{SyncBatch, SyncPerFile} {
		t.Run(fmt.Sprint(mode), func(t *testing.T) {
			dir := t.TempDir()
			for _, d := range []string{"a", "b", "c"} {
				os.Mkdir(filepath.Join(dir, d), 0o755)
			}
			p := open(t, dir, Options{Sync: mode})
			b := p.Begin()
			for _, name := range []string{"a/s.xml", "b/s.xml", "c/s.xml"} {
				if _, err := b.Put(name, []byte("MINE "+name)); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Rename(filepath.Join(dir, "b"), filepath.Join(dir, "moved")); err != nil {
				t.Fatal(err)
			}
			failed, err := b.Commit()
			if err != nil {
				t.Errorf("batch error: %v", err)
			}
			if len(failed) != 1 || !errors.Is(failed["b/s.xml"], os.ErrNotExist) {
				t.Errorf("failed = %v, want only b/s.xml, not found", failed)
			}
			for _, name := range []string{"a/s.xml", "c/s.xml"} {
				if got, err := os.ReadFile(filepath.Join(dir, name)); string(got) != "MINE "+name {
					t.Errorf("%s = %q, %v: the other files must land", name, got, err)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "b")); !errors.Is(err, os.ErrNotExist) {
				t.Error("the moved directory came back")
			}
		})
	}
}

func TestAbortAndStaleTemps(t *testing.T) {
	dir := t.TempDir()
	p := open(t, dir, Options{})
	b := p.Begin()
	if _, err := b.Put("s.xml", []byte("MINE")); err != nil {
		t.Fatal(err)
	}
	b.Abort()
	noTemps(t, dir)
	if _, err := os.Stat(filepath.Join(dir, "s.xml")); !errors.Is(err, os.ErrNotExist) {
		t.Error("aborted write is visible")
	}

	// A temp file left by a crash is removed; one younger than the cut-off is not.
	stale := filepath.Join(dir, TempPrefix+"dead"+TempSuffix)
	os.WriteFile(stale, []byte("x"), 0o600)
	if err := p.RemoveTemp(filepath.Base(stale), time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); err != nil {
		t.Error("a temp file newer than the cut-off was removed")
	}
	if err := p.RemoveTemp(filepath.Base(stale), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Error("stale temp file was not removed")
	}
	if err := p.RemoveTemp("sitemap.xml", time.Now()); err == nil {
		t.Error("RemoveTemp accepted a name that is not a temp file")
	}
}

// TestDrop unstages one file of a batch: it is not written, the others are.
func TestDrop(t *testing.T) {
	dir := t.TempDir()
	p := open(t, dir, Options{})
	b := p.Begin()
	for _, n := range []string{"a.xml", "b.xml"} {
		if _, err := b.Put(n, []byte("MINE "+n)); err != nil {
			t.Fatal(err)
		}
	}
	if !b.Drop("a.xml") || b.Drop("a.xml") || b.Drop("c.xml") {
		t.Error("Drop reports wrongly what was staged")
	}
	if failed, err := b.Commit(); err != nil || len(failed) > 0 {
		t.Fatal(failed, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "a.xml")); !errors.Is(err, os.ErrNotExist) {
		t.Error("a dropped file was written")
	}
	if _, err := os.Stat(filepath.Join(dir, "b.xml")); err != nil {
		t.Error("the file not dropped was not written")
	}
	noTemps(t, dir)
}

// TestReadersNeverSeePartialFiles re-reads a file while it is replaced many
// times: every read must be one complete version.
func TestReadersNeverSeePartialFiles(t *testing.T) {
	dir := t.TempDir()
	p := open(t, dir, Options{})
	version := func(i int) string { return fmt.Sprintf("MINE %d %s", i, strings.Repeat("x", 64<<10+i)) }
	put(t, p, map[string]string{"s.xml": version(0)})
	done := make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		defer close(errc)
		for reads := 0; ; reads++ {
			select {
			case <-done:
				return
			default:
			}
			got, err := os.ReadFile(filepath.Join(dir, "s.xml"))
			if err != nil {
				errc <- err
				return
			}
			var i int
			if _, err := fmt.Sscanf(string(got), "MINE %d", &i); err != nil || string(got) != version(i) {
				errc <- fmt.Errorf("read %d: partial or mixed content (%d bytes)", reads, len(got))
				return
			}
		}
	}()
	for i := 1; i <= 200; i++ {
		put(t, p, map[string]string{"s.xml": version(i)})
	}
	close(done)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

// BenchmarkCommit compares the cost of making a batch of files durable with
// one fsync per file against two filesystem syncs per batch, and against no
// syncing at all as the baseline. Run it on the
// filesystem that will hold the sitemaps (TMPDIR=/var/www/... go test).
func BenchmarkCommit(b *testing.B) {
	for _, files := range []int{10, 100} {
		for _, mode := range []struct {
			name string
			m    SyncMode
		}{{"none", SyncNone}, {"per-file", SyncPerFile}, {"batch", SyncBatch}} {
			b.Run(fmt.Sprintf("files=%d/%s", files, mode.name), func(b *testing.B) {
				dir := b.TempDir()
				p, err := Open(dir, Options{Owned: owned, Sync: mode.m, CreateDirs: true})
				if err != nil {
					b.Fatal(err)
				}
				defer p.Close()
				data := bytes.Repeat([]byte("MINE sitemap "), 1000)
				i := 0
				for b.Loop() {
					i++
					batch := p.Begin()
					for f := range files {
						data[len(data)-1] = byte(i)
						if _, err := batch.Put(fmt.Sprintf("d%d/sitemap.xml", f), data); err != nil {
							b.Fatal(err)
						}
					}
					if failed, err := batch.Commit(); err != nil || failed != nil {
						b.Fatal(failed, err)
					}
				}
			})
		}
	}
}
