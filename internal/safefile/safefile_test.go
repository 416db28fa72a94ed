package safefile

import (
	"bytes"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// hostile makes, in dir, one file of each kind a hostile user can plant and
// returns their paths by name. The target of the links is "victim", a
// regular file whose bytes the tests check afterwards.
func hostile(t *testing.T, dir string) map[string]string {
	t.Helper()
	p := func(n string) string { return filepath.Join(dir, n) }
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(p("victim"), []byte("precious\n"), 0o600))
	must(os.WriteFile(p("regular"), []byte("hello\n"), 0o644))
	must(os.Symlink(p("victim"), p("link-to-file")))
	must(os.Symlink("/dev/zero", p("link-to-device")))
	must(os.Symlink(p("nowhere"), p("dangling")))
	must(os.Symlink(p("loop-b"), p("loop-a")))
	must(os.Symlink(p("loop-a"), p("loop-b")))
	must(os.Mkdir(p("directory"), 0o755))
	must(os.Symlink(p("directory"), p("link-to-directory")))
	must(unix.Mkfifo(p("fifo"), 0o644))
	must(os.Symlink(p("fifo"), p("link-to-fifo")))
	must(os.Link(p("victim"), p("hardlink")))
	l, err := net.Listen("unix", p("socket"))
	must(err)
	t.Cleanup(func() { l.Close() })
	return map[string]string{
		"regular": p("regular"), "link-to-file": p("link-to-file"), "link-to-device": p("link-to-device"),
		"dangling": p("dangling"), "loop": p("loop-a"), "directory": p("directory"),
		"link-to-directory": p("link-to-directory"), "fifo": p("fifo"), "link-to-fifo": p("link-to-fifo"),
		"hardlink": p("hardlink"), "socket": p("socket"), "device": "/dev/null", "missing": p("missing"),
	}
}

// within fails the test if f does not return in a few seconds: a FIFO
// opened blocking never returns.
func within(t *testing.T, name string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: still blocked after 10 s", name)
	}
}

// outcome names what an open gave, for the tables.
func outcome(err error) string {
	var se *Error
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &se) && se.Err == ErrSymlink:
		return "symlink"
	case errors.As(err, &se) && se.Err == ErrLinked:
		return "linked"
	case errors.As(err, &se) && se.Err == ErrNotRegular:
		return "not regular"
	case errors.Is(err, fs.ErrNotExist):
		return "missing"
	case errors.Is(err, unix.ELOOP):
		return "loop"
	}
	return "error: " + err.Error()
}

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	files := hostile(t, dir)
	// What each rule gives for each kind of file.
	want := map[string]struct{ noFollow, follow, lock, append string }{
		"regular":           {"ok", "ok", "ok", "ok"},
		"link-to-file":      {"symlink", "ok", "symlink", "symlink"},
		"link-to-device":    {"symlink", "not regular", "symlink", "symlink"},
		"dangling":          {"symlink", "missing", "symlink", "symlink"},
		"loop":              {"symlink", "loop", "symlink", "symlink"},
		"directory":         {"not regular", "not regular", "not regular", "not regular"},
		"link-to-directory": {"symlink", "not regular", "symlink", "symlink"},
		"fifo":              {"not regular", "not regular", "not regular", "not regular"},
		"link-to-fifo":      {"symlink", "not regular", "symlink", "symlink"},
		"hardlink":          {"ok", "ok", "linked", "linked"},
		"socket":            {"not regular", "not regular", "not regular", "not regular"},
		"device":            {"not regular", "not regular", "not regular", "not regular"},
		"missing":           {"missing", "missing", "ok", "missing"},
	}
	for name, w := range want {
		t.Run(name, func(t *testing.T) {
			p := files[name]
			try := func(rule, want string, open func() (*os.File, error)) {
				var f *os.File
				var err error
				within(t, rule, func() { f, err = open() })
				if f != nil {
					f.Close()
				}
				if got := outcome(err); got != want {
					t.Errorf("%s(%s) = %s, want %s", rule, name, got, want)
				}
				if err != nil && !bytes.Contains([]byte(err.Error()), []byte(p)) {
					t.Errorf("%s(%s): error %q does not name the file", rule, name, err)
				}
			}
			try("Open NoFollow", w.noFollow, func() (*os.File, error) { return Open(p, NoFollow) })
			try("Open Follow", w.follow, func() (*os.File, error) { return Open(p, Follow) })
			try("Append", w.append, func() (*os.File, error) { return Append(p) })
			// Last: it creates the missing file.
			try("Lock", w.lock, func() (*os.File, error) { return Lock(p, 0o644) })
		})
	}
	if b, err := os.ReadFile(filepath.Join(dir, "victim")); err != nil || string(b) != "precious\n" {
		t.Errorf("the links' target now holds %q (%v)", b, err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "nowhere")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Lock through a dangling link created its target (%v)", err)
	}
	if st, err := os.Stat(filepath.Join(dir, "missing")); err != nil || st.Mode().Perm() != 0o644&^umask() {
		t.Errorf("Lock of a missing file: %v, %v", st, err)
	}
}

func umask() fs.FileMode {
	m := unix.Umask(0)
	unix.Umask(m)
	return fs.FileMode(m)
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	data := bytes.Repeat([]byte("0123456789"), 1000)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		limit   int64
		want    int
		tooMuch bool
	}{
		{limit: 20000, want: 10000},
		{limit: 10000, want: 10000},
		{limit: 9999, want: 9999, tooMuch: true},
		{limit: 1, want: 1, tooMuch: true},
		{limit: 0, want: 0, tooMuch: true},
	} {
		got, err := ReadFile(p, tc.limit, NoFollow)
		var tl *TooLargeError
		if errors.As(err, &tl) != tc.tooMuch || (err != nil && !tc.tooMuch) {
			t.Errorf("limit %d: error %v, want too large %v", tc.limit, err, tc.tooMuch)
		}
		if !bytes.Equal(got, data[:tc.want]) {
			t.Errorf("limit %d: read %d bytes, want the first %d", tc.limit, len(got), tc.want)
		}
	}
	// /dev/zero through a link, had it been opened, reads without end.
	link := filepath.Join(dir, "zero")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	within(t, "ReadFile of a link to /dev/zero", func() {
		if _, err := ReadFile(link, 1<<20, Follow); !errors.Is(err, ErrNotRegular) {
			t.Errorf("ReadFile of a link to /dev/zero: %v, want ErrNotRegular", err)
		}
	})
}

// TestReadGrowing: a file that grows while it is read is still read only
// up to the limit.
func TestReadGrowing(t *testing.T) {
	p := filepath.Join(t.TempDir(), "growing")
	w, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		chunk := bytes.Repeat([]byte("x"), 4096)
		for {
			select {
			case <-stop:
				return
			default:
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}
	}()
	defer func() { close(stop); <-done }()
	for range 20 {
		got, err := ReadFile(p, 64<<10, Follow)
		if len(got) > 64<<10 {
			t.Fatalf("read %d bytes past the limit", len(got))
		}
		var tl *TooLargeError
		if err != nil && !errors.As(err, &tl) {
			t.Fatal(err)
		}
	}
}
