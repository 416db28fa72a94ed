package main

import (
	"bytes"
	"fmt"
	"io"
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
)

// The hostile-filesystem suite: files that a deploy user, a CI job or a web
// application can plant where sitemapd reads, locks or writes (the
// document root, the output tree, state_dir). Each case runs the real
// process, as root and, when the tests run as root, again as an
// unprivileged user, and asserts that the target of a planted link is
// untouched, that the problem is named in the log, that the daemon
// publishes the rest (or, for its locks, refuses to start and says why),
// and that SIGTERM stops it.

// hostileSite is a site in a directory another user can reach: the
// victim is a file the daemon's user may write, outside everything
// sitemapd is given, which no planted link may change.
type hostileSite struct {
	dir, root, state, cfg, victim string
	cred                          *syscall.Credential // nil: as the tests' own user
	exe                           string              // the test binary, runnable by cred
}

const victimBytes = "precious: not sitemapd's\n"

func newHostileSite(t *testing.T, cred *syscall.Credential, exe string, extra string) *hostileSite {
	t.Helper()
	dir, err := os.MkdirTemp("", "sitemapd-hostile-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	h := &hostileSite{dir: dir, root: filepath.Join(dir, "site"), state: filepath.Join(dir, "state"),
		cfg: filepath.Join(dir, "sitemapd.yaml"), victim: filepath.Join(dir, "victim"), cred: cred, exe: exe}
	for _, p := range []string{"index.html", "blog/a.html", "docs/b.html"} {
		writeFileAt(t, filepath.Join(h.root, p), []byte("<title>"+p+"</title>"), time.Now())
	}
	if err := os.Mkdir(h.state, 0o700); err != nil {
		t.Fatal(err)
	}
	body := "root: site\nbase_url: https://static.test/\nstate_dir: state\nlog: {format: json}\n" + extra
	if err := os.WriteFile(h.cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(h.victim, []byte(victimBytes), 0o644); err != nil {
		t.Fatal(err)
	}
	return h
}

// own gives the whole site to the user the daemon runs as, after the
// plants (a planted link is the deploy user's, as it would be).
func (h *hostileSite) own(t *testing.T) {
	t.Helper()
	if h.cred == nil {
		return
	}
	if err := os.Chmod(h.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	err := filepath.Walk(h.dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, int(h.cred.Uid), int(h.cred.Gid))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// fifo, link and socket plant a file.
func (h *hostileSite) fifo(t *testing.T, path string) {
	t.Helper()
	if err := unix.Mkfifo(path, 0o666); err != nil {
		t.Fatal(err)
	}
}

func (h *hostileSite) link(t *testing.T, target, path string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

func (h *hostileSite) socket(t *testing.T, path string) {
	t.Helper()
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close()
}

// hostileCase is one plant and what must follow.
type hostileCase struct {
	name  string
	extra string // configuration added
	plant func(t *testing.T, h *hostileSite)
	// refuse: the process must not start, and say this (it cannot take
	// its lock safely). Otherwise it publishes the rest.
	refuse string
	// named: what the log must say of the planted file.
	named string
	// after, if set, runs once the site is the daemon's user's (a
	// permission taken away from that user).
	after func(t *testing.T, h *hostileSite)
}

var hostileCases = []hostileCase{
	{
		name:   "output root lock is a link to a file",
		plant:  func(t *testing.T, h *hostileSite) { h.link(t, h.victim, filepath.Join(h.root, ".sitemapd.lock")) },
		refuse: "site/.sitemapd.lock is a symlink",
	}, {
		name:   "state_dir lock is a link to a file",
		plant:  func(t *testing.T, h *hostileSite) { h.link(t, h.victim, filepath.Join(h.state, "sitemapd.lock")) },
		refuse: "state/sitemapd.lock is a symlink",
	}, {
		name: "both locks are links to one file",
		plant: func(t *testing.T, h *hostileSite) {
			h.link(t, h.victim, filepath.Join(h.root, ".sitemapd.lock"))
			h.link(t, h.victim, filepath.Join(h.state, "sitemapd.lock"))
		},
		refuse: "site/.sitemapd.lock is a symlink",
	}, {
		name: "output root lock is a dangling link",
		plant: func(t *testing.T, h *hostileSite) {
			h.link(t, filepath.Join(h.dir, "planted"), filepath.Join(h.root, ".sitemapd.lock"))
		},
		refuse: "site/.sitemapd.lock is a symlink",
	}, {
		name:   "output root lock is a hard link",
		plant:  func(t *testing.T, h *hostileSite) { os.Link(h.victim, filepath.Join(h.root, ".sitemapd.lock")) },
		refuse: "site/.sitemapd.lock has other names",
	}, {
		name:  "robots.txt is a FIFO",
		plant: func(t *testing.T, h *hostileSite) { h.fifo(t, filepath.Join(h.root, "robots.txt")) },
		named: "robots.txt is a FIFO",
	}, {
		name:  "robots.txt is a link to /dev/zero",
		plant: func(t *testing.T, h *hostileSite) { h.link(t, "/dev/zero", filepath.Join(h.root, "robots.txt")) },
		named: "robots.txt is a character device",
	}, {
		name: "robots.txt is a link to a FIFO",
		plant: func(t *testing.T, h *hostileSite) {
			p := filepath.Join(h.dir, "fifo")
			h.fifo(t, p)
			h.link(t, p, filepath.Join(h.root, "robots.txt"))
		},
		named: "robots.txt is a FIFO",
	}, {
		name: "robots.txt is a link loop",
		plant: func(t *testing.T, h *hostileSite) {
			h.link(t, filepath.Join(h.root, "robots.txt"), filepath.Join(h.root, "robots2.txt"))
			h.link(t, filepath.Join(h.root, "robots2.txt"), filepath.Join(h.root, "robots.txt"))
		},
		named: "robots.txt: too many levels of symbolic links",
	}, {
		name:  "robots.txt is a socket",
		plant: func(t *testing.T, h *hostileSite) { h.socket(t, filepath.Join(h.root, "robots.txt")) },
		named: "robots.txt is a socket",
	}, {
		name:  "the page store is a FIFO",
		plant: func(t *testing.T, h *hostileSite) { h.fifo(t, filepath.Join(h.state, "pages")) },
		named: "pages is a FIFO",
	}, {
		name:  "the page store is a link to a file",
		plant: func(t *testing.T, h *hostileSite) { h.link(t, h.victim, filepath.Join(h.state, "pages")) },
		named: "pages is a symlink",
	}, {
		name:  "the ledger is a FIFO",
		extra: "notify: {endpoints: [{name: receiver, kind: indexnow, url: \"http://127.0.0.1:9/\", key: 0123456789abcdef}]}\n",
		plant: func(t *testing.T, h *hostileSite) { h.fifo(t, filepath.Join(h.state, "notify.json")) },
		named: "notify.json is a FIFO",
	}, {
		name:   "the ledger's lock is a link to a file",
		extra:  "notify: {endpoints: [{name: receiver, kind: indexnow, url: \"http://127.0.0.1:9/\", key: 0123456789abcdef}]}\n",
		plant:  func(t *testing.T, h *hostileSite) { h.link(t, h.victim, filepath.Join(h.state, "notify.lock")) },
		refuse: "state/notify.lock is a symlink",
	}, {
		name:  "a page is a FIFO",
		plant: func(t *testing.T, h *hostileSite) { h.fifo(t, filepath.Join(h.root, "blog", "fifo.html")) },
	}, {
		name:  "a page is a link to /dev/zero",
		plant: func(t *testing.T, h *hostileSite) { h.link(t, "/dev/zero", filepath.Join(h.root, "blog", "zero.html")) },
		named: "symlink leaves the document root",
	}, {
		name:  "a page is a link out of the root",
		plant: func(t *testing.T, h *hostileSite) { h.link(t, h.victim, filepath.Join(h.root, "blog", "victim.html")) },
		named: "symlink leaves the document root",
	}, {
		name:  "a directory is a link loop",
		plant: func(t *testing.T, h *hostileSite) { h.link(t, "..", filepath.Join(h.root, "blog", "up")) },
	}, {
		name:  "a sitemap is a FIFO",
		plant: func(t *testing.T, h *hostileSite) { h.fifo(t, filepath.Join(h.root, "docs", "sitemap.xml")) },
		named: "docs/sitemap.xml",
	}, {
		name:  "a sitemap is a link to a file",
		plant: func(t *testing.T, h *hostileSite) { h.link(t, h.victim, filepath.Join(h.root, "docs", "sitemap.xml")) },
		named: "docs/sitemap.xml",
	}, {
		// Only an unprivileged user meets the permission; root reads it.
		// Unread, the page is listed by its mtime (the web server may
		// read what sitemapd may not), with a warning.
		name: "a page is unreadable",
		plant: func(t *testing.T, h *hostileSite) {
			writeFileAt(t, filepath.Join(h.root, "docs", "secret.html"), []byte("<title>s</title>"), time.Now())
		},
		after: func(t *testing.T, h *hostileSite) { os.Chmod(filepath.Join(h.root, "docs", "secret.html"), 0) },
	}, {
		name: "a directory is unreadable",
		plant: func(t *testing.T, h *hostileSite) {
			writeFileAt(t, filepath.Join(h.root, "docs", "locked", "x.html"), []byte("<title>x</title>"), time.Now())
		},
		after: func(t *testing.T, h *hostileSite) { os.Chmod(filepath.Join(h.root, "docs", "locked"), 0) },
	}, {
		name:  "extra_urls is a FIFO",
		extra: "extra_urls: [urls.txt]\n",
		plant: func(t *testing.T, h *hostileSite) { h.fifo(t, filepath.Join(h.dir, "urls.txt")) },
		named: "urls.txt is a FIFO",
	},
}

// hostileUsers are the users each case runs as: the tests' own and, as
// root, nobody (with a copy of the test binary nobody can run).
func hostileUsers(t *testing.T) map[string]*syscall.Credential {
	users := map[string]*syscall.Credential{"own user": nil}
	if os.Getuid() != 0 {
		t.Log("not root: the cases run as this user only")
		return users
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		t.Fatalf("running as root, but no user nobody to run as: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	users["nobody"] = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	return users
}

// exeFor copies the test binary where cred can run it.
func exeFor(t *testing.T, cred *syscall.Credential) string {
	if cred == nil {
		return os.Args[0]
	}
	dir, err := os.MkdirTemp("", "sitemapd-exe-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	in, err := os.Open(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	exe := filepath.Join(dir, "sitemapd.test")
	out, err := os.OpenFile(exe, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return exe
}

func TestHostileFiles(t *testing.T) {
	for who, cred := range hostileUsers(t) {
		exe := exeFor(t, cred)
		for _, tc := range hostileCases {
			t.Run(who+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				h := newHostileSite(t, cred, exe, tc.extra)
				tc.plant(t, h)
				h.own(t)
				if tc.after != nil {
					tc.after(t, h)
				}
				c := startChildWith(t, h.cfg, childOptions{exe: exe, dir: h.dir, cred: cred})
				if tc.refuse != "" {
					h.refused(t, c, tc.refuse)
				} else {
					h.publishes(t, c, tc.named)
				}
				if b, err := os.ReadFile(h.victim); err != nil || string(b) != victimBytes {
					t.Errorf("the victim file now holds %q (%v)", b, err)
				}
			})
		}
	}
}

// refused checks that the daemon exits on its own, saying why.
func (h *hostileSite) refused(t *testing.T, c *child, why string) {
	t.Helper()
	err := waitExit(c.cmd, 30*time.Second)
	if err == nil {
		t.Errorf("the daemon exited 0; want it to refuse to start")
	}
	if !strings.Contains(c.stderr.String(), why) {
		t.Errorf("its log does not say %q", why)
	}
}

// publishes checks that the daemon publishes the pages that are not
// planted, names the problem, and stops on SIGTERM.
func (h *hostileSite) publishes(t *testing.T, c *child, named string) {
	t.Helper()
	if _, err := c.await("READY=1", 60*time.Second); err != nil {
		t.Fatalf("waiting for READY=1: %v", err)
	}
	got := readURLSet(t, filepath.Join(h.root, "sitemap.xml"))
	if _, ok := got[base+"/"]; !ok {
		t.Errorf("sitemap.xml does not list the home page: %v", got)
	}
	got = readURLSet(t, filepath.Join(h.root, "blog", "sitemap.xml"))
	if _, ok := got[base+"/blog/a.html"]; !ok || len(got) != 1 {
		t.Errorf("blog/sitemap.xml lists %v, want blog/a.html alone", got)
	}
	if named != "" {
		// The log comes through a pipe: it may lag behind READY=1.
		pollFor(t, 30*time.Second, fmt.Sprintf("the log to say %q", named), func() (bool, string) {
			return strings.Contains(c.stderr.String(), named), "it does not"
		})
	}
	c.cmd.Process.Signal(syscall.SIGTERM)
	if err := waitExit(c.cmd, 20*time.Second); err != nil {
		t.Errorf("after SIGTERM: %v", err)
	}
}

// waitExit waits for cmd to exit, killing it after limit: a process a
// file holds never exits.
func waitExit(cmd *exec.Cmd, limit time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(limit):
		cmd.Process.Kill()
		<-done
		return fmt.Errorf("still running after %v: killed", limit)
	}
}

// TestHostileBuild: `sitemapd build` meets the files of its own state a
// hostile or broken state_dir can hold, and its locks, without blocking or
// writing through a link.
func TestHostileBuild(t *testing.T) {
	for _, tc := range []struct {
		name   string
		plant  func(t *testing.T, h *hostileSite)
		status int
		say    string
	}{
		{"groups record is a FIFO", func(t *testing.T, h *hostileSite) { h.fifo(t, filepath.Join(h.state, "groups.json")) }, ExitOK, "groups.json is a FIFO"},
		{"both locks link to one file", func(t *testing.T, h *hostileSite) {
			h.link(t, h.victim, filepath.Join(h.root, ".sitemapd.lock"))
			h.link(t, h.victim, filepath.Join(h.state, "sitemapd.lock"))
		}, ExitFailure, ".sitemapd.lock is a symlink"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHostileSite(t, nil, "", "")
			tc.plant(t, h)
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "SITEMAPD_CLI_ARGS=build\n-config\n"+h.cfg)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			err := waitExit(cmd, 30*time.Second)
			if code := cmd.ProcessState.ExitCode(); code != tc.status {
				t.Errorf("exit %d (%v), want %d", code, err, tc.status)
			}
			if !strings.Contains(stderr.String(), tc.say) {
				t.Errorf("its log does not say %q:\n%s", tc.say, stderr.String())
			}
			if b, err := os.ReadFile(h.victim); err != nil || string(b) != victimBytes {
				t.Errorf("the victim file now holds %q (%v)", b, err)
			}
		})
	}
}
