package publish

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The two forms of the state-file writer, for tests run on each.
var forms = []struct {
	name  string
	write func(p *Publisher, name string, data []byte) error
}{
	{"WriteFile", func(p *Publisher, name string, data []byte) error {
		_, err := p.WriteFile(name, data)
		return err
	}},
	{"Stream", func(p *Publisher, name string, data []byte) error {
		s, err := p.Create(name)
		if err != nil {
			return err
		}
		// In pieces, as the page store writes: the file is never whole in
		// one call.
		for len(data) > 0 {
			n := min(len(data), 3000)
			if _, err := s.Write(data[:n]); err != nil {
				s.Abort()
				return err
			}
			data = data[n:]
		}
		return s.Commit()
	}},
	{"StreamCheckedAtCommit", func(p *Publisher, name string, data []byte) error {
		s, err := p.Create(name)
		if err != nil {
			return err
		}
		for len(data) > 0 {
			n := min(len(data), 3000)
			s.Write(data[:n]) // a failure is Commit's to report
			data = data[n:]
		}
		return s.Commit()
	}},
}

func openState(t *testing.T, dir string) *Publisher {
	t.Helper()
	p, err := OpenState(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// TestStateWrite: a state file is written whole with mode 0600 whatever
// the umask, replaced whole, and (WriteFile) not rewritten when its bytes
// are the same.
func TestStateWrite(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	for _, form := range forms {
		t.Run(form.name, func(t *testing.T) {
			dir := t.TempDir()
			p := openState(t, dir)
			path := filepath.Join(dir, "state.json")
			big := bytes.Repeat([]byte("0123456789"), 10_000) // more than one piece
			for _, data := range [][]byte{[]byte("first"), big, []byte("third")} {
				if err := form.write(p, "state.json", data); err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(path)
				if err != nil || !bytes.Equal(got, data) {
					t.Fatalf("file holds %d bytes (%v), want the %d written", len(got), err, len(data))
				}
				if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
					t.Errorf("mode %v, want 0600", st.Mode().Perm())
				}
			}
			noTemps(t, dir)
		})
	}
	dir := t.TempDir()
	p := openState(t, dir)
	if changed, err := p.WriteFile("s", []byte("same")); !changed || err != nil {
		t.Fatalf("first write: %v, %v", changed, err)
	}
	before, _ := os.Stat(filepath.Join(dir, "s"))
	if changed, err := p.WriteFile("s", []byte("same")); changed || err != nil {
		t.Errorf("the same bytes again: changed %v, %v; want not written", changed, err)
	}
	if after, _ := os.Stat(filepath.Join(dir, "s")); !os.SameFile(before, after) {
		t.Error("the same bytes replaced the file")
	}
}

// TestStateWriteErrors: a write that cannot be made fails with an error
// naming the file, leaves the file it would replace as it was, and leaves
// no temp file behind.
func TestStateWriteErrors(t *testing.T) {
	const oldBody = "the old state"
	for _, tc := range []struct {
		name string
		// break_ spoils the state directory dir after OpenState (file is
		// the state file, holding oldBody); it returns the directory the
		// old file is in afterwards.
		break_ func(t *testing.T, dir, file string) string
		want   func(err error) bool
	}{
		{"unwritable directory", func(t *testing.T, dir, _ string) string {
			unwritable(t, dir)
			return dir
		}, func(err error) bool { return errors.Is(err, os.ErrPermission) }},
		{"directory replaced", func(t *testing.T, dir, _ string) string {
			moved := dir + ".old"
			if err := os.Rename(dir, moved); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(moved) })
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			return moved
		}, func(err error) bool { var re *ReplacedError; return errors.As(err, &re) }},
		{"directory moved away", func(t *testing.T, dir, _ string) string {
			moved := dir + ".old"
			if err := os.Rename(dir, moved); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(moved) })
			return moved
		}, func(err error) bool { var re *ReplacedError; return errors.As(err, &re) }},
		{"a directory in its place", func(t *testing.T, dir, file string) string {
			os.Rename(file, file+".kept")
			os.Mkdir(file, 0o700)
			return ""
		}, func(err error) bool { var fe *ForeignError; return errors.As(err, &fe) }},
		{"a symlink in its place", func(t *testing.T, dir, file string) string {
			os.Rename(file, file+".kept")
			os.Symlink(filepath.Base(file)+".kept", file)
			return ""
		}, func(err error) bool { var fe *ForeignError; return errors.As(err, &fe) }},
	} {
		for _, form := range forms {
			t.Run(tc.name+"/"+form.name, func(t *testing.T) {
				dir := filepath.Join(t.TempDir(), "state")
				os.Mkdir(dir, 0o700)
				file := filepath.Join(dir, "state.json")
				if err := os.WriteFile(file, []byte(oldBody), 0o600); err != nil {
					t.Fatal(err)
				}
				p := openState(t, dir)
				oldDir := tc.break_(t, dir, file)
				err := form.write(p, "state.json", bytes.Repeat([]byte("new "), 5000))
				if err == nil || !tc.want(err) {
					t.Fatalf("err = %v, want the kind this case is", err)
				}
				if !strings.Contains(err.Error(), file) {
					t.Errorf("the error does not name %s: %v", file, err)
				}
				kept := filepath.Join(oldDir, "state.json")
				if oldDir == "" {
					kept = file + ".kept" // what the foreign file stands for
				}
				if got, err := os.ReadFile(kept); string(got) != oldBody {
					t.Errorf("%s holds %q (%v), want the old %q", kept, got, err, oldBody)
				}
				if _, err := os.Stat(filepath.Join(dir, "state.json")); oldDir == dir+".old" && !errors.Is(err, os.ErrNotExist) {
					t.Errorf("written into the directory that took the path's place: %v", err)
				}
				noTemps(t, dir)
				if oldDir != "" {
					noTemps(t, oldDir)
				}
			})
		}
	}
}

// fsImmutable is FS_IMMUTABLE_FL of linux/fs.h, which x/sys/unix lacks.
const fsImmutable = 0x10

// unwritable makes dir refuse new files: by its mode, or, for root, whom
// modes do not stop, by the immutable attribute (chattr +i).
func unwritable(t *testing.T, dir string) {
	t.Helper()
	if os.Geteuid() != 0 {
		os.Chmod(dir, 0o500)
		t.Cleanup(func() { os.Chmod(dir, 0o700) })
		return
	}
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	flags, err := unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
	if err == nil {
		err = unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, int(flags|fsImmutable))
	}
	if err != nil {
		t.Skipf("root ignores modes, and %s cannot be made immutable: %v", dir, err)
	}
	t.Cleanup(func() {
		if f, err := os.Open(dir); err == nil {
			unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, int(flags))
			f.Close()
		}
	})
}

// TestStateWriteFailsMidWrite: a write that fails part way (the file size
// limit, RLIMIT_FSIZE, met in a child process: EFBIG after the first
// pieces) leaves the old file as it was, and no temp file.
func TestStateWriteFailsMidWrite(t *testing.T) {
	if dir := os.Getenv("PUBLISH_FSIZE_DIR"); dir != "" {
		fsizeChild(dir, os.Getenv("PUBLISH_FORM"))
		return
	}
	for _, form := range forms {
		t.Run(form.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "state.json")
			old := bytes.Repeat([]byte("old "), 256) // 1 KiB, under the limit
			if err := os.WriteFile(file, old, 0o600); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestStateWriteFailsMidWrite$")
			cmd.Env = append(os.Environ(), "PUBLISH_FSIZE_DIR="+dir, "PUBLISH_FORM="+form.name)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			said := string(out)
			if !strings.Contains(said, "write error: ") || !strings.Contains(said, file) || !strings.Contains(said, "file too large") {
				t.Errorf("the child said %q: want a write error naming %s, file too large", said, file)
			}
			if got, err := os.ReadFile(file); err != nil || !bytes.Equal(got, old) {
				t.Errorf("the failed write changed the file: %d bytes, %v", len(got), err)
			}
			noTemps(t, dir)
		})
	}
}

// fsizeChild limits the size of files it writes to 4 KiB and writes 16
// KiB over dir/state.json, printing the error.
func fsizeChild(dir, form string) {
	// Go ignores SIGXFSZ: the write fails with EFBIG instead.
	lim := unix.Rlimit{Cur: 4 << 10, Max: 4 << 10}
	if err := unix.Setrlimit(unix.RLIMIT_FSIZE, &lim); err != nil {
		fmt.Println("setrlimit:", err)
		os.Exit(2)
	}
	p, err := OpenState(dir)
	if err != nil {
		fmt.Println(err)
		os.Exit(2)
	}
	for _, f := range forms {
		if f.name == form {
			err = f.write(p, "state.json", bytes.Repeat([]byte("new "), 4<<10))
		}
	}
	fmt.Printf("write error: %v\n", err)
	os.Exit(0)
}

// TestKillBeforeRename kills a process between making its new state
// durable and renaming it over the old one: the old file is whole, and
// the temp file is there (or the kill came elsewhere and proved nothing).
func TestKillBeforeRename(t *testing.T) {
	if dir := os.Getenv("PUBLISH_KILL_DIR"); dir != "" {
		killedChild(dir, os.Getenv("PUBLISH_FORM"))
		return
	}
	for _, form := range forms {
		t.Run(form.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "state.json")
			if err := os.WriteFile(file, []byte("old"), 0o600); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestKillBeforeRename$")
			cmd.Env = append(os.Environ(), "PUBLISH_KILL_DIR="+dir, "PUBLISH_FORM="+form.name)
			cmd.Stderr = os.Stderr
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(out).ReadString('\n')
			if err != nil || strings.TrimSpace(line) != "durable" {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("the child said %q (%v), want durable", line, err)
			}
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			if got, err := os.ReadFile(file); err != nil || string(got) != "old" {
				t.Errorf("after the kill the file holds %q (%v), want old", got, err)
			}
			var temps []string
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				if IsTemp(e.Name()) {
					temps = append(temps, e.Name())
				}
			}
			if len(temps) != 1 {
				t.Fatalf("temp files %v, want the one the child wrote", temps)
			}
			if got, _ := os.ReadFile(filepath.Join(dir, temps[0])); string(got) != "new" {
				t.Errorf("the temp file holds %q, want new: the kill came before the write", got)
			}
		})
	}
}

// killedChild writes dir/state.json and stops before the rename, saying
// so, until it is killed.
func killedChild(dir, form string) {
	p, err := OpenState(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	p.beforeRename = func() {
		fmt.Println("durable")
		select {} // killed here
	}
	for _, f := range forms {
		if f.name == form {
			err = f.write(p, "state.json", []byte("new"))
		}
	}
	fmt.Fprintln(os.Stderr, "not stopped before the rename:", err)
	os.Exit(3)
}

// TestStatePaths: WriteState and CreateState, for callers that hold no
// directory, write at a path; a missing directory is an error naming it.
func TestStatePaths(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "groups.json")
	if err := WriteState(file, []byte("one"), SyncPerFile); err != nil {
		t.Fatal(err)
	}
	s, err := CreateState(file)
	if err != nil {
		t.Fatal(err)
	}
	s.Write([]byte("two"))
	if got, _ := os.ReadFile(file); string(got) != "one" {
		t.Errorf("before Commit the file holds %q, want one", got)
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(file); string(got) != "two" {
		t.Errorf("after Commit the file holds %q, want two", got)
	}
	s, err = CreateState(file)
	if err != nil {
		t.Fatal(err)
	}
	s.Write([]byte("three"))
	s.Abort()
	if got, _ := os.ReadFile(file); string(got) != "two" {
		t.Errorf("after Abort the file holds %q, want two", got)
	}
	noTemps(t, dir)
	gone := filepath.Join(dir, "gone")
	if err := WriteState(filepath.Join(gone, "s"), []byte("x"), SyncNone); err == nil || !strings.Contains(err.Error(), gone) {
		t.Errorf("into a missing directory: %v, want an error naming %s", err, gone)
	}
	if _, err := CreateState(filepath.Join(gone, "s")); err == nil || !strings.Contains(err.Error(), gone) {
		t.Errorf("into a missing directory: %v, want an error naming %s", err, gone)
	}
}

// TestQuarantine: a damaged file goes aside under a name of its own, and
// a second one moved aside in the same second does not replace the first.
func TestQuarantine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state")
	var asides []string
	for _, body := range []string{"first", "second"} {
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		aside, err := Quarantine(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(filepath.Base(aside), "state.corrupt-") {
			t.Errorf("moved to %s, want state.corrupt-<time>", aside)
		}
		if got, err := os.ReadFile(aside); err != nil || string(got) != body {
			t.Errorf("%s holds %q, %v; want %q", aside, got, err, body)
		}
		asides = append(asides, aside)
	}
	if asides[0] == asides[1] {
		t.Errorf("both moved to %s", asides[0])
	}
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Errorf("the damaged file is still in place: %v", err)
	}
}
