package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/sitemapd/sitemapd/internal/config"
	"github.com/sitemapd/sitemapd/internal/lock"
)

// `sitemapd check` of a configuration: the file's own validity, then what
// would keep the service from starting with it that can be seen before
// it starts (a preflight): its listen address taken, a directory it must
// write that its user may not. A configuration error exits 2, as ever; a
// finding exits 1, as a problem check finds in a sitemap does: the file
// is right, the machine is not ready for it.

// checkConfig is `sitemapd check [-config FILE] [-site NAME] [-user NAME]`.
func checkConfig(path, site, userName string, stdout, stderr io.Writer) int {
	proc, sites, ok := loadSites(path, site, stderr)
	if !ok {
		return ExitUsage
	}
	as, ok := checkedAccount(userName, stderr)
	if !ok {
		return ExitUsage
	}
	p := &preflight{as: as}
	p.listen(proc.Listen, sites)
	for _, cfg := range sites {
		p.site(cfg)
	}
	if !p.report(path, stdout, stderr) {
		return ExitFailure
	}
	if proc.Multi {
		fmt.Fprintf(stdout, "%s: configuration is valid: %s\n", path, plural(len(sites), "site"))
		return ExitOK
	}
	fmt.Fprintf(stdout, "%s: configuration is valid\n", path)
	return ExitOK
}

// checkedAccount is the user -user names, or the one check runs as.
func checkedAccount(name string, stderr io.Writer) (account, bool) {
	if name != "" {
		as, err := lookupAccount(name)
		if err != nil {
			fmt.Fprintf(stderr, "sitemapd check: -user: %v\n", err)
			return as, false
		}
		return as, true
	}
	as := me()
	if as.UID == 0 {
		fmt.Fprintln(stderr, "sitemapd check: note: checked as root, who may write anywhere: -user NAME checks as the user the service runs as (the packaged units': sitemapd)")
	}
	return as, true
}

// report prints the notes and the findings, and says whether there was
// none.
func (p *preflight) report(path string, stdout, stderr io.Writer) bool {
	for _, n := range p.notes {
		fmt.Fprintln(stderr, "sitemapd check: note: "+n)
	}
	for _, f := range p.findings {
		fmt.Fprintln(stdout, f)
	}
	if len(p.findings) > 0 {
		fmt.Fprintf(stdout, "%s: %s would keep sitemapd from starting as %s\n", path, plural(len(p.findings), "problem"), p.as.User)
	}
	return len(p.findings) == 0
}

// preflight collects what check finds, each once.
type preflight struct {
	as       account
	findings []string // where: what is wrong: what to do
	notes    []string // what is fine, but worth knowing
	seen     map[string]bool
}

// find adds a finding about where, unless one was made about it already
// (several sites share a parent; a docroot is read and written).
func (p *preflight) find(where, format string, args ...any) {
	if p.seen == nil {
		p.seen = map[string]bool{}
	}
	if p.seen[where] {
		return
	}
	p.seen[where] = true
	p.findings = append(p.findings, where+": "+fmt.Sprintf(format, args...))
}

// listen binds the listen address and closes it at once. Taken, it is
// fine only when the daemon of these sites holds it: their output lock
// then says so (the lock is tested only then, as testing it takes it for
// an instant).
func (p *preflight) listen(addr string, sites []*config.Config) {
	if addr == "" {
		return
	}
	where := "listen " + addr
	ln, err := net.Listen("tcp", addr)
	switch {
	case err == nil:
		ln.Close()
		p.privilegedPort(addr)
	case errors.Is(err, syscall.EACCES) && p.privilegedPort(addr):
	case errors.Is(err, syscall.EADDRINUSE):
		if h := runningDaemon(sites); h != nil {
			p.notes = append(p.notes, fmt.Sprintf("%s: in use by %s, which publishes %s: as expected while it runs", where, h.Holder, h.Dir))
			return
		}
		_, port, _ := net.SplitHostPort(addr)
		p.find(where, "the address is in use by another process: stop it, or set listen to a free address (ss -ltnp 'sport = :%s' names the process)", port)
	default:
		p.find(where, "cannot listen there (%v): set listen to an address of this machine, e.g. 127.0.0.1:9477", cause(err))
	}
}

// runningDaemon returns the lock of the `sitemapd run` that serves one of
// sites, if one does.
func runningDaemon(sites []*config.Config) *lock.HeldError {
	for _, cfg := range sites {
		out := cfg.OutputRoot()
		var held *lock.HeldError
		if errors.As(lock.Held(filepath.Join(out, lock.OutputName), out), &held) && held.Holder.Command == "run" {
			return held
		}
	}
	return nil
}

// privilegedPort finds a port only root may bind (check itself may be
// root) that the service's user would be refused, and reports whether it
// did.
func (p *preflight) privilegedPort(addr string) bool {
	_, ps, _ := net.SplitHostPort(addr)
	port, err := strconv.Atoi(ps)
	if err != nil || p.as.UID == 0 {
		return false
	}
	first := 1024
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_unprivileged_port_start"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			first = n
		}
	}
	if port == 0 || port >= first {
		return false
	}
	p.find("listen "+addr, "port %d is below %d (net.ipv4.ip_unprivileged_port_start), which %s may not bind: choose a higher port, e.g. 9477", port, first, p.as.User)
	return true
}

// site checks what one site needs to read and write.
func (p *preflight) site(cfg *config.Config) {
	p.dir(cfg.Root, mayRead|maySearch, "", fmt.Sprintf("give it read access, e.g. sudo setfacl -R -m u:%s:rX %s", p.as.ACLName(), cfg.Root))
	out := cfg.OutputRoot()
	p.dir(out, mayWrite|maySearch, "output_dir", lock.Advice(p.as.User, out, "output_dir"))
	if cfg.StateDir != "" {
		p.stateDir(cfg.StateDir)
	}
	p.credentials(cfg)
}

// dir finds what keeps the user from doing want with the directory path;
// todo says what to do about it, key is the setting that moves it.
func (p *preflight) dir(path string, want uint32, key, todo string) {
	d, err := p.as.may(path, want)
	switch {
	case err != nil:
		p.find(path, "cannot tell whether %s may %s it: %v", p.as.User, verbs(want), err)
	case d != nil:
		p.find(path, "%s %s: %s", p.as.User, d.about(path), p.remedy(d, todo))
	case want&mayWrite != 0 && readOnly(path):
		p.find(path, "is on a read-only file system: set %s to a writable directory", key)
	}
}

// remedy is todo, or how to open a directory above that refuses search.
func (p *preflight) remedy(d *denied, todo string) string {
	if d.above {
		return fmt.Sprintf("give it search access, e.g. sudo setfacl -m u:%s:x %s", p.as.ACLName(), d.path)
	}
	return todo
}

// stateDir checks state_dir or, when it does not exist yet, the nearest
// directory above it, where it would be made (by run, build and ping).
func (p *preflight) stateDir(dir string) {
	parent := nearestExisting(dir)
	if parent == dir {
		p.dir(dir, mayWrite|maySearch, "state_dir", lock.Advice(p.as.User, dir, "state_dir"))
		return
	}
	d, err := p.as.may(parent, mayWrite|maySearch)
	def := config.DefaultStateDir()
	switch {
	case err != nil:
		p.find(dir, "cannot tell whether %s may make it: %v", p.as.User, err)
	case d == nil && readOnly(parent):
		p.find(dir, "does not exist, and %s is on a read-only file system: set state_dir to a writable directory", parent)
	case d == nil: // it can be made
	case within(dir, def) && !within(parent, def):
		// The packaged units' StateDirectory= makes it, for their
		// user, before the daemon starts.
		p.notes = append(p.notes, fmt.Sprintf("%s: does not exist yet: the systemd units make it at start (StateDirectory=); elsewhere: sudo install -d -o %s -m 0700 %s",
			dir, p.as.ACLName(), dir))
	default:
		p.find(dir, "does not exist, and %s %s to make it: make it, sudo install -d -o %s -m 0700 %s, or set state_dir to a directory it can write",
			p.as.User, d.about(dir), p.as.ACLName(), dir)
	}
}

// nearestExisting is path, or the nearest directory above it that exists.
func nearestExisting(path string) string {
	for {
		_, err := os.Stat(path)
		if !errors.Is(err, fs.ErrNotExist) || path == filepath.Dir(path) {
			return path
		}
		path = filepath.Dir(path)
	}
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// cause is the errno of a network or path error, whose address or path
// the message names already.
func cause(err error) error {
	var op *net.OpError
	if errors.As(err, &op) {
		err = op.Err
	}
	var sys *os.SyscallError
	if errors.As(err, &sys) {
		return sys.Err
	}
	return err
}
