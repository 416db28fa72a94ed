package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sitemapd/sitemapd/internal/lock"
	"github.com/sitemapd/sitemapd/internal/searchconsole/sctest"
)

// permSite is a site in a directory other users can reach (t.TempDir's
// are not), for the tests of directories a user may not write.
type permSite struct {
	dir, cfg string
}

func newPermSite(t *testing.T, body string) *permSite {
	t.Helper()
	dir, err := os.MkdirTemp("", "sitemapd-perm-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s := &permSite{dir: dir, cfg: filepath.Join(dir, "sitemapd.yaml")}
	s.chmod(t, ".", 0o755)
	writeFileAt(t, s.path("site", "index.html"), []byte("<title>home</title>"), time.Now())
	s.chmod(t, "site", 0o755)
	if !strings.Contains(body, "state_dir:") {
		// Never the default, /var/lib/sitemapd: and one the user of
		// each test may write.
		body += "state_dir: state\n"
		s.mkdir(t, "state", 0o777)
	}
	if err := os.WriteFile(s.cfg, []byte("root: site\nbase_url: https://static.test/\nlog: {format: json}\n"+body), 0o644); err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *permSite) path(rel ...string) string {
	return filepath.Join(append([]string{s.dir}, rel...)...)
}

func (s *permSite) mkdir(t *testing.T, rel string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(s.path(rel), 0o755); err != nil {
		t.Fatal(err)
	}
	s.chmod(t, rel, mode)
}

func (s *permSite) chmod(t *testing.T, rel string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(s.path(rel), mode); err != nil {
		t.Fatal(err)
	}
	// RemoveAll must be able to empty it.
	t.Cleanup(func() { os.Chmod(s.path(rel), 0o755) })
}

// give hands a directory to cred's user (nil: the tests' own, who has it).
func (s *permSite) give(t *testing.T, rel string, cred *syscall.Credential) {
	t.Helper()
	if cred != nil {
		if err := os.Chown(s.path(rel), int(cred.Uid), int(cred.Gid)); err != nil {
			t.Fatal(err)
		}
	}
}

// boundUser is the user whom permissions bind, to run the daemon as:
// nobody when the tests run as root (root passes them all), the tests'
// own user (nil) otherwise. It skips when there is none.
func boundUser(t *testing.T) (*syscall.Credential, string) {
	t.Helper()
	if os.Getuid() == 0 {
		cred := hostileUsers(t)["nobody"]
		return cred, exeFor(t, cred)
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o555)
	defer os.Chmod(dir, 0o755)
	if f, err := os.Create(filepath.Join(dir, "probe")); err == nil {
		f.Close()
		t.Skip("not root, and this user writes in a directory of mode 0555 (CAP_DAC_OVERRIDE?): no directory is unwritable to it")
	}
	return nil, os.Args[0]
}

// userOf names the user cred is, as messages do.
func userOf(t *testing.T, cred *syscall.Credential) lock.User {
	if cred == nil {
		return lock.Me()
	}
	u := lock.User{UID: int(cred.Uid)}
	if pw, err := user.LookupId(strconv.Itoa(u.UID)); err == nil {
		u.Name = pw.Username
	}
	return u
}

// runCLIAs runs the CLI as a child process as cred's user.
func runCLIAs(t *testing.T, exe string, cred *syscall.Credential, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "SITEMAPD_CLI_ARGS="+strings.Join(args, "\n"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), o.String(), e.String()
}

const notifyEndpoint = "notify: {endpoints: [{name: receiver, kind: indexnow, url: \"http://127.0.0.1:9/\", key: 0123456789abcdef}]}\n"

// TestStartInUnwritableDirectory: the daemon, run as a user who may not
// write its docroot or state_dir, refuses to start saying which directory,
// which user and what to do (it said "open …/.sitemapd.lock: no such file
// or directory"); `sitemapd check`, as that user, finds it first.
func TestStartInUnwritableDirectory(t *testing.T) {
	cred, exe := boundUser(t)
	who := userOf(t, cred)
	for _, tc := range []struct {
		name  string
		body  string
		setup func(t *testing.T, s *permSite)
		dir   string // the directory the user cannot write
		start string // what the daemon says
		check string // what check says
	}{
		{"docroot", "state_dir: state\n", func(t *testing.T, s *permSite) {
			s.mkdir(t, "state", 0o700)
			s.give(t, "state", cred)
			s.chmod(t, "site", 0o555)
		}, "site", "cannot create lock file {dir}/.sitemapd.lock: {user} cannot write {dir} (permission denied)", "{dir}: {user} cannot write it"},
		{"state_dir", "state_dir: state\n", func(t *testing.T, s *permSite) {
			s.mkdir(t, "state", 0o555)
			s.give(t, "site", cred)
		}, "state", "cannot create lock file {dir}/sitemapd.lock: {user} cannot write {dir} (permission denied)", "{dir}: {user} cannot write it"},
		{"state_dir's parent", "state_dir: lib/sitemapd\n" + notifyEndpoint, func(t *testing.T, s *permSite) {
			s.mkdir(t, "lib", 0o555)
			s.give(t, "site", cred)
		}, "lib", "cannot create state_dir {dir}/sitemapd: {user} cannot write {dir} (permission denied)", "{dir}/sitemapd: does not exist, and {user} cannot write {dir} to make it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newPermSite(t, tc.body)
			tc.setup(t, s)
			say := strings.NewReplacer("{dir}", s.path(tc.dir), "{user}", who.String())
			c := startChildWith(t, s.cfg, childOptions{exe: exe, dir: s.dir, cred: cred})
			if err := waitExit(c.cmd, 30*time.Second); err == nil {
				t.Error("the daemon exited 0; want it to refuse to start")
			}
			log := c.stderr.String()
			grant := "setfacl -m u:" + who.ACLName() + ":rwx " + s.path(tc.dir)
			for _, want := range []string{say.Replace(tc.start), grant} {
				if !strings.Contains(log, want) {
					t.Errorf("its log does not say %q:\n%s", want, log)
				}
			}
			if strings.Contains(log, "no such file") {
				t.Errorf("its log blames a missing file:\n%s", log)
			}
			code, out, stderr := runCLIAs(t, exe, cred, "check", "-config", s.cfg)
			if want := say.Replace(tc.check); code != ExitFailure || !strings.Contains(out, want) {
				t.Errorf("check as %s: exit %d, want %d and %q:\n%s%s", who, code, ExitFailure, want, out, stderr)
			}
		})
	}
}

// TestCheckListen: a listen address another process holds is a problem;
// one the daemon of this configuration holds is expected.
func TestCheckListen(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	cfg, root := writeConfig(t, "listen: "+addr+"\n")
	code, out, stderr := runCLI("check", "-config", cfg)
	if want := "listen " + addr + ": the address is in use by another process"; code != ExitFailure || !strings.Contains(out, want) {
		t.Errorf("held by a listener: exit %d, want %d and %q:\n%s%s", code, ExitFailure, want, out, stderr)
	}

	daemon, err := lock.Acquire(filepath.Join(root, lock.OutputName), root, lock.Holder{PID: 4242, Command: "run", Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	code, out, stderr = runCLI("check", "-config", cfg)
	if want := "in use by sitemapd run (pid 4242, config " + cfg + "), which publishes " + root; code != ExitOK || !strings.Contains(out, "configuration is valid") || !strings.Contains(stderr, want) {
		t.Errorf("held by the daemon: exit %d, want %d and %q:\n%s%s", code, ExitOK, want, out, stderr)
	}
	daemon.Close()

	ln.Close()
	if code, out, stderr := runCLI("check", "-config", cfg); code != ExitOK || out != cfg+": configuration is valid\n" {
		t.Errorf("free: exit %d:\n%s%s", code, out, stderr)
	}
}

// TestCheckAsUser: `check -user NAME` works out what the service's user
// may write from modes, owners and ACLs, whoever runs it (root may write
// anything, so root's own access tells nothing).
func TestCheckAsUser(t *testing.T) {
	nobody, err := user.Lookup("nobody")
	if err != nil {
		t.Skipf("no user nobody to check as: %v", err)
	}
	if strconv.Itoa(os.Getuid()) == nobody.Uid {
		t.Skip("the tests run as nobody: nobody's permissions are the tests' own")
	}
	as := "user nobody (uid " + nobody.Uid + ")"
	for _, tc := range []struct {
		name  string
		body  string
		setup func(t *testing.T, s *permSite)
		want  string // the finding, "" for none
	}{
		{"docroot not writable", "", nil,
			"{dir}/site: " + as + " cannot write it: give it write access, e.g. sudo setfacl -m u:nobody:rwx {dir}/site"},
		{"docroot writable by mode", "", func(t *testing.T, s *permSite) { s.chmod(t, "site", 0o777) }, ""},
		{"docroot writable by an ACL", "", func(t *testing.T, s *permSite) { grantACL(t, s.path("site"), nobody.Uid) }, ""},
		{"output_dir not writable", "output_dir: out\n", func(t *testing.T, s *permSite) { s.mkdir(t, "out", 0o755) },
			"{dir}/out: " + as + " cannot write it"},
		{"a directory above refuses search", "output_dir: private/out\n", func(t *testing.T, s *permSite) {
			s.mkdir(t, "private/out", 0o777)
			s.chmod(t, "private", 0o700)
		}, "{dir}/private/out: " + as + " cannot search {dir}/private, above it: give it search access, e.g. sudo setfacl -m u:nobody:x {dir}/private"},
		{"docroot not readable", "output_dir: out\n", func(t *testing.T, s *permSite) {
			s.mkdir(t, "out", 0o777)
			s.chmod(t, "site", 0o700)
		}, "{dir}/site: " + as + " cannot read it: give it read access"},
		{"state_dir not writable", "state_dir: state\n", func(t *testing.T, s *permSite) {
			s.chmod(t, "site", 0o777)
			s.mkdir(t, "state", 0o755)
		}, "{dir}/state: " + as + " cannot write it: give it write access, e.g. sudo setfacl -m u:nobody:rwx {dir}/state (man sitemapd, PERMISSIONS), or set state_dir"},
		{"state_dir's parent not writable", "state_dir: lib/sitemapd\n", func(t *testing.T, s *permSite) {
			s.chmod(t, "site", 0o777)
			s.mkdir(t, "lib", 0o755)
		}, "{dir}/lib/sitemapd: does not exist, and " + as + " cannot write {dir}/lib to make it: make it, sudo install -d -o nobody -m 0700 {dir}/lib/sitemapd"},
		{"state_dir to make", "state_dir: lib/sitemapd\n", func(t *testing.T, s *permSite) {
			s.chmod(t, "site", 0o777)
			s.mkdir(t, "lib", 0o777)
		}, ""},
		{"Search Console key not the service's", gscEndpoint, func(t *testing.T, s *permSite) {
			s.chmod(t, "site", 0o777)
			writeKey(t, s.path("gsc.json"), -1)
		}, "{dir}/gsc.json: " + as + " cannot read it: the key of notify endpoint google must be the service's: sudo chown nobody {dir}/gsc.json (its mode stays 0600), or hand it over with systemd's LoadCredential="},
		{"Search Console key the service's", gscEndpoint, func(t *testing.T, s *permSite) {
			s.chmod(t, "site", 0o777)
			uid, _ := strconv.Atoi(nobody.Uid)
			writeKey(t, s.path("gsc.json"), uid)
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newPermSite(t, tc.body)
			if tc.setup != nil {
				tc.setup(t, s)
			}
			code, out, stderr := runCLI("check", "-config", s.cfg, "-user", "nobody")
			if tc.want == "" {
				if code != ExitOK || out != s.cfg+": configuration is valid\n" {
					t.Errorf("exit %d, want %d:\n%s%s", code, ExitOK, out, stderr)
				}
				return
			}
			want := strings.ReplaceAll(tc.want, "{dir}", s.dir)
			if code != ExitFailure || !strings.Contains(out, want) || !strings.Contains(out, "1 problem would keep sitemapd from starting as "+as) {
				t.Errorf("exit %d, want %d and\n%s\ngot:\n%s%s", code, ExitFailure, want, out, stderr)
			}
		})
	}
	if code, _, stderr := runCLI("check", "-config", newPermSite(t, "").cfg, "-user", "no-such-user-here"); code != ExitUsage || !strings.Contains(stderr, "no-such-user-here") {
		t.Errorf("unknown user: exit %d, %q", code, stderr)
	}
}

// grantACL gives uid rwx on dir with an ACL entry, as setfacl -m
// u:UID:rwx does; it skips where the file system keeps no ACLs.
func grantACL(t *testing.T, dir, uid string) {
	t.Helper()
	id, _ := strconv.Atoi(uid)
	entries := []aclEntry{{aclUserObj, 7, 0}, {aclUser, 7, uint32(id)}, {aclGroupObj, 5, 0}, {aclMask, 7, 0}, {aclOther, 5, 0}}
	if err := unix.Setxattr(dir, "system.posix_acl_access", encodeACL(entries), 0); errors.Is(err, unix.ENOTSUP) {
		t.Skipf("%s keeps no ACLs: %v", dir, err)
	} else if err != nil {
		t.Fatal(err)
	}
}

func encodeACL(entries []aclEntry) []byte {
	b := binary.LittleEndian.AppendUint32(nil, 2)
	for _, e := range entries {
		b = binary.LittleEndian.AppendUint16(b, e.tag)
		b = binary.LittleEndian.AppendUint16(b, e.perm)
		b = binary.LittleEndian.AppendUint32(b, e.id)
	}
	return b
}

// TestACLPermits: acl(5)'s access check, entry by entry.
func TestACLPermits(t *testing.T) {
	const owner, member, stranger, named = 1000, 1001, 1002, 1003
	const group, other = 2000, 2001
	st := &unix.Stat_t{Uid: owner, Gid: group}
	base := []aclEntry{{aclUserObj, 7, 0}, {aclGroupObj, 5, 0}, {aclOther, 5, 0}}
	with := func(e ...aclEntry) acl { return append(append(acl{}, base...), e...) }
	for _, tc := range []struct {
		name string
		acl  acl
		as   account
		want bool // may write
	}{
		{"owner", with(), account{lock.User{UID: owner}, []uint32{other}}, true},
		{"owning group", with(), account{lock.User{UID: member}, []uint32{group}}, false},
		{"other", with(), account{lock.User{UID: stranger}, []uint32{other}}, false},
		{"named user", with(aclEntry{aclUser, 7, named}, aclEntry{aclMask, 7, 0}), account{lock.User{UID: named}, []uint32{other}}, true},
		{"named user, masked", with(aclEntry{aclUser, 7, named}, aclEntry{aclMask, 5, 0}), account{lock.User{UID: named}, []uint32{other}}, false},
		{"named group", with(aclEntry{aclGroup, 7, other}, aclEntry{aclMask, 7, 0}), account{lock.User{UID: stranger}, []uint32{other}}, true},
		{"a group entry matches but grants less: other is not asked", append(acl{{aclUserObj, 7, 0}, {aclGroupObj, 0, 0}, {aclOther, 7, 0}}, aclEntry{aclMask, 7, 0}),
			account{lock.User{UID: member}, []uint32{group}}, false},
		{"owner's entry, not a named one", with(aclEntry{aclUser, 0, owner}, aclEntry{aclMask, 7, 0}), account{lock.User{UID: owner}, nil}, true},
	} {
		if got := tc.acl.permits(tc.as, st, mayWrite|maySearch); got != tc.want {
			t.Errorf("%s: may write %v, want %v", tc.name, got, tc.want)
		}
	}
	got, err := parseACL(encodeACL(with(aclEntry{aclUser, 7, named})))
	if err != nil || len(got) != 4 || got[3] != (aclEntry{aclUser, 7, named}) {
		t.Errorf("parseACL: %v, %v", got, err)
	}
	if _, err := parseACL([]byte{1, 0, 0, 0}); err == nil {
		t.Error("parseACL took version 1")
	}
}

const gscEndpoint = "notify: {endpoints: [{name: google, kind: searchconsole, property: \"sc-domain:static.test\", credentials: gsc.json}]}\n"

// writeKey writes a service account key file of mode 0600, owned by uid
// (-1: the test's user).
func writeKey(t *testing.T, path string, uid int) {
	t.Helper()
	sctest.WriteKey(t, path, "https://oauth2.googleapis.test/token", 0o600)
	if err := os.Chown(path, uid, -1); err != nil {
		t.Skipf("cannot give the key to uid %d: %v", uid, err)
	}
}
