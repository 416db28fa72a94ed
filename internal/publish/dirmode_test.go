package publish

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestDirModeFor(t *testing.T) {
	for m, want := range map[fs.FileMode]fs.FileMode{
		0o644: 0o755, 0o640: 0o750, 0o600: 0o700, 0o444: 0o555, 0o664: 0o775, 0o604: 0o705,
	} {
		if got := DirModeFor(m); got != want {
			t.Errorf("DirModeFor(%#o) = %#o, want %#o", m, got, want)
		}
	}
}

// TestCreatedDirsIgnoreUmask: directories CreateDirs makes get the mode
// the web server needs whatever the umask (under 077 Mkdir alone gives
// 0700, and nginx cannot read the sitemaps inside); a setgid bit they
// inherit is kept; existing directories are not touched. The umask is
// process-wide: this test must not run in parallel with others.
func TestCreatedDirsIgnoreUmask(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)

	for _, tc := range []struct {
		file, dir fs.FileMode
	}{{0o644, 0o755}, {0o640, 0o750}} {
		out := t.TempDir()
		os.Chmod(out, 0o755)
		os.Mkdir(filepath.Join(out, "kept"), 0o711)
		os.Chmod(filepath.Join(out, "kept"), 0o711)
		os.Mkdir(filepath.Join(out, "sgid"), 0o755)
		os.Chmod(filepath.Join(out, "sgid"), 0o755|fs.ModeSetgid)
		p := open(t, out, Options{Mode: tc.file, CreateDirs: true})
		put(t, p, map[string]string{
			"a/b/c/sitemap.xml":  "MINE 1",
			"kept/d/sitemap.xml": "MINE 2",
			"sgid/e/sitemap.xml": "MINE 3",
		})
		for dir, want := range map[string]fs.FileMode{
			"a": tc.dir, "a/b": tc.dir, "a/b/c": tc.dir,
			"kept": 0o711, "kept/d": tc.dir,
			"sgid/e": tc.dir | fs.ModeSetgid,
		} {
			st, err := os.Stat(filepath.Join(out, dir))
			if err != nil {
				t.Fatal(err)
			}
			if got := st.Mode() & (fs.ModePerm | fs.ModeSetgid); got != want {
				t.Errorf("file_mode %#o: %s is %v, want %v", tc.file, dir, got, want)
			}
		}
		st, _ := os.Stat(filepath.Join(out, "a/b/c/sitemap.xml"))
		if st.Mode().Perm() != tc.file {
			t.Errorf("file_mode %#o: sitemap is %v", tc.file, st.Mode())
		}
	}
}

// TestCreateDirsMeetsAFile: a file where a directory should be fails the
// Put, naming it.
func TestCreateDirsMeetsAFile(t *testing.T) {
	out := t.TempDir()
	os.WriteFile(filepath.Join(out, "a"), nil, 0o644)
	p := open(t, out, Options{CreateDirs: true})
	if _, err := p.Begin().Put("a/b/sitemap.xml", []byte("MINE")); err == nil {
		t.Fatal("Put through a file succeeded")
	}
}

// TestSteps: the step count grows with every file written and removed.
func TestSteps(t *testing.T) {
	p := open(t, t.TempDir(), Options{})
	n := p.Steps()
	put(t, p, map[string]string{"a.xml": "MINE a"})
	if p.Steps() <= n {
		t.Errorf("steps %d after a put, was %d", p.Steps(), n)
	}
	n = p.Steps()
	if _, err := p.Remove("a.xml"); err != nil {
		t.Fatal(err)
	}
	if p.Steps() <= n {
		t.Errorf("steps %d after a remove, was %d", p.Steps(), n)
	}
}
