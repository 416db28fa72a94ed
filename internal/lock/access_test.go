package lock

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/sitemapd/sitemapd/internal/safefile"
)

// An unwritable directory is the common first deployment (a root-owned
// docroot). Root passes every permission check, so as root the cases run
// in a child process, the test binary run as nobody; as another user, in
// this process, on directories made read-only.

// unwritableDirEnv hands the child the directory the parent prepared.
const unwritableDirEnv = "SITEMAPD_LOCK_TEST_UNWRITABLE"

func TestUnwritableDirectory(t *testing.T) {
	if dir := os.Getenv(unwritableDirEnv); dir != "" {
		checkUnwritable(t, dir) // the child, as nobody
		return
	}
	dir := prepareUnwritable(t)
	if os.Getuid() != 0 {
		checkUnwritable(t, dir)
		return
	}
	runAsNobody(t, dir)
}

// The directories of the cases, below the prepared one: each may not be
// written by the user checkUnwritable runs as.
const (
	noLockFile   = "docroot"       // a docroot, no lock file yet
	rootsLock    = "docroot-built" // a lock file a root build left
	heldLock     = "docroot-held"  // a lock file another process holds
	linkedLock   = "docroot-link"  // a planted link where the lock file goes
	stateDir     = "state"         // an existing state_dir
	stateParent  = "lib"           // where a missing state_dir would be made
	writableRoot = "writable"      // an output root that user may write
)

// prepareUnwritable makes the directories of the cases and holds the lock
// of heldLock, as another process would, until the test ends.
func prepareUnwritable(t *testing.T) string {
	dir, err := os.MkdirTemp("", "sitemapd-lock-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Chmod(dir, 0o755))
	for _, d := range []string{noLockFile, rootsLock, heldLock, linkedLock, stateDir, stateParent, writableRoot} {
		must(os.Mkdir(filepath.Join(dir, d), 0o755))
	}
	must(os.WriteFile(filepath.Join(dir, rootsLock, OutputName), []byte("pid=1\ncommand=build\n"), 0o444))
	must(os.WriteFile(filepath.Join(dir, "victim"), []byte("precious"), 0o666))
	must(os.Symlink(filepath.Join(dir, "victim"), filepath.Join(dir, linkedLock, OutputName)))
	held, err := Acquire(filepath.Join(dir, heldLock, OutputName), heldLock, Holder{PID: 4242, Command: "run"})
	must(err)
	t.Cleanup(func() { held.Close() })
	must(os.Chmod(filepath.Join(dir, writableRoot), 0o777))
	// 0555: for the tests' own user, when not root; to nobody, root's
	// directories are as unwritable at 0755.
	readOnly := []string{noLockFile, rootsLock, heldLock, linkedLock, stateDir, stateParent}
	for _, d := range readOnly {
		must(os.Chmod(filepath.Join(dir, d), 0o555))
	}
	t.Cleanup(func() { // before RemoveAll, which must empty them
		for _, d := range readOnly {
			os.Chmod(filepath.Join(dir, d), 0o755)
		}
	})
	if os.Getuid() != 0 && canCreateIn(filepath.Join(dir, noLockFile)) {
		t.Skip("this user writes in a directory of mode 0555 (CAP_DAC_OVERRIDE?): no directory is unwritable to it")
	}
	return dir
}

// canCreateIn reports whether a file can be made in dir.
func canCreateIn(dir string) bool {
	f, err := os.CreateTemp(dir, "probe")
	if err != nil {
		return false
	}
	f.Close()
	os.Remove(f.Name())
	return true
}

// runAsNobody runs this test in a copy of the test binary as nobody.
func runAsNobody(t *testing.T, dir string) {
	u, err := user.Lookup("nobody")
	if err != nil {
		t.Skipf("running as root, but no user nobody to run as: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	exe := filepath.Join(dir, "lock.test")
	in, err := os.Open(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(exe, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	out.Close()
	cmd := exec.Command(exe, "-test.run=^TestUnwritableDirectory$", "-test.v")
	cmd.Env = append(os.Environ(), unwritableDirEnv+"="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	b, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(b), "--- PASS: TestUnwritableDirectory") {
		t.Errorf("as nobody: %v\n%s", err, b)
	}
}

// checkUnwritable runs the cases, as a user that may not write them.
func checkUnwritable(t *testing.T, dir string) {
	me := Me()
	p := func(parts ...string) string { return filepath.Join(append([]string{dir}, parts...)...) }
	grant := func(d string) string { return "sudo setfacl -m u:" + me.ACLName() + ":rwx " + d }
	for _, tc := range []struct {
		name string
		take func() error
		want []string // what the message says
		is   any      // what the error is: *AccessError, *HeldError or *safefile.Error
	}{
		{"no lock file", func() error { return acquire(p(noLockFile, OutputName)) },
			[]string{"cannot create lock file " + p(noLockFile, OutputName), me.String() + " cannot write " + p(noLockFile), "permission denied", grant(p(noLockFile)), "or set output_dir"},
			new(*AccessError)},
		{"a lock file root left", func() error { return acquire(p(rootsLock, OutputName)) },
			[]string{"cannot write sitemaps in " + p(rootsLock), me.String() + " may not", grant(p(rootsLock)), "or set output_dir"},
			new(*AccessError)},
		{"held by another", func() error { return acquire(p(heldLock, OutputName)) },
			[]string{"sitemapd run (pid 4242) already publishes"},
			new(*HeldError)},
		{"a planted link", func() error { return acquire(p(linkedLock, OutputName)) },
			[]string{OutputName + " is a symlink"},
			new(*safefile.Error)},
		{"existing state_dir", func() error { return acquire(p(stateDir, StateName)) },
			[]string{"cannot create lock file " + p(stateDir, StateName), "cannot write " + p(stateDir), grant(p(stateDir)), "or set state_dir"},
			new(*AccessError)},
		{"state_dir to make", func() error {
			s, err := TakeAll(context.Background(), cfgFor(p(writableRoot), "", p(stateParent, "sitemapd", "site"), true), Holder{PID: 1, Command: "run"}, Options{})
			s.Close()
			return err
		}, []string{"cannot create state_dir " + p(stateParent, "sitemapd", "site"), "cannot write " + p(stateParent) + " ", grant(p(stateParent)), "or set state_dir"},
			new(*AccessError)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.take()
			if err == nil {
				t.Fatal("taken")
			}
			if !errors.As(err, tc.is) {
				t.Errorf("%T: %v", err, err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q\nlacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "no such file") {
				t.Errorf("%q blames a missing file", err)
			}
		})
	}
	if b, _ := os.ReadFile(p("victim")); string(b) != "precious" {
		t.Errorf("the link's target now holds %q", b)
	}
}

func acquire(path string) error {
	l, err := Acquire(path, filepath.Dir(path), Holder{PID: 1, Command: "run"})
	l.Close()
	return err
}
